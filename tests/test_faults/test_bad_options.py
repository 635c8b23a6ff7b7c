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


@pytest.mark.parametrize('component, named', [
    ('CLIP4IDCBackbone', 'CLIP4IDCBackbone'),
    ('ContrastiveAdaptationHead', 'ContrastiveAdaptationHead'),
    ('TransformerCaptionHead', 'TransformerCaptionHead'),
    ('ScratchCaptionHead', 'ScratchCaptionHead'),
    # the pre-trainer passes the arguments it does not take to its base
    ('IDCPCLPretrainer', 'IDCPCLBase'),
])
def test_an_unknown_argument_names_the_class_and_the_argument(component,
                                                               named):
    import projects.from_scratch  # noqa: F401  (ScratchCaptionHead)
    from mmidc.registry import MODELS
    with pytest.raises(TypeError) as error:
        MODELS.build({'type': component, 'lossweight': 2.0})
    assert (f"{named}.__init__() got an unexpected keyword argument "
            "'lossweight'") in str(error.value)


def test_an_unknown_argument_in_a_config_stops_the_model_build(config):
    from mmidc.registry import MODELS
    cfg = Config.fromfile(config)
    cfg.merge_from_dict({'model.head.clamp_in_forward': False})
    with pytest.raises(TypeError, match=r"ContrastiveAdaptationHead\.__init__"
                       r"\(\) got an unexpected keyword argument "
                       r"'clamp_in_forward'"):
        MODELS.build(cfg.model)


@pytest.mark.parametrize('value', ['mmidc', 'published', None])
def test_an_initializer_given_by_name_names_the_argument(value):
    from mmidc.registry import MODELS
    with pytest.raises(TypeError, match=r"CLIP4IDCBackbone\(new_param_init="
                       + repr(value).replace('(', r'\(') +
                       r"\): give an initializer's config, e\.g\. "
                       r"dict\(type='TiledPositionInit'\)"):
        MODELS.build(dict(type='CLIP4IDCBackbone', new_param_init=value))
