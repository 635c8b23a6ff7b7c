"""The miniature paper configs (clip4idc-{adapt,caption}_tiny-clip_... and
the ablation's no-adaptation and CLIP-FT variants): they inherit the paper
configs, load the tiny CLIP, and a two-step run of each changes the trainable
tensors and leaves the frozen ones unchanged."""
from pathlib import Path

import pytest
import torch
from mmengine.config import Config
from mmengine.runner import Runner

import mmidc  # noqa: F401  (registers every component)
from mmidc.synthetic import generate_dataset
from mmidc.runtime.config_check import check_config
from tests.helpers.tiny_models import write_tiny_clip

CONFIGS = Path(__file__).parents[2] / 'configs' / 'clip4idc'
ADAPT = 'clip4idc-adapt_tiny-clip_synthetic-clevr-change.py'
CAPTION = 'clip4idc-caption_tiny-clip_synthetic-clevr-change.py'
NOADAPT = 'clip4idc-noadapt-caption_tiny-clip_synthetic-clevr-change.py'
CLIPFT = '../clip_ft/clip-ft-caption_tiny-clip_synthetic-clevr-change.py'


@pytest.fixture(scope='module')
def synthetic_root(tmp_path_factory):
    """4 scenes: 2 train scenes (4 pairs with the no-change ones)."""
    root = str(tmp_path_factory.mktemp('synthetic'))
    generate_dataset(root, 4, seed=3, image_size=(144, 96),
                     split_fractions=(0.5, 0.25, 0.25), progress=False)
    return root


@pytest.fixture(scope='module')
def tiny_clip(tmp_path_factory):
    """A (random) mmidc-tiny-clip state dict with open_clip's names."""
    return write_tiny_clip(tmp_path_factory.mktemp('clip') / 'tiny.safetensors')


def small(config: str, root: str, work_dir: str, options: dict) -> Config:
    cfg = Config.fromfile(str(CONFIGS / config))
    base = {
        'train_dataloader.batch_size': 4,
        'train_dataloader.num_workers': 0,
        'train_dataloader.persistent_workers': False,
        'train_dataloader.dataset.data_root': root,
        'default_hooks.logger.interval': 1,
        'default_hooks.checkpoint': None,
        'val_dataloader': None, 'val_cfg': None, 'val_evaluator': None,
        'test_dataloader': None, 'test_cfg': None, 'test_evaluator': None,
        'work_dir': work_dir,
    }
    cfg.merge_from_dict(dict(base, **options))
    check_config(cfg)
    return cfg


def test_configs_inherit_the_paper_configs():
    for name, paper in ((ADAPT, 'clip4idc-adapt_vit-b32_clevr-change.py'),
                        (CAPTION,
                         'clip4idc-caption_vit-b32_clevr-change.py')):
        cfg, ref = (Config.fromfile(str(CONFIGS / n)) for n in (name, paper))
        assert cfg.model.type == ref.model.type
        assert cfg.model.backbone.type == ref.model.backbone.type
        assert cfg.model.backbone.arch == 'mmidc-tiny-clip'
        assert cfg.model.backbone.frozen_stages == 0
        assert cfg.model.get('head', {}).get('type') == \
            ref.model.get('head', {}).get('type')
        assert cfg.optim_wrapper.optimizer.type == 'BertAdam'
        assert cfg.param_scheduler == ref.param_scheduler
        assert cfg.train_dataloader.sampler == ref.train_dataloader.sampler
        assert [h['type'] for h in cfg.custom_hooks] == \
            [h['type'] for h in ref.custom_hooks]
        check_config(cfg)


def _run_and_check(runner):
    model = runner.model
    before = {n: p.detach().clone() for n, p in model.named_parameters()}
    frozen = {n for n, p in model.named_parameters() if not p.requires_grad}
    runner.train()
    for name, p in model.named_parameters():
        moved = not torch.equal(p.detach(), before[name])
        assert moved == p.requires_grad or name == 'head.logit_scale', name
    return frozen


def test_adaptation_two_steps(synthetic_root, tiny_clip, tmp_path):
    cfg = small(ADAPT, synthetic_root, str(tmp_path),
                {'model.pretrained': tiny_clip, 'train_cfg.max_epochs': 1})
    runner = Runner.from_cfg(cfg)
    from safetensors.torch import load_file
    weights = load_file(tiny_clip)
    assert torch.equal(runner.model.backbone.conv1.weight,
                       weights['visual.conv1.weight'])
    frozen = _run_and_check(runner)
    assert runner.iter >= 2
    assert {'backbone.conv1.weight', 'text_encoder.token_embedding.weight'} \
        <= frozen


def _caption_two_steps(config, root, clip, work_dir, check_loaded):
    """Two steps of a captioning config from the tiny CLIP file: the
    loaded weights checked, then every trainable tensor moved and no frozen
    one; returns the runner."""
    cfg = small(config, root, work_dir, {
        'model.init_backbone_from': None,
        'model.backbone.pretrained': clip,
        'model.head.pretrained': clip, 'train_cfg.max_epochs': 2})
    runner = Runner.from_cfg(cfg)
    from safetensors.torch import load_file
    check_loaded(runner.model, load_file(clip))
    frozen = _run_and_check(runner)
    assert runner.iter == 2
    assert {'head.word_embed.weight', 'backbone.conv1.weight'} <= frozen
    return runner


def test_captioning_two_steps(synthetic_root, tiny_clip, tmp_path):
    def loaded(model, weights):
        assert torch.equal(model.head.word_embed.weight,
                           weights['token_embedding.weight'])

    _caption_two_steps(CAPTION, synthetic_root, tiny_clip, str(tmp_path),
                       loaded)


@pytest.mark.parametrize('config, inter', [(NOADAPT, 1), (CLIPFT, 0)])
def test_ablation_variants_two_steps(config, inter, synthetic_root, tiny_clip,
                                     tmp_path):
    cfg = Config.fromfile(str(CONFIGS / config))
    paper = Config.fromfile(str(CONFIGS / CAPTION))
    # the caption stage's recipe; the encoder from the tiny CLIP file, not
    # an adaptation run
    assert cfg.model.init_backbone_from is None
    assert cfg.model.backbone.pretrained == cfg.model.head.pretrained
    assert cfg.optim_wrapper.optimizer == paper.optim_wrapper.optimizer
    assert cfg.train_dataloader.sampler == paper.train_dataloader.sampler
    assert cfg.model.backbone.num_inter_layers == inter

    def loaded(model, weights):
        assert torch.equal(model.backbone.conv1.weight,
                           weights['visual.conv1.weight'])

    runner = _caption_two_steps(config, synthetic_root, tiny_clip,
                                str(tmp_path), loaded)
    # its own weights at 1e-3 of the captioner's rate, the parameters it
    # lacks (with inter blocks) at the captioner's
    rates = {}
    for group in runner.optim_wrapper.optimizer.param_groups:
        for p in group['params']:
            rates[id(p)] = group['lr']
    model = runner.model
    head_lr = rates[id(next(p for p in model.head.parameters()
                            if p.requires_grad))]
    assert head_lr > 0
    block = model.backbone.transformer.resblocks[0].attn.in_proj_weight
    assert rates[id(block)] == pytest.approx(head_lr * 1e-3)
    if inter:
        assert rates[id(model.backbone.image_id_embedding)] == \
            pytest.approx(head_lr)
