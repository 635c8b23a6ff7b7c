"""RepeatByCaptionsSampler: a pair per caption per epoch."""
import json
import os.path as osp
from collections import Counter

from mmidc.datasets import ImagePairDataset
from mmidc.datasets.samplers import group_sampler
from mmidc.registry import DATA_SAMPLERS


def test_each_pair_once_per_caption(clevr_root, tmp_path, monkeypatch):
    image = osp.join(clevr_root, 'images', 'CLEVR_default_000000.png')
    records = [dict(img1=image, img2=image, captions=['a'] * n)
               for n in (1, 3, 2, 4)]
    ann = tmp_path / 'pairs.json'
    ann.write_text(json.dumps(records))
    dataset = ImagePairDataset(str(ann))
    sampler = DATA_SAMPLERS.build(dict(type='RepeatByCaptionsSampler',
                                       dataset=dataset, seed=0))
    indices = list(sampler)
    assert len(sampler) == len(indices) == 10
    assert Counter(indices) == {0: 1, 1: 3, 2: 2, 3: 4}
    sampler.set_epoch(1)
    assert list(sampler) != indices  # reshuffled
    # two ranks: 5 visits each, together every visit once
    visits = Counter()
    for rank in range(2):
        monkeypatch.setattr(group_sampler, 'get_dist_info',
                            lambda rank=rank: (rank, 2))
        part = list(DATA_SAMPLERS.build(dict(
            type='RepeatByCaptionsSampler', dataset=dataset, seed=0)))
        assert len(part) == 5
        visits.update(part)
    assert visits == {0: 1, 1: 3, 2: 2, 3: 4}
