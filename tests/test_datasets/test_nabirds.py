"""NABirdsPairDataset reads NABirds' distributed layout and makes seeded
same-class / other-class pairs."""
import os.path as osp

import pytest
from tests.helpers.nabirds_tree import make_nabirds_tree

from mmidc.datasets import NABirdsPairDataset


@pytest.fixture
def nabirds(tmp_path):
    root = str(tmp_path / 'nabirds')
    return root, make_nabirds_tree(root)


def test_reads_the_layout_and_makes_pairs(nabirds):
    root, table = nabirds
    ds = NABirdsPairDataset(root, split='train', pairs_per_image=3, seed=1)
    # classes: those labelling an image, in the order of classes.txt
    assert ds.metainfo['classes'] == ('Common Loon', 'Northern Cardinal',
                                      'Blue Jay (Adult)')
    assert ds.num_classes == 3
    train = [i for i, (_, t) in table.items() if t]
    assert len(ds) == 3 * len(train)
    index = {295: 0, 313: 1, 446: 2}
    same = 0
    for k in range(len(ds)):
        info = ds.get_data_info(k)
        first = osp.basename(info['img1_path'])
        image_id = next(i for i in table if i.replace('-', '') + '.jpg' == first)
        assert table[image_id][1] == 1  # a training image
        c1, c2 = info['class_labels']
        assert c1 == index[table[image_id][0]]
        assert info['same_class'] == int(c1 == c2)
        assert info['img1_path'] != info['img2_path']
        assert osp.isfile(info['img2_path'])
        assert info['gt_captions'] == [] and info['change_type'] == 'unknown'
        same += info['same_class']
    assert 0 < same < len(ds)  # both kinds of pairs
    test = NABirdsPairDataset(root, split='test')
    assert len(test) == len(table) - len(train)
    # the same seed, the same pairs
    again = NABirdsPairDataset(root, split='train', pairs_per_image=3, seed=1)
    assert [again.get_data_info(k)['pair_id'] for k in range(len(ds))] == \
        [ds.get_data_info(k)['pair_id'] for k in range(len(ds))]


def test_pipeline_packs_a_pair(nabirds):
    root, _ = nabirds
    ds = NABirdsPairDataset(root, pipeline=[
        dict(type='LoadImagePair'), dict(type='ResizePair', size=(32, 48)),
        dict(type='PackIDCInputs', meta_keys=('pair_id', 'class_labels',
                                              'same_class'))])
    out = ds[0]
    assert tuple(out['inputs'].shape) == (2, 3, 32, 48)
    assert len(out['data_samples'].class_labels) == 2


def test_bad_input_names_the_file(nabirds, tmp_path):
    root, _ = nabirds
    with pytest.raises(ValueError, match='split'):
        NABirdsPairDataset(root, split='val')
    labels = osp.join(root, 'image_class_labels.txt')
    lines = open(labels).read().splitlines()
    with open(labels, 'w') as f:  # one image without a label
        f.write('\n'.join(lines[1:]) + '\n')
    with pytest.raises(ValueError, match='image_class_labels.txt: no entry for image'):
        NABirdsPairDataset(root)
    with open(labels, 'w') as f:  # a class classes.txt lacks
        f.write('\n'.join(lines[:-1] + [lines[-1].split()[0] + ' 12345']) + '\n')
    with pytest.raises(ValueError, match=r'class ids \[.12345.\] are not in .*classes.txt'):
        NABirdsPairDataset(root)
    with open(labels, 'w') as f:
        f.write('\n'.join(lines[:-1] + [lines[-1].split()[0]]) + '\n')
    with pytest.raises(ValueError, match='image_class_labels.txt: line'):
        NABirdsPairDataset(root)
    with pytest.raises(FileNotFoundError, match='images.txt'):
        NABirdsPairDataset(str(tmp_path / 'nowhere'))
    other = str(tmp_path / 'other')
    make_nabirds_tree(other)
    first = open(osp.join(other, 'images.txt')).readline().split()[1]
    import os
    os.remove(osp.join(other, 'images', first))
    with pytest.raises(FileNotFoundError, match=first.split('/')[-1]):
        NABirdsPairDataset(other)
