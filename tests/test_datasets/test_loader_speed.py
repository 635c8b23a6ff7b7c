"""tools/analysis_tools/loader_speed.py on a tiny tree."""
import importlib.util
import json
import os.path as osp

from pair_trees import make_clevr_change_tree

TOOL = osp.join(osp.dirname(__file__), '..', '..', 'tools',
                'analysis_tools', 'loader_speed.py')


def test_loader_speed_png_vs_cache(tmp_path):
    root = str(tmp_path / 'clevr')
    make_clevr_change_tree(root)
    spec = importlib.util.spec_from_file_location('loader_speed', TOOL)
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    out = str(tmp_path / 'speed.json')
    assert tool.main([root, '--size', '16', '16', '--workers', '0',
                      '--batch-size', '3', '--build-cache', '--out',
                      out]) == 0
    with open(out) as f:
        rows = json.load(f)['rows']
    assert [r['source'] for r in rows] == ['png', 'cache']
    assert all(r['pairs'] == 8 and r['pairs_per_s'] > 0 for r in rows)
    assert osp.exists(osp.join(root, 'cache_16x16', 'train.json'))
