"""mmidc_lab.experiments.run_configs: options, the val-best key, test configs."""
import pytest
from mmengine.config import Config

from mmidc_lab.experiments import ExperimentError
from mmidc_lab.experiments.quickstart import ADAPT_CFG, CAPTION_CFG
from mmidc_lab.experiments.run_configs import (compose_test_config,
                                           model_settings, parse_options,
                                           save_best_key)


def test_options_as_cfg_options_parses_them():
    assert parse_options(['a.b=1', 'c=[1,2]', 'd=truth/total']) == {
        'a.b': 1, 'c': [1, 2], 'd': 'truth/total'}
    with pytest.raises(ExperimentError, match='not KEY=VALUE'):
        parse_options(['a'])


def test_model_settings_drop_the_init_checkpoint(tmp_path):
    path = tmp_path / 'c.py'
    path.write_text("model = dict(type='M', init_backbone_from='x.pth', a=1)\n")
    assert model_settings(str(path)) == dict(type='M', a=1)
    assert model_settings(str(path), ['model.a=2'])['a'] == 2


def test_save_best_key():
    assert save_best_key(ADAPT_CFG) == 'rsum'
    assert save_best_key(CAPTION_CFG, [
        'default_hooks.checkpoint.save_best=truth/total']) == 'truth/total'
    with pytest.raises(ExperimentError, match='must name a metric key'):
        save_best_key(CAPTION_CFG, ['default_hooks.checkpoint.save_best=auto'])


def test_test_config_adds_caption_truth(tmp_path):
    path = tmp_path / 'caption.py'
    path.write_text("model = dict(type='M')\n"
                    "test_dataloader = dict(dataset=dict(data_root='data/x'))\n"
                    "test_evaluator = dict(type='IDCMetric')\n")
    cfg = Config.fromfile(compose_test_config(str(path), [], str(tmp_path)))
    assert cfg.test_evaluator == [
        dict(type='IDCMetric', output_dir=str(tmp_path)),
        dict(type='CaptionTruthMetric', data_root='data/x')]
    cfg = Config.fromfile(compose_test_config(str(path), [], str(tmp_path),
                                              truth=False))
    assert len(cfg.test_evaluator) == 1


def test_a_test_config_on_the_shifted_set_passes_the_data_root_check(tmp_path):
    """The quickstart's stage 7: the captioner's config tested on the shifted
    set's loader; tools/test.py's data_root check must know the shifted
    folder (its *_root setting comes along)."""
    from mmidc_lab.experiments.quickstart import SHIFTED_DATASET_CFG
    from mmidc.runtime.data_root import apply_data_root
    path = compose_test_config(CAPTION_CFG, [], str(tmp_path),
                               dataset_config=SHIFTED_DATASET_CFG)
    cfg = Config.fromfile(path)
    apply_data_root(cfg, path)  # raised: the test loader reads another folder
    assert cfg.test_dataloader.dataset.data_root == cfg.shifted_root != cfg.data_root
