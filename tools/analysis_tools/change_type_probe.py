"""Does a pair encoder learn to see the change? A change-type probe.

Trains a config's ``model.backbone`` (from its own initialisation) with a
linear classifier on the mean of its output tokens to predict each pair's
``change_type`` (color / material / add / drop / move / none), for a fixed
number of steps, then reports the val accuracy per type. A backbone whose
loss stays at the class prior (about 1.50 on CLEVR-Change-style data, half
of the pairs being no-change) cannot tell the images apart; captioning on
top of it will only learn the caption language. Runs in a few minutes on
CPU with the tiny configs::

    python tools/analysis_tools/change_type_probe.py \
        configs/clip4idc/clip4idc-caption_tiny_synthetic-clevr-change.py \
        --steps 300 --cfg-options model.backbone.difference_tokens=False

Needs a data set with ``change_type`` (CLEVR-Change layout, synthetic set).
"""
import argparse
import sys
import time

import torch
import torch.nn.functional as F
from mmengine.config import Config, DictAction
from mmengine.dataset import pseudo_collate
from mmengine.registry import init_default_scope
from torch import nn

import mmidc  # noqa: F401  (registers the components)
from mmidc.registry import DATASETS, MODELS

CHANGE_TYPES = ('add', 'color', 'drop', 'material', 'move', 'none')


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description='Change-type probe')
    parser.add_argument('config', help='a config with model.backbone and a '
                        'train/val data set that has change types')
    parser.add_argument('--steps', type=int, default=300)
    parser.add_argument('--batch-size', type=int, default=32)
    parser.add_argument('--lr', type=float, default=2e-3)
    parser.add_argument('--threads', type=int, default=None,
                        help='torch threads (default: torch\'s)')
    parser.add_argument('--seed', type=int, default=0)
    parser.add_argument('--cfg-options', nargs='+', action=DictAction,
                        help='override config keys (key=value)')
    return parser.parse_args(argv)


def load_split(cfg, name):
    """All pairs of a split as ``uint8 [N, 2, 3, H, W]`` and type ids."""
    dataset = DATASETS.build(cfg[f'{name}_dataloader'].dataset)
    samples = [dataset[i] for i in range(len(dataset))]
    batch = pseudo_collate(samples)
    kinds = [s.change_type for s in batch['data_samples']]
    unknown = sorted(set(kinds) - set(CHANGE_TYPES))
    if unknown:
        raise ValueError(f'{cfg.filename}: {name} split has change types '
                         f'{unknown}; the probe needs {CHANGE_TYPES}')
    labels = torch.tensor([CHANGE_TYPES.index(k) for k in kinds])
    return torch.stack(batch['inputs']), labels


def main(argv=None):
    args = parse_args(argv)
    cfg = Config.fromfile(args.config)
    if args.cfg_options:
        cfg.merge_from_dict(args.cfg_options)
    init_default_scope('mmidc')
    if args.threads:
        torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)

    train_x, train_y = load_split(cfg, 'train')
    val_x, val_y = load_split(cfg, 'val')
    print(f'train {len(train_y)} pairs, val {len(val_y)} pairs', flush=True)
    preprocess = MODELS.build(dict(type='IDCDataPreprocessor'))
    backbone = MODELS.build(cfg.model.backbone)
    classifier = nn.Linear(backbone.output_dim, len(CHANGE_TYPES))
    params = [*backbone.parameters(), *classifier.parameters()]
    optimizer = torch.optim.AdamW(params, lr=args.lr, weight_decay=0.05)

    def logits_of(pairs, training):
        x = preprocess({'inputs': pairs}, training)['inputs']  # [B,2,3,H,W]
        tokens = backbone(x[:, 0], x[:, 1])  # [B, S(n+1), D]
        return classifier(tokens.mean(1))  # [B, 6]

    start, smooth = time.perf_counter(), None
    backbone.train()
    for step in range(1, args.steps + 1):
        idx = torch.randint(0, len(train_y), (args.batch_size, ))
        loss = F.cross_entropy(logits_of(train_x[idx], True), train_y[idx])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        smooth = loss.item() if smooth is None else \
            0.95 * smooth + 0.05 * loss.item()
        if step % 50 == 0 or step == args.steps:
            print(f'step {step}/{args.steps}  loss (smoothed) {smooth:.3f}  '
                  f'{time.perf_counter() - start:.0f} s', flush=True)

    backbone.eval()
    with torch.no_grad():
        pred = torch.cat([logits_of(val_x[i:i + 128], False).argmax(1)
                          for i in range(0, len(val_y), 128)])
    per_type = {k: round((pred[val_y == i] == i).float().mean().item(), 3)
                for i, k in enumerate(CHANGE_TYPES) if (val_y == i).any()}
    accuracy = (pred == val_y).float().mean().item()
    print(f'val accuracy {accuracy:.3f}; per type {per_type}')
    return dict(final_loss=smooth, val_accuracy=accuracy, per_type=per_type,
                num_segments=backbone.num_segments)


if __name__ == '__main__':
    main()
    sys.exit(0)
