"""mmidc.apis.model_loading: configs from a path, dict or Config; a
checkpoint that does not fit the model is refused, naming what differs."""
import pytest
import torch
from mmengine.config import Config

from mmidc.apis.model_loading import (check_checkpoint_fits, load_config,
                                      load_weights,
                                      prepare_model_cfg_for_checkpoint)


def test_load_config(tmp_path):
    source = dict(model=dict(type='M', width=4))
    cfg = load_config(source, dict(**{'model.width': 8}))
    assert isinstance(cfg, Config) and cfg.model.width == 8
    assert source['model']['width'] == 4  # a copy was changed
    path = tmp_path / 'm.py'
    path.write_text("model = dict(type='M')\n")
    assert load_config(str(path)).model.type == 'M'
    with pytest.raises(FileNotFoundError, match='config file not found'):
        load_config(str(tmp_path / 'missing.py'))
    with pytest.raises(KeyError, match='has no "model"'):
        load_config(dict(train_cfg=None))
    with pytest.raises(TypeError, match='got int'):
        load_config(3)


def _model(width=3):
    return torch.nn.Sequential(torch.nn.Linear(2, width), torch.nn.Linear(width, 1))


def test_a_checkpoint_must_fit_the_model(tmp_path):
    path = str(tmp_path / 'ckpt.pth')
    source = _model()
    torch.save(dict(state_dict=source.state_dict(), meta=dict(epoch=3)), path)
    check_checkpoint_fits(_model(), path)
    model = _model()
    assert load_weights(model, path) == dict(epoch=3)
    assert torch.equal(model[0].weight, source[0].weight)
    with pytest.raises(ValueError, match=r'3 weight\(s\) of another shape .*partial-load'):
        check_checkpoint_fits(_model(width=4), path)
    with pytest.raises(ValueError, match=r'2 weight\(s\) of the model missing '
                       r'.*prefixes: 2.bias \(1\), 2.weight \(1\)'):
        check_checkpoint_fits(torch.nn.Sequential(*_model(), torch.nn.Linear(1, 1)), path)
    check_checkpoint_fits(_model(width=4), path, partial=True)  # only logged


def test_training_inputs_are_dropped_for_a_trained_checkpoint():
    cfg = dict(type='C', init_backbone_from='best_*.pth',
               backbone=dict(pretrained='clip.pt', layers=[dict(pretrained='x')]),
               head=dict(vocab='vocab.json'), other=dict(vocab=None))
    prepare_model_cfg_for_checkpoint(cfg, 'epoch_3.pth')
    assert cfg['init_backbone_from'] is None and cfg['backbone']['pretrained'] is None
    assert cfg['backbone']['layers'][0]['pretrained'] is None
    assert cfg['head']['vocab'] == 'epoch_3.pth' and cfg['other']['vocab'] is None


def test_init_model_names_a_checkpoint_of_another_stage(retriever_files,
                                                        captioner_files):
    # the captioning run's checkpoint given to the adaptation config
    from mmidc.apis.model_loading import init_model
    config, _ = retriever_files
    _, checkpoint = captioner_files
    with pytest.raises(ValueError) as error:
        init_model(config, checkpoint, device='cpu')
    message = str(error.value)
    assert repr(checkpoint) in message and 'does not fit the CLIP4IDCRetriever' in message
    assert 'unexpected weight(s)' in message and 'IDCInferencer' in message
    assert '--partial-load' not in message


@pytest.mark.parametrize('device', ['gpu', 'cuda:x', 'cpu0'])
def test_init_model_names_a_device_that_is_not_one(captioner_files, device):
    """A device string torch cannot parse is refused before the model is
    built, naming the option and the forms it takes (not torch's
    RuntimeError from ``model.to`` after loading)."""
    from mmidc.apis.model_loading import init_model
    with pytest.raises(ValueError,
                       match=f"device='{device}' is not a device.*'cpu'"):
        init_model(*captioner_files, device=device)
