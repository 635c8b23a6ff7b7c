import pytest
import torch
from torch.testing import assert_close

from projects.from_scratch.models.plugins import ConvStem
from mmidc.registry import MODELS


def test_stages_then_a_patchifying_conv():
    # two stride-2 stages, then a 2x2 patchifying conv: 8 px patches
    stem = MODELS.build(dict(type='ConvStem', patch_size=(8, 8), width=64,
                             channels=(8, 16))).eval()
    x = torch.randn(2, 3, 32, 32)
    out = stem(x)
    assert out.shape == (2, 64, 4, 4)
    # computed channels-last inside, the same values as the plain layer
    # stack, returned in the default layout
    assert out.is_contiguous()
    assert_close(out, torch.nn.Sequential.forward(stem, x))
    # with return_features: every stride-2 stage's output too
    out2, stages = stem(x, return_features=True)
    assert [s.shape for s in stages] == [(2, 8, 16, 16), (2, 16, 8, 8)]
    assert_close(stages[0], torch.nn.Sequential(*list(stem)[:3])(x))
    assert_close(out2, out)


def test_bad_strides_are_refused():
    with pytest.raises(ValueError, match='patch_size=8'):
        ConvStem(8, 64, (8, 16, 32, 64))
    with pytest.raises(ValueError, match='square'):
        ConvStem((8, 16), 64, (8, 16))
