"""mmidc.apis.pair_pipeline: the config's test pipeline without loading
and tokenisation, for pairs given as arrays."""
import numpy as np
import pytest
from mmengine.config import Config

from mmidc.apis.pair_pipeline import (build_image_pipeline, context_length_of,
                                      get_test_pipeline_cfg)

PIPELINE = [dict(type='LoadImagePair'), dict(type='mmidc.ResizePair', size=(8, 12)),
            dict(type='TokenizeCaptions', context_length=20), dict(type='PackIDCInputs')]


def _cfg(pipeline, loader='test_dataloader'):
    dataset = dict(type='RepeatDataset', times=2,
                   dataset=dict(type='CLEVRChangeDataset', pipeline=pipeline))
    return Config({loader: dict(dataset=dataset)})


def test_the_image_steps_of_the_test_pipeline():
    cfg = _cfg(PIPELINE)
    assert get_test_pipeline_cfg(cfg) == PIPELINE
    assert get_test_pipeline_cfg(_cfg(PIPELINE, 'val_dataloader')) == PIPELINE
    assert context_length_of(cfg) == 20
    assert context_length_of(_cfg(PIPELINE[:2] + PIPELINE[3:]), default=7) == 7
    img = np.zeros((16, 24, 3), np.uint8)
    packed = build_image_pipeline(cfg)(dict(
        img1=img, img2=img, ori_shape=(16, 24), pair_id='p', change_type='none',
        gt_captions=[]))
    assert tuple(packed['inputs'].shape) == (2, 3, 8, 12)


def test_pipelines_inference_cannot_use():
    with pytest.raises(KeyError, match='no test_dataloader.dataset.pipeline'):
        get_test_pipeline_cfg(Config(dict(model=dict())))
    with pytest.raises(ValueError, match='must end with PackIDCInputs'):
        build_image_pipeline(_cfg(PIPELINE[:2]))
    with pytest.raises(ValueError, match='no resize step'):
        build_image_pipeline(_cfg([dict(type='LoadImagePair'), dict(type='PackIDCInputs')]))
