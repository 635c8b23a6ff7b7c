"""Bad options are caught before training, naming the option."""
import sys

import pytest
from mmengine.config import Config

import mmidc  # noqa: F401
from mmidc.runtime.config_check import check_config
from tests.helpers import load_tool
from tests.helpers.tiny_run import write_tiny_config


@pytest.fixture(scope='module')
def config(tmp_path_factory):
    return write_tiny_config(str(tmp_path_factory.mktemp('options')),
                             max_epochs=1)


def test_checkpoint_hook_typo_fails_when_the_runner_is_built(config, tmp_path):
    from mmengine.runner import Runner
    cfg = Config.fromfile(config)
    cfg.merge_from_dict({'default_hooks.checkpoint.intervl': 1})
    cfg.work_dir = str(tmp_path)
    with pytest.raises(TypeError, match=r"'intervl'.*did you mean 'interval'"):
        Runner.from_cfg(cfg)


@pytest.mark.parametrize('option, message', [
    ({'optim_wrapper.optimizer.lr': 'abc'},
     r"optim_wrapper.optimizer.lr='abc' is not a number"),
    ({'optim_wrapper.optimizer.betas': (0.9, 'x')},
     r'optim_wrapper.optimizer.betas=.* is not a number pair'),
    ({'train_cfg.max_epochs': -3},
     r'train_cfg.max_epochs=-3 must be a positive integer'),
    ({'train_cfg.max_epochs': 0}, r'train_cfg.max_epochs=0'),
    ({'train_cfg.val_interval': 1.5}, r'train_cfg.val_interval=1.5'),
], ids=['lr', 'betas', 'negative-epochs', 'zero-epochs', 'interval'])
def test_bad_value_fails_check_config(config, option, message):
    cfg = Config.fromfile(config)
    cfg.merge_from_dict(option)
    with pytest.raises(ValueError, match=message):
        check_config(cfg)


@pytest.mark.parametrize('tool', ['tools/train.py', 'tools/test.py'])
@pytest.mark.parametrize('item', ['model.backbone', '=3'])
def test_cfg_option_without_value_is_a_usage_error(tool, item, monkeypatch,
                                                   capsys):
    argv = [tool, 'config.py'] + (['ckpt.pth'] if 'test' in tool else [])
    monkeypatch.setattr(sys, 'argv', argv + ['--cfg-options', item])
    with pytest.raises(SystemExit) as exit_info:
        load_tool(tool).parse_args()
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert f"'{item}' is not KEY=VALUE" in err and '--cfg-options' in err


@pytest.mark.parametrize('tool, argv', [
    ('tools/analysis_tools/validation_cost.py', ['config.py', 'ckpt.pth']),
    ('tools/analysis_tools/change_type_probe.py', ['config.py']),
    ('tools/dataset_converters/extract_pair_features.py',
     ['config.py', '--cache-dir', 'out']),
    ('tools/dataset_converters/build_resized_cache.py', ['config.py']),
    ('tools/dataset_converters/make_hard_negatives.py', ['config.py']),
    ('tools/dataset_converters/build_vocab.py', ['config.py']),
])
def test_every_tool_names_a_cfg_option_without_value(tool, argv, capsys):
    with pytest.raises(SystemExit) as exit_info:
        load_tool(tool).parse_args(argv + ['--cfg-options', 'model.backbone'])
    assert exit_info.value.code == 2
    assert "'model.backbone' is not KEY=VALUE" in capsys.readouterr().err


@pytest.mark.parametrize('component, flag, value, replacement', [
    ('ContrastiveAdaptationHead', 'clamp_in_forward', False,
     "custom_hooks=[dict(type='LogitScaleClampHook')]"),
    ('ContrastiveAdaptationHead', 'multi_positive', True,
     "loss=dict(type='MultiPositiveInfoNCELoss')"),
    ('ContrastiveAdaptationHead', 'multi_positive', False,
     "loss=dict(type='SymmetricInfoNCELoss')"),
    ('ContrastiveAdaptationHead', 'two_way_reduction', 'mean',
     "loss=dict(type='SymmetricInfoNCELoss', two_way_reduction='mean')"),
    ('ContrastiveAdaptationHead', 'loss_weight', 2.0,
     "loss=dict(type='SymmetricInfoNCELoss', loss_weight="),
    ('TransformerCaptionHead', 'loss_reduction', 'paired_scene_sum',
     "loss=dict(type='PairedSceneCrossEntropyLoss')"),
    ('TransformerCaptionHead', 'loss_reduction', 'mean',
     "loss=dict(type='CaptionCrossEntropyLoss')"),
    ('TransformerCaptionHead', 'label_smoothing', 0.1,
     "loss=dict(type='CaptionCrossEntropyLoss', label_smoothing="),
    ('ScratchCaptionHead', 'label_smoothing', 0.1,
     "loss=dict(type='CaptionCrossEntropyLoss', label_smoothing="),
])
def test_a_retired_flag_names_the_component_that_replaces_it(
        component, flag, value, replacement):
    import projects.from_scratch  # noqa: F401  (ScratchCaptionHead)
    from mmidc.registry import MODELS
    with pytest.raises(TypeError) as error:
        MODELS.build({'type': component, flag: value})
    message = str(error.value)
    assert f'{component}: {flag!r} is no longer an argument' in message
    assert replacement in message
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'lossweight'"):
        MODELS.build({'type': component, 'lossweight': value})


@pytest.mark.parametrize('value, initializer', [
    ('mmidc', 'TiledPositionInit'), ('published', 'WidthScaledNormalInit')])
def test_a_retired_initializer_name_names_its_component(value, initializer):
    from mmidc.registry import MODELS
    with pytest.raises(TypeError) as error:
        MODELS.build(dict(type='CLIP4IDCBackbone', new_param_init=value))
    assert (f"CLIP4IDCBackbone: new_param_init={value!r} is no longer accepted; "
            f"use new_param_init=dict(type={initializer!r})") in str(error.value)
