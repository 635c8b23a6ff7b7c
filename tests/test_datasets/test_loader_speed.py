"""tools/analysis_tools/loader_speed.py on a tiny tree."""
import json
import os.path as osp

from tests.helpers import load_tool
from tests.helpers.pair_trees import make_clevr_change_tree


def test_loader_speed_png_vs_cache(tmp_path):
    root = str(tmp_path / 'clevr')
    make_clevr_change_tree(root)
    tool = load_tool('tools/analysis_tools/loader_speed.py')
    out = str(tmp_path / 'speed.json')
    assert tool.main([root, '--size', '16', '16', '--workers', '0',
                      '--batch-size', '3', '--build-cache', '--out',
                      out]) == 0
    with open(out) as f:
        rows = json.load(f)['rows']
    assert [r['source'] for r in rows] == ['png', 'cache']
    for row in rows:  # every train pair once; the rate is pairs / seconds
        assert row['pairs'] == 8
        # seconds rounded to 1e-3, the rate to 0.1: |n/t - n/s| <= n*5e-4/(t*s)
        rounding = row['pairs'] * 5e-4 / (row['seconds'] - 5e-4) ** 2 + 0.05
        assert abs(row['pairs_per_s'] - row['pairs'] / row['seconds']) <= rounding
    assert osp.exists(osp.join(root, 'cache_16x16', 'train.json'))
