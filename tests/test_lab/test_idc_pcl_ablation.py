"""mmidc_lab.idc_pcl_ablation: ``--summary-only`` prints the table of the
finished runs, trains nothing (the runs themselves:
tests/test_lab/test_experiments/test_idc_pcl_ablation.py)."""
import sys

import pytest

from mmidc_lab import idc_pcl_ablation as tool


def test_summary_only(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    work = tmp_path / 'work'
    work.mkdir()
    monkeypatch.setattr(sys, 'argv', ['idc_pcl_ablation.py', '--summary-only',
                                      '--work-dir', str(work)])
    tool.main()
    table = (work / 'summary.md').read_text()
    assert table.startswith('| row | seeds | val CIDEr |')
    assert table.strip() in capsys.readouterr().out
    monkeypatch.setattr(sys, 'argv', ['idc_pcl_ablation.py', '--rows', 'x'])
    with pytest.raises(SystemExit):
        tool.main()
