"""projects/from_scratch/tools/mmidc_flags_to_components.py: the name table."""
import torch
from mmengine.config import Config
from mmengine.registry import init_default_scope

from mmidc.registry import MODELS
from tests.helpers import REPO, load_tool

PROJECT = REPO / 'projects' / 'from_scratch'
CAPTIONS = ['the red cube changed to blue', 'there is no change']


def _tool():
    return load_tool('projects/from_scratch/tools/mmidc_flags_to_components.py')


def _model(config):
    init_default_scope('mmidc')
    cfg = Config.fromfile(str(PROJECT / 'configs' / config))
    model = cfg.model.to_dict()
    if 'init_backbone_from' in model:
        model['init_backbone_from'] = None
    if 'vocab' in model.get('head', {}):
        model['head']['vocab'] = CAPTIONS
    return MODELS.build(model)


def _old_layout(state):
    """The state dict as earlier mmidc versions named it (written out
    independently of the tool's table: the old options' attribute names)."""
    old = {}
    for key, value in state.items():
        if key == 'head.extra_embed':
            old['head.pooled_embed'] = value[:3]  # one row per segment
            old['head.change_embed'] = value[3:]  # 2 x 2 change readouts
            continue
        key = (key.replace('backbone.extra_segments.0.aligned.',
                           'backbone.aligned_difference.')
               .replace('neck.change_score.', 'head.change_score.')
               .replace('aux_head.fc.', 'head.word_classifier.')
               .replace('aux_head.prior_scale', 'head.word_prior_scale'))
        old[key] = value
    return old


def test_old_captioner_checkpoint_loads_strictly(tmp_path):
    model = _model('clip4idc-caption_tiny_synthetic-clevr-change.py')
    state = {k: torch.randn_like(v) if v.is_floating_point() else v
             for k, v in model.state_dict().items()}
    old = _old_layout(state)
    assert 'head.word_classifier.weight' in old and 'neck.change_score.bias' not in old
    src, dst = tmp_path / 'old.pth', tmp_path / 'new.pth'
    torch.save(dict(state_dict=old, meta=dict(epoch=5)), src)
    _tool().main([str(src), str(dst)])
    converted = torch.load(dst, weights_only=True)
    assert converted['meta'] == dict(epoch=5)
    model.load_state_dict(converted['state_dict'], strict=True)
    for key, value in model.state_dict().items():
        assert torch.equal(value, state[key]), key


def test_old_retriever_names_convert():
    model = _model('clip4idc-adapt_tiny_synthetic-clevr-change.py')
    state = model.state_dict()
    converted = _tool().convert_state_dict(_old_layout(state))
    assert converted.keys() == state.keys()
