"""mmidc_lab.benchmarks.loader_speed on a tiny tree: the cache built once, every
pair loaded once per source, the rate is pairs / seconds."""
import os.path as osp

from mmengine.registry import init_default_scope

from mmidc_lab.benchmarks import loader_speed
from tests.helpers.pair_trees import make_clevr_change_tree


def test_png_vs_cache(tmp_path):
    root = str(tmp_path / 'clevr')
    make_clevr_change_tree(root)
    init_default_scope('mmidc')
    data = ('CLEVRChangeDataset', root, 'train', (16, 16))
    cache_dir = osp.join(root, 'cache_16x16')
    assert loader_speed.ensure_cache(*data, cache_dir) > 0
    assert osp.exists(osp.join(cache_dir, 'train.json'))
    assert loader_speed.ensure_cache(*data, cache_dir) is None  # kept
    rows = loader_speed.measure_sources(*data, [0], 3, cache_dir)
    assert [r['source'] for r in rows] == ['png', 'cache']
    for row in rows:  # every train pair once; the rate is pairs / seconds
        assert row['pairs'] == 8
        # seconds rounded to 1e-3, the rate to 0.1: |n/t - n/s| <= n*5e-4/(t*s)
        rounding = row['pairs'] * 5e-4 / (row['seconds'] - 5e-4) ** 2 + 0.05
        assert abs(row['pairs_per_s'] - row['pairs'] / row['seconds']) <= rounding
        assert row['steady_pairs_per_s_per_core'] == round(
            row['steady_pairs_per_s'] or 0, 1)  # 0 workers: one core
    table = loader_speed.format_table(rows).splitlines()
    assert table[0] == '| ' + ' | '.join(loader_speed.COLUMNS) + ' |'
    assert table[2].startswith('| png | 0 | 8 |') and len(table) == 4
