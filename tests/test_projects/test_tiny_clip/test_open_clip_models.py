"""projects.tiny_clip.open_clip_models: the project's architectures are
registered with open_clip next to mmidc's, and mmidc ships none of them."""
import json
import os

import open_clip

from mmidc.models.open_clip import MODEL_CONFIG_DIR as MMIDC_DIR
from projects.tiny_clip import open_clip_models


def test_registers_the_project_architectures_next_to_mmidc_ones():
    open_clip_models.register_model_configs()  # again: idempotent
    known = open_clip.list_models()
    assert 'mmidc-tiny-clip' in known
    assert set(open_clip_models.PROJECT_MODELS) <= set(known)
    assert len(known) == len(set(known))
    assert open_clip.get_model_config(
        'mmidc-tiny-clip-p8')['vision_cfg']['patch_size'] == 8


def test_the_files_are_the_named_architectures_and_not_mmidc_ones():
    files = sorted(os.listdir(open_clip_models.MODEL_CONFIG_DIR))
    assert files == sorted(f'{name}.json'
                           for name in open_clip_models.PROJECT_MODELS)
    assert not set(files) & set(os.listdir(MMIDC_DIR))
    # the 8 px model is mmidc's tiny CLIP but for its patches
    with open(os.path.join(MMIDC_DIR, 'mmidc-tiny-clip.json')) as f:
        tiny = json.load(f)
    with open(os.path.join(open_clip_models.MODEL_CONFIG_DIR,
                           'mmidc-tiny-clip-p8.json')) as f:
        p8 = json.load(f)
    tiny['vision_cfg']['patch_size'] = 8
    assert p8 == tiny
