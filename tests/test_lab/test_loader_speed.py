"""mmidc_lab.loader_speed: the command line writes its JSON and prints the
table (the measurement: tests/test_lab/test_benchmarks/)."""
import json

from mmidc_lab import loader_speed as tool
from tests.helpers.pair_trees import make_clevr_change_tree


def test_writes_rows_and_prints_the_table(tmp_path, capsys):
    root = str(tmp_path / 'clevr')
    make_clevr_change_tree(root)
    out = str(tmp_path / 'speed.json')
    assert tool.main([root, '--size', '16', '16', '--workers', '0',
                      '--sources', 'png', '--out', out]) == 0
    with open(out) as f:
        result = json.load(f)
    assert result['size'] == [16, 16] and result['batch_size'] == 32
    (row, ) = result['rows']
    assert row['source'] == 'png' and row['pairs'] == 8
    assert '| png | 0 | 8 |' in capsys.readouterr().out
