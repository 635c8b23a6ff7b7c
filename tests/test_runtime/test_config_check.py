"""mmidc.runtime.config_check: the image-size and schedule-end checks."""
from pathlib import Path

import pytest
from mmengine.config import Config
from mmengine.logging import MMLogger

import mmidc  # noqa: F401
from mmidc.runtime.config_check import (check_config, check_image_size,
                                        check_schedule_end)

CONFIGS = Path(__file__).parents[2] / 'configs'
FROM_SCRATCH = Path(__file__).parents[2] / 'projects' / 'from_scratch' / 'configs'


def tiny_model_on_own_pairs_base(tmp_path) -> Config:
    """The mistake a user makes: the tiny 96x144 model on the documented
    224x224 own-pairs data base."""
    path = tmp_path / 'tiny_on_224.py'
    path.write_text(
        f"_base_ = [{str(CONFIGS / '_base_/datasets/image_pair.py')!r},\n"
        f"    {str(FROM_SCRATCH / '_base_/models/clip4idc-captioner_tiny.py')!r},\n"
        f"    {str(CONFIGS / '_base_/schedules/tiny_from_scratch.py')!r}]\n")
    return Config.fromfile(str(path))


def test_pipeline_and_backbone_size_mismatch_names_both(tmp_path):
    cfg = tiny_model_on_own_pairs_base(tmp_path)
    with pytest.raises(ValueError) as error:
        check_config(cfg)
    message = str(error.value)
    assert 'train_dataloader.dataset.pipeline[1] (ResizePair)' in message
    assert '(224, 224)' in message and '(96, 144)' in message
    assert 'model.backbone.img_size' in message


def test_backbone_img_size_overrides_the_arch(tmp_path):
    cfg = tiny_model_on_own_pairs_base(tmp_path)
    cfg.model.backbone.img_size = 224
    check_image_size(cfg)  # the backbone is built for the pipeline's size


def test_arch_by_name_is_compared_too():
    cfg = Config.fromfile(
        str(CONFIGS / 'clip4idc/clip4idc-caption_vit-b32_my-pairs.py'))
    check_image_size(cfg)  # ViT-B-32: 224, the base's size
    cfg.val_dataloader.dataset.pipeline[1]['size'] = (96, 144)
    with pytest.raises(ValueError, match=r'val_dataloader.*\(96, 144\).*'
                       r'\(224, 224\)'):
        check_image_size(cfg)


def test_models_without_clip_arch_are_skipped():
    cfg = Config.fromfile(str(
        CONFIGS / 'idc_pcl/idc-pcl-caption_tiny_synthetic-clevr-change.py'))
    check_image_size(cfg)


@pytest.fixture
def warnings_seen(monkeypatch):
    """The messages check_schedule_end logs."""
    seen = []
    logger = MMLogger.get_current_instance()
    original = logger.log

    def log(level, msg, *args, **kwargs):
        seen.append(msg)
        return original(level, msg, *args, **kwargs)
    monkeypatch.setattr(logger, 'log', log)
    return seen


def test_explicit_schedule_end_before_max_epochs_warns(warnings_seen):
    cfg = Config(dict(
        train_cfg=dict(max_epochs=8),
        param_scheduler=[
            dict(type='LinearLR', by_epoch=False, begin=0, end=50),
            dict(type='CosineAnnealingLR', by_epoch=True, begin=0, end=5)]))
    check_schedule_end(cfg)
    assert any('ends at epoch 5' in m and 'max_epochs=8' in m
               and 'final value' in m for m in warnings_seen)


@pytest.mark.parametrize('cosine', [
    dict(type='CosineAnnealingLR', by_epoch=True, begin=0),  # no end
    dict(type='CosineAnnealingLR', by_epoch=True, begin=0, end=8)])
def test_schedule_ending_at_max_epochs_is_quiet(warnings_seen, cosine):
    cfg = Config(dict(train_cfg=dict(max_epochs=8), param_scheduler=[
        dict(type='LinearLR', by_epoch=True, begin=0, end=1), cosine]))
    check_schedule_end(cfg)
    assert not any('param_scheduler' in str(m) for m in warnings_seen)


@pytest.mark.parametrize('name', [
    'clip4idc-caption_tiny_synthetic-clevr-change.py',
    'clip4idc-adapt_tiny_my-pairs.py'])
def test_child_with_more_epochs_is_quiet(tmp_path, warnings_seen, name):
    path = tmp_path / 'longer.py'
    path.write_text(f"_base_ = [{str(FROM_SCRATCH / name)!r}]\n"
                    "train_cfg = dict(max_epochs=20, val_interval=20)\n")
    check_config(Config.fromfile(str(path)))
    assert not any('param_scheduler' in str(m) for m in warnings_seen)


@pytest.mark.parametrize('typo,meant', [('data_rot', 'data_root'),
                                        ('adapt_work_dirs', 'adapt_work_dir'),
                                        ('vocab_files', 'vocab_file')])
def test_misspelt_root_setting_of_a_child_names_it(tmp_path, typo, meant):
    # the child of the documented own-pairs config: a misspelt data_root
    # would leave the base's 'data/my_pairs' in place without a word
    path = tmp_path / 'my_child.py'
    path.write_text(
        f"_base_ = [{str(FROM_SCRATCH / 'clip4idc-caption_tiny_my-pairs.py')!r}]\n"
        f"{typo} = 'data/elsewhere'\n")
    with pytest.raises(KeyError) as error:
        check_config(Config.fromfile(str(path)))
    message = str(error.value)
    assert str(path) in message and f'{typo!r}' in message and f'{meant!r}' in message


def test_a_second_root_or_a_set_root_is_no_typo(tmp_path):
    path = tmp_path / 'my_child.py'
    path.write_text(
        f"_base_ = [{str(FROM_SCRATCH / 'clip4idc-caption_tiny_my-pairs.py')!r}]\n"
        "data_root = 'data/a'\ndata_roots = 'data/b'\ndat_root = 'data/c'\n")
    check_config(Config.fromfile(str(path)))


def test_pytorch_launcher_without_torchrun_names_the_launch_command(
        monkeypatch):
    """``tools/test.py ... --launcher pytorch`` started by python itself,
    not torchrun: an error naming the option and the scripts that start
    the processes, not torch's ``environment variable RANK expected``."""
    from mmidc.runtime.config_check import apply_launch_args
    for name in ('RANK', 'WORLD_SIZE'):
        monkeypatch.delenv(name, raising=False)
    cfg = Config(dict(model=dict(type='x')))
    with pytest.raises(ValueError) as err:
        apply_launch_args(cfg, 'x.py', 'pytorch')
    message = str(err.value)
    assert '--launcher pytorch' in message and 'RANK' in message
    assert 'dist_train.sh' in message and 'dist_test.sh' in message
    assert 'torchrun' in message
