"""The image part of a config's test pipeline, for user-supplied pairs."""
from mmcv.transforms import Compose
from mmengine.config import Config

from mmidc.datasets.preparation.pair_image_cache import (pipeline_value_range,
                                                         step_type_name)
#: Steps of a data set pipeline that inference replaces or does not need:
#: images come from :func:`load_rgb_image` (any source, validated), and
#: user pairs have no reference captions to tokenise.
SKIPPED_TRANSFORMS = ('LoadImagePair', 'TokenizeCaptions')
PACK_TRANSFORM = 'PackIDCInputs'


def get_test_pipeline_cfg(cfg: Config) -> list:
    """The test (else val) data set pipeline of a config."""
    for loader in ('test_dataloader', 'val_dataloader'):
        dataset = (cfg.get(loader) or {}).get('dataset')
        while dataset is not None and 'pipeline' not in dataset:
            dataset = dataset.get('dataset')  # wrappers (RepeatDataset, ...)
        if dataset is not None:
            return list(dataset['pipeline'])
    raise KeyError(f'config {cfg.filename or "<dict>"} has no '
                   f'test_dataloader.dataset.pipeline (nor val_dataloader): '
                   f'inference needs it to know the input size')


def build_image_pipeline(cfg: Config) -> Compose:
    """Build the test pipeline minus loading and caption tokenisation.

    The result maps ``{'img1', 'img2', 'ori_shape', 'pair_id',
    'change_type', 'gt_captions', ...}`` with RGB ``uint8`` arrays to a
    packed sample ``{'inputs': uint8 [2, 3, H, W], 'data_samples'}``.
    """
    from mmidc.registry import TRANSFORMS
    steps = [t for t in get_test_pipeline_cfg(cfg)
             if step_type_name(t) not in SKIPPED_TRANSFORMS]
    names = [step_type_name(t) for t in steps]
    if not names or names[-1] != PACK_TRANSFORM:
        raise ValueError(f'config {cfg.filename or "<dict>"}: the test '
                         f'pipeline must end with {PACK_TRANSFORM}, got '
                         f'{names}')
    if len(names) < 2:
        raise ValueError(f'config {cfg.filename or "<dict>"}: the test '
                         f'pipeline has no resize step (e.g. ResizePair) '
                         f'before {PACK_TRANSFORM}')
    return Compose([TRANSFORMS.build(t) for t in steps])


def value_range_of(cfg: Config):
    """``LoadImagePair.value_range`` of the config's test pipeline (how
    16-bit and float images map to 8 bits), checked; ``'full'`` when the
    pipeline does not set it, as ``LoadImagePair`` defaults to."""
    return pipeline_value_range(get_test_pipeline_cfg(cfg))


def context_length_of(cfg: Config, default: int = 32) -> int:
    """``TokenizeCaptions.context_length`` of the config's test pipeline."""
    for step in get_test_pipeline_cfg(cfg):
        if step_type_name(step) == 'TokenizeCaptions':
            return step.get('context_length', default)
    return default
