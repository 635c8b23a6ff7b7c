"""mmidc_lab.ablations: a dry run over a finished run writes its page with
the command; unknown rows end the command (the ablation itself:
tests/test_lab/test_experiments/test_clip4idc_ablation.py)."""
import json

import pytest

from mmidc_lab import ablations
from mmidc_lab.experiments import clip4idc_ablation
from tests.helpers import REPO


@pytest.fixture
def tool(monkeypatch):
    monkeypatch.chdir(REPO)  # the lab runs from a clone's root
    return ablations


def test_dry_run_writes_the_page_of_the_finished_runs(tool, tmp_path, capsys):
    row = clip4idc_ablation.ROWS[1]
    run_dir = tmp_path / 'work' / row['name'] / 'seed0'
    run_dir.mkdir(parents=True)
    (run_dir / 'result.json').write_text(json.dumps(dict(
        row=row['name'], seed=0, scores={'CIDEr': 99.0, 'val/CIDEr': 98.0},
        wall_s=60.0,
        plan=clip4idc_ablation.run_options(row, 0))))
    page = tmp_path / 'page.md'
    argv = ['--rows', row['name'], '--seeds', '0', '1', '--work-dir',
            str(tmp_path / 'work'), '--out', str(page), '--dry-run']
    (result, ) = tool.main(argv)
    assert result['seed'] == 0
    text = page.read_text()
    assert text.startswith(f'# {clip4idc_ablation.DEFAULT_TITLE}\n')
    assert f'| {row["label"]} | 0 |' in text
    assert '`python -m mmidc_lab.ablations --rows no-adapt' in text
    assert f'1 finished runs; table: {page}' in capsys.readouterr().out


def test_unknown_rows_end_the_command(tool):
    with pytest.raises(SystemExit, match="unknown \\['nope'\\]"):
        tool.main(['--rows', 'nope', '--dry-run'])
