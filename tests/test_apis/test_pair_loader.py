"""The inferencers' batched resize on the model's device against the data
pipeline's (Pillow) resize: pixels within one grey level, equal captions."""
import numpy as np
import pytest
import torch
from PIL import Image

from mmidc.apis.pair_loader import resize_like_pil
from mmidc.datasets.image_io import resize_rgb
from tests.helpers.tiny_models import square_pair

# (source (H, W), target (H, W)): wider and taller, shrink and enlarge, the
# two axes apart (Pillow's pass order: the one that shrinks more first)
SHAPES = [((320, 480), (224, 224)), ((480, 320), (224, 224)),
          ((90, 20), (32, 32)), ((20, 90), (32, 32)), ((48, 48), (32, 32)),
          ((16, 16), (32, 32)), ((100, 100), (96, 144)),
          ((100, 100), (144, 96)), ((32, 32), (32, 32))]


@pytest.mark.parametrize('source, target', SHAPES)
def test_device_resize_is_the_pipelines_within_one_grey_level(source, target):
    """Noise, the hardest case for rounding: at most 1 apart, on under 1 %
    of the values (a one-pass resize, or the passes in the other order,
    differ by up to 20 here)."""
    image = np.random.default_rng(0).integers(0, 256, (*source, 3), np.uint8)
    expected = resize_rgb(image, target).astype(int)  # ResizePair's
    tensor = torch.from_numpy(image).permute(2, 0, 1)[None].float()
    resized = resize_like_pil(tensor, target)[0].permute(1, 2, 0).numpy()
    difference = np.abs(resized.astype(int) - expected)
    assert difference.max() <= 1
    assert (difference > 0).mean() < 0.01


def test_captions_equal_the_pipeline_path(captioner, tmp_path):
    """On PNG pairs of several sizes (resized to the model's 32x32), the
    captions of batches resized on the model's device equal the per-pair
    pipeline's (prepare_pair), and the scores agree within 1e-3."""
    pairs = []
    for i, size in enumerate((48, 40, 96, 24, 32)):
        before, after, _ = square_pair(colour_after=(30, 40 * i, 220),
                                       box=(8, 8, 20, 20), size=size)
        paths = tmp_path / f'{i}_a.png', tmp_path / f'{i}_b.png'
        Image.fromarray(before).save(paths[0])
        Image.fromarray(after).save(paths[1])
        pairs.append(tuple(map(str, paths)))
    pairs.append((pairs[0][0], pairs[2][1]))  # two sizes in one pair
    from mmengine.dataset import pseudo_collate
    loaded = captioner(pairs, batch_size=4, workers=0, resize_on_device=True)
    samples = [captioner.prepare_pair(*p) for p in pairs]
    data = captioner.model.data_preprocessor(pseudo_collate(samples), False)
    with torch.no_grad():
        predicted = captioner.model.predict(data['inputs'], data['data_samples'])
    expected = [captioner.to_result(ds) for ds in predicted]
    assert [r['caption'] for r in loaded] == [r['caption'] for r in expected]
    assert np.allclose([r['score'] for r in loaded],
                       [r['score'] for r in expected], atol=1e-3)
