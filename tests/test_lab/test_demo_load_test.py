"""mmidc_lab.demo_load_test: a small bounded run against the demo served on
127.0.0.1 with a tiny model."""
import json

import pytest

from mmidc_lab import demo_load_test as tool
from tests.helpers.demo_server import tiny_model_files

pytestmark = pytest.mark.usefixtures('one_thread')


def test_small_load_run_counts_every_request(tmp_path, capsys):
    files = tiny_model_files('captioner', tmp_path)
    out = tmp_path / 'load.json'
    stats = tool.main([*files, '--clients', '3', '--requests', '4',
                       '--max-queue', '2', '--timeout', '60',
                       '--max-seconds', '120', '--out', str(out)])
    assert json.loads(out.read_text()) == stats
    assert stats['sent'] == 12 and stats['errors'] == 0
    assert stats['ok'] + stats['rejected_503'] == 12 and stats['ok'] >= 4
    assert stats['max_queue'] == 2
    assert 0 < stats['latency_p50_s'] <= stats['latency_p95_s'] <= stats['latency_max_s']
    assert stats['info_probes'] >= 1 and stats['info_errors'] == 0
    assert 'p95' in capsys.readouterr().out


def test_only_loopback_urls(capsys):
    with pytest.raises(SystemExit):
        tool.parse_args(['--url', 'http://192.0.2.1:7860'])
    assert 'loopback' in capsys.readouterr().err
    assert tool.parse_args(['--url', 'http://127.0.0.1:7860']).clients == 8
