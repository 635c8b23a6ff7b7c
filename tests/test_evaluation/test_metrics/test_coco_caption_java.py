"""JavaMeteor fails with a clear error instead of hanging (fake JVMs)."""
import os
import time

import pytest

from mmidc.evaluation.metrics.coco_caption_java import JavaMeteor


def fake_java(tmp_path, body):
    path = tmp_path / 'java'
    path.write_text('#!/bin/sh\n' + body + '\n')
    os.chmod(path, 0o755)
    return str(path)


def test_stuck_jvm_is_killed(tmp_path):
    pid_file = tmp_path / 'pid'
    java = fake_java(tmp_path, f'echo $$ > {pid_file}\necho loading >&2\n'
                     'exec sleep 600')
    meteor = JavaMeteor(java, timeout=1)
    with pytest.raises(RuntimeError, match='no answer for 1s.*loading'):
        meteor.segment_stats(['a cube moved'], [['the cube moved']])
    assert meteor.meteor_p is None  # closed
    with pytest.raises(ProcessLookupError):  # killed and reaped, not left
        os.kill(int(pid_file.read_text()), 0)


def test_dead_jvm_reports_stderr(tmp_path):
    java = fake_java(tmp_path, 'echo "Error: Unable to access jarfile" >&2\n'
                     'exit 1')
    with JavaMeteor(java, timeout=30) as meteor:
        with pytest.raises(RuntimeError, match='Unable to access jarfile'):
            meteor.corpus_score(['1 2 3'])


def test_one_shared_meteor_jvm_per_process(tmp_path):
    """Every evaluation of a run reuses one METEOR JVM (its start costs
    seconds each validation); a JVM that died is started anew."""
    from mmidc.evaluation.metrics.coco_caption_java import (
        close_shared_meteors, shared_meteor)
    java = fake_java(tmp_path, 'exec sleep 600')
    try:
        first = shared_meteor(java, timeout=5)
        assert shared_meteor(java, timeout=7) is first
        assert first.timeout == 7
        first.close()
        second = shared_meteor(java)
        assert second is not first and second.meteor_p.poll() is None
    finally:
        close_shared_meteors()
    assert second.meteor_p is None


def sigterm_ignored(status_file) -> bool:
    """Whether the process whose /proc status was copied to ``status_file``
    ignored SIGTERM."""
    line = next(l for l in status_file.read_text().splitlines()
                if l.startswith('SigIgn:'))
    return bool(int(line.split()[1], 16) & (1 << (15 - 1)))


@pytest.mark.skipif(not os.path.isdir('/proc/self'), reason='needs /proc')
def test_the_jvms_ignore_sigterm(tmp_path):
    """``scancel`` and Slurm's preemption signal every process of the job:
    the JVMs scoring a validation ignore SIGTERM (the training run saves and
    stops at the end of the validation), and end with the scoring."""
    from mmidc.evaluation.metrics.coco_caption_java import JavaPTBTokenizer
    status = tmp_path / 'status'
    java = fake_java(tmp_path, f'cat /proc/$$/status > {status}\n'
                     'exec sleep 600')
    with JavaMeteor(java, timeout=5) as meteor:
        for _ in range(100):
            if status.exists() and 'SigIgn' in status.read_text():
                break
            time.sleep(0.05)
        assert sigterm_ignored(status)
    status.unlink()
    java = fake_java(tmp_path, f'cat /proc/$$/status > {status}\n'
                     'printf "a cube"')
    tokens = JavaPTBTokenizer(java).tokenize({0: [{'caption': 'a cube'}]})
    assert tokens == {0: ['a cube']}
    assert sigterm_ignored(status)
