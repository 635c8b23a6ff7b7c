"""JavaMeteor fails with a clear error instead of hanging (fake JVMs)."""
import os

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
