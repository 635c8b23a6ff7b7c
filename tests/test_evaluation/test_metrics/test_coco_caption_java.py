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
    java = fake_java(tmp_path, 'echo loading >&2\nexec sleep 60')
    meteor = JavaMeteor(java, timeout=1)
    start = time.time()
    with pytest.raises(RuntimeError, match='no answer for 1s.*loading'):
        meteor.segment_stats(['a cube moved'], [['the cube moved']])
    assert time.time() - start < 30
    assert meteor.meteor_p is None  # closed


def test_dead_jvm_reports_stderr(tmp_path):
    java = fake_java(tmp_path, 'echo "Error: Unable to access jarfile" >&2\n'
                     'exit 1')
    with JavaMeteor(java, timeout=30) as meteor:
        with pytest.raises(RuntimeError, match='Unable to access jarfile'):
            meteor.corpus_score(['1 2 3'])
