"""mmidc.visualization.attention_maps: the CLS rows of the pair encoder's
attention as per-image patch maps (through the inferencer:
tests/test_apis/test_base_pair_inferencer.py)."""
import pytest
import torch

from mmidc.visualization import cls_attention_maps, patch_grid_shape, upsample_map


def test_cls_attention_maps_pick_cls_rows_and_split_images():
    heads, n = 2, 6  # a 2x3 patch grid
    intra = torch.zeros(1, 2, heads, n + 1, n + 1)
    intra[0, 1, :, 0, 1 + 4] = 1.0  # image 2's CLS looks at its patch 4
    inter = torch.zeros(1, heads, 2 * (n + 1), 2 * (n + 1))
    inter[0, :, 0, (n + 1) + 1 + 2] = 1.0  # CLS1 looks at image 2, patch 2
    inter[0, :, n + 1, 1 + 5] = 1.0  # CLS2 looks at image 1, patch 5
    maps = cls_attention_maps({'intra': [intra], 'inter': [inter]}, (16, 24))
    assert maps['intra'].shape == maps['inter'].shape == (1, 2, 2, 3)
    assert maps['inter_per_query'].shape == (1, 2, 2, 2, 3)
    assert maps['intra'][0, 1, 1, 1] == 1 and maps['intra'].sum() == 1
    assert maps['inter_per_query'][0, 0, 1, 0, 2] == 1  # query 1, image 2
    assert maps['inter_per_query'][0, 1, 0, 1, 2] == 1  # query 2, image 1
    assert maps['inter'][0, 1, 0, 2] == 0.5 and maps['inter'][0, 0, 1, 2] == 0.5
    assert upsample_map(maps['inter'], (16, 24)).shape == (1, 2, 16, 24)
    assert patch_grid_shape(49, (224, 224)) == (7, 7)
    with pytest.raises(ValueError, match='no attention maps'):
        cls_attention_maps({'intra': [], 'inter': []}, (16, 16))


def test_cls_attention_maps_leave_out_the_difference_segment():
    heads, n = 2, 6
    inter = torch.zeros(1, heads, 3 * (n + 1), 3 * (n + 1))
    inter[0, :, 0, (n + 1) + 1 + 2] = 0.5  # CLS1 -> image 2, patch 2
    inter[0, :, 0, 2 * (n + 1) + 1] = 0.5  # CLS1 -> difference segment
    inter[0, :, n + 1, 1 + 5] = 1.0  # CLS2 -> image 1, patch 5
    maps = cls_attention_maps({'inter': [inter], 'num_segments': 3}, (16, 24))
    assert maps['inter_per_query'].shape == (1, 2, 2, 2, 3)
    assert maps['inter_per_query'][0, 0, 1, 0, 2] == 0.5
    assert maps['inter_per_query'][0, 1, 0, 1, 2] == 1
    assert maps['inter_per_query'].sum() == 1.5  # difference column dropped
