"""The CLEVR-Change paper configs train with the published CLIP4IDC code's
recipe: a few iterations of each stage on the synthetic set, with a tiny
open_clip arch instead of ViT-B/32 and no CLIP file, everything else of the
config kept (optimizer, schedule, freezing, augmentation, sampler, hooks)."""
import math
import os.path as osp
from pathlib import Path

import pytest
import torch
from mmengine.config import Config
from mmengine.hooks import Hook
from mmengine.runner import Runner

import mmidc  # noqa: F401  (registers every component)
from mmidc.datasets.image_pair_dataset import load_json
from mmidc.synthetic import generate_dataset
from mmidc.engine import BertAdam, bert_warmup_factor
from mmidc.runtime.config_check import check_config
from mmidc.runtime.data_root import apply_data_root

CONFIGS = Path(__file__).parents[2] / 'configs' / 'clip4idc'
LN100 = math.log(100)
EPOCHS = 2  # captioning; adaptation: 1 (an epoch is one visit a caption)


@pytest.fixture(scope='module')
def synthetic_root(tmp_path_factory):
    """10 scenes: 8 train (16 pairs with the no-change ones)."""
    root = str(tmp_path_factory.mktemp('synthetic'))
    generate_dataset(root, 10, seed=3, image_size=(64, 48), progress=False)
    return root


class Recorder(Hook):
    """Each iteration's pairs and the learning rate of two parameters."""

    def __init__(self, params):
        self.params, self.batches, self.lrs = params, [], []

    def before_train_iter(self, runner, batch_idx, data_batch=None):
        self.batches.append([(ds.pair_id, ds.change_type, ds.img1_path)
                             for ds in data_batch['data_samples']])
        groups = runner.optim_wrapper.optimizer.param_groups
        lr_of = {id(g['params'][0]): g['lr'] for g in groups}
        self.lrs.append([lr_of[id(p)] for p in self.params])


def tiny(config: str, root: str, work_dir: str, tiny_arch: dict,
         batch_size: int, epochs: int) -> Config:
    """The paper config with the tiny arch (and a small caption head), the
    synthetic data, no CLIP file, no validation and no checkpoints (cfg
    options, as on the command line)."""
    cfg = Config.fromfile(str(CONFIGS / config))
    apply_data_root(cfg, str(CONFIGS / config))  # as tools/train.py
    arch = dict(tiny_arch, _delete_=True)  # a dict replacing a model name
    options = {
        'model.backbone.arch': arch, 'model.backbone.img_size': 32,
        'train_dataloader.batch_size': batch_size,
        'train_dataloader.num_workers': 0,
        'train_dataloader.persistent_workers': False,
        'train_dataloader.dataset.data_root': root,
        'train_cfg.max_epochs': epochs,
        'default_hooks.logger.interval': 1,
        'default_hooks.checkpoint': None,
        'val_dataloader': None, 'val_cfg': None, 'val_evaluator': None,
        'test_dataloader': None, 'test_cfg': None, 'test_evaluator': None,
        'work_dir': work_dir,
    }
    if cfg.model.type == 'CLIP4IDCRetriever':
        options.update({'model.pretrained': None,
                        'model.text_encoder.arch': dict(arch)})
    else:
        options.update({'model.init_backbone_from': None,
                        'model.head.pretrained': None,
                        'model.head.hidden': 64, 'model.head.num_heads': 2,
                        'model.head.num_encoder_layers': 1,
                        'model.head.num_decoder_layers': 1})
    pipeline = cfg.train_dataloader.dataset.pipeline
    resize = [t['type'] for t in pipeline].index('ResizePair')
    options[f'train_dataloader.dataset.pipeline.{resize}.size'] = (32, 32)
    cfg.merge_from_dict(options)
    check_config(cfg)
    return cfg


def frozen_names(model) -> set:
    return {n for n, p in model.named_parameters() if not p.requires_grad}


VISION_STEM = {'backbone.conv1.weight', 'backbone.class_embedding',
               'backbone.positional_embedding', 'backbone.ln_pre.weight',
               'backbone.ln_pre.bias'}


def check_schedule(lrs, base, schedule):
    total = len(lrs)
    for k, lr in enumerate(lrs):
        factor = bert_warmup_factor(k / total, 0.1, schedule)
        assert lr == pytest.approx([b * factor for b in base]), k


def check_optimizer(runner, betas, decay_of):
    """BertAdam with ``betas`` after a global clip to 1.0, and
    ``decay_of(name, param)`` as each trainable parameter's weight decay."""
    wrapper = runner.optim_wrapper
    assert isinstance(wrapper.optimizer, BertAdam)
    assert wrapper.optimizer.defaults['betas'] == betas
    assert wrapper.clip_grad_kwargs['max_norm'] == 1.0
    groups = {id(g['params'][0]): g for g in wrapper.optimizer.param_groups}
    for name, p in runner.model.named_parameters():
        if p.requires_grad:
            assert groups[id(p)]['weight_decay'] == decay_of(name, p), name


def test_adaptation_recipe(synthetic_root, tmp_path, tiny_arch):
    cfg = tiny('clip4idc-adapt_vit-b32_clevr-change.py', synthetic_root,
               str(tmp_path), tiny_arch, batch_size=4, epochs=1)
    runner = Runner.from_cfg(cfg)
    model = runner.model
    # --freeze_layer_num 0: exactly these tensors
    assert frozen_names(model) == VISION_STEM | {
        'text_encoder.token_embedding.weight',
        'text_encoder.positional_embedding'}
    head = model.head
    assert type(head.loss_module).__name__ == 'MultiPositiveInfoNCELoss'
    assert head.loss_module.two_way_reduction == 'mean'
    with torch.no_grad():  # OpenAI's value: ln 100 rounded up in fp16
        head.logit_scale.fill_(4.60546875)
    before = {n: p.detach().clone() for n, p in model.named_parameters()}
    recorder = Recorder([model.backbone.transformer.resblocks[0].ln_1.weight,
                         model.backbone.image_id_embedding])
    runner.register_hook(recorder)
    runner.train()

    # decay on all but biases, LayerNorm weights included
    check_optimizer(runner, (0.9, 0.98),
                    lambda name, p: 0.0 if 'bias' in name else 0.2)
    # one epoch: every train pair once per caption, batch 4, the last
    # incomplete batch dropped; lr 1e-7 for CLIP, 1e-4 for the new ones
    captions = load_json(osp.join(synthetic_root, 'change_captions.json'))
    splits = load_json(osp.join(synthetic_root, 'splits.json'))
    visits = sum(len(captions[f'CLEVR_default_{s:06d}.png'])
                 for s in splits['train'])
    assert len(recorder.lrs) == visits // 4
    check_schedule(recorder.lrs, [1e-7, 1e-4], 'warmup_cosine')
    pairs = [p for batch in recorder.batches for p in batch]
    assert len(pairs) > len(set(p[0] for p in pairs))  # pairs come again
    assert all(change_type != 'none' for _, change_type, _ in pairs)
    befores = {osp.basename(osp.dirname(path)) for _, _, path in pairs}
    assert befores == {'images', 'nsc_images'}  # the distractor swap ran
    # clamped after every step (to ln 100 in float32), by the hook: the
    # forward pass used it unclamped
    assert head.clamped_after_step
    assert head.logit_scale.item() <= torch.tensor(LN100).item()
    for name, p in model.named_parameters():
        moved = not torch.equal(p.detach(), before[name])
        assert moved == p.requires_grad or name == 'head.logit_scale', name


def test_captioning_recipe(synthetic_root, tmp_path, tiny_arch):
    cfg = tiny('clip4idc-caption_vit-b32_clevr-change.py', synthetic_root,
               str(tmp_path), tiny_arch, batch_size=4, epochs=EPOCHS)
    runner = Runner.from_cfg(cfg)
    model = runner.model
    # the published decoder's tied CLIP word embeddings are frozen too
    assert type(model.head).__name__ == 'TransformerCaptionHead'
    assert frozen_names(model) == VISION_STEM | {'head.word_embed.weight',
                                                 'head.word_pos'}
    before = {n: p.detach().clone() for n, p in model.named_parameters()}
    norm = next(m for m in model.head.modules()
                if isinstance(m, torch.nn.LayerNorm))
    recorder = Recorder([model.backbone.image_id_embedding, norm.weight])
    runner.register_hook(recorder)
    runner.train()

    head_norms = {id(p) for m in model.head.modules()
                  if isinstance(m, torch.nn.LayerNorm) for p in m.parameters()}
    check_optimizer(runner, (0.9, 0.999), lambda name, p: (
        0.0 if 'bias' in name or id(p) in head_norms else 0.01))
    # 16 pairs = 8 scenes, 2 scenes a batch; every encoder parameter 1e-7
    assert len(recorder.lrs) == 4 * EPOCHS
    check_schedule(recorder.lrs, [1e-7, 1e-4], 'warmup_linear')
    assert type(model.head.loss_module).__name__ == \
        'PairedSceneCrossEntropyLoss'
    for batch in recorder.batches:  # 1:1 change / no-change, whole scenes
        scenes = sorted(pair_id[:6] for pair_id, _, _ in batch)
        assert scenes[0::2] == scenes[1::2]
        # the order the paired-scene loss reads: change, no-change, ...
        no_change = [change_type == 'none' for _, change_type, _ in batch]
        assert no_change == [False, True] * 2
    for name, p in model.named_parameters():  # the frozen ones only
        assert torch.equal(p.detach(), before[name]) != p.requires_grad, name
