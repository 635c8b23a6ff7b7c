"""mmidc_lab.benchmarks.inference: the pairs file the batch-captioning rate is
measured on (the rates themselves: test_sections.py)."""
import json
import os.path as osp

from mmidc_lab.benchmarks.inference import write_pairs_file
from tests.helpers.pair_trees import make_clevr_change_tree


def test_pairs_file_takes_the_test_split_first(tmp_path):
    root = str(tmp_path / 'clevr')
    make_clevr_change_tree(root, splits=dict(train=[0, 1, 2], val=[3], test=[4, 5]))
    out = str(tmp_path / 'out' / 'pairs.jsonl')
    assert write_pairs_file(root, out, num_pairs=4) == 4
    with open(out) as f:
        records = [json.loads(line) for line in f]
    ids = [r['pair_id'] for r in records]
    assert [i.split('/')[0] for i in ids] == ['test'] * 4  # test: change + no-change pairs
    assert len(set(ids)) == 4
    assert all(osp.isabs(r['img1']) and osp.isfile(r['img2']) for r in records)
    assert write_pairs_file(root, out, num_pairs=100) < 100  # all there is
