"""Does a pair encoder learn to see the change? A change-type probe.

Trains a config's ``model.backbone`` (from its own initialisation) with a
linear classifier on the mean (``--readout max``: the channel-wise max) of
its output tokens to predict each pair's
``change_type`` (color / material / add / drop / move / none), for a fixed
number of steps, then reports the val accuracy per type. A backbone whose
loss stays at the class prior (about 1.50 on CLEVR-Change-style data, half
of the pairs being no-change) cannot tell the images apart; captioning on
top of it will only learn the caption language. Runs in a few minutes on
CPU with the tiny configs::

    python tools/analysis_tools/change_type_probe.py \
        projects/from_scratch/configs/clip4idc-caption_tiny_synthetic-clevr-change.py \
        --steps 300 --cfg-options model.backbone.num_inter_layers=2

Needs a data set with ``change_type`` (CLEVR-Change layout, synthetic set).

``--target color`` (or ``shape``, ``size``, ``material``) asks instead for an
attribute of the changed object (change pairs only; before image, after image
for an added object), read from the scene graphs ``scenes/*.json`` that the
synthetic generator writes: can the encoder name *what* changed, not only
*that* something did? The readout matters there: one small object's colour is
diluted in the mean of all tokens and stands out in their max.
"""
import argparse
import copy
import json
import os.path as osp
import sys
import time

import torch
import torch.nn.functional as F
from mmengine.config import Config
from mmengine.dataset import pseudo_collate
from mmengine.registry import init_default_scope
from torch import nn

import mmidc  # noqa: F401  (registers the components)
from mmidc.synthetic.caption_checker import scene_graph_file
from mmidc.synthetic.captions import ATTRIBUTES
from mmidc.synthetic.properties import \
    CHANGE_TYPES as SYNTHETIC_CHANGE_TYPES
from mmidc.models.necks import PairPooling
from mmidc.registry import DATASETS, MODELS
from mmidc.runtime.cfg_options import CfgOptionsAction
from mmidc.cli import working_dir_on_path

# the synthetic set's change types (sorted) and no-change pairs' 'none'
CHANGE_TYPES = tuple(sorted(SYNTHETIC_CHANGE_TYPES)) + ('none', )
READOUTS = ('mean', 'max')


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description='Change-type probe')
    parser.add_argument('config', help='a config with model.backbone and a '
                        'train/val data set that has change types')
    parser.add_argument('--target', default='change_type',
                        choices=('change_type', ) + ATTRIBUTES,
                        help='what to predict: the change type, or an '
                        'attribute of the changed object (needs the '
                        'synthetic set\'s scenes/*.json)')
    parser.add_argument('--readout', default='mean', choices=READOUTS,
                        help='how the classifier pools the output tokens')
    parser.add_argument('--steps', type=int, default=300)
    parser.add_argument('--batch-size', type=int, default=32)
    parser.add_argument('--lr', type=float, default=2e-3)
    parser.add_argument('--threads', type=int, default=None,
                        help='torch threads (default: torch\'s)')
    parser.add_argument('--seed', type=int, default=0)
    parser.add_argument('--cfg-options', nargs='+', action=CfgOptionsAction,
                        help='override config keys (key=value)')
    return parser.parse_args(argv)


def changed_object_attribute(data_root, img1_path, attribute):
    """``attribute`` of the object a synthetic scene's change is about."""
    path = scene_graph_file(data_root, img1_path)
    if not osp.isfile(path):
        raise FileNotFoundError(
            f'{path}: missing; --target {attribute} reads the scene graphs '
            f'that the synthetic generator writes (scenes/*.json)')
    with open(path) as f:
        scene = json.load(f)
    change = scene['change']
    view = 'semantic' if change['type'] == 'add' else 'default'
    for obj in scene['images'][view]['objects']:
        if obj['id'] == change['object_id']:
            return obj[attribute]
    raise KeyError(f'{path}: no object {change["object_id"]} in {view!r}')


def load_split(cfg, name, target='change_type'):
    """A split's pairs as ``uint8 [N, 2, 3, H, W]``, label ids, class names.

    ``target='change_type'``: every pair, labelled with its change type.
    An attribute: the change pairs, labelled with that attribute of the
    changed object.
    """
    dataset_cfg = copy.deepcopy(cfg[f'{name}_dataloader'].dataset)
    if 'pipeline' in dataset_cfg:  # images only: no caption is drawn
        dataset_cfg['pipeline'] = [
            t for t in dataset_cfg['pipeline'] if str(t['type']).split('.')[-1]
            not in ('TokenizeCaptions', 'SampleHardNegatives')]
    dataset = DATASETS.build(dataset_cfg)
    infos = [dataset.get_data_info(i) for i in range(len(dataset))]
    kinds = [info.get('change_type') for info in infos]
    unknown = sorted(set(map(str, kinds)) - set(CHANGE_TYPES))
    if unknown:
        raise ValueError(f'{cfg.filename}: {name} split has change types '
                         f'{unknown}; the probe needs {CHANGE_TYPES}')
    if target == 'change_type':
        keep, names, classes = range(len(infos)), kinds, CHANGE_TYPES
    else:
        keep = [i for i, k in enumerate(kinds) if k != 'none']
        names = [changed_object_attribute(dataset.data_root,
                                          infos[i]['img1_path'], target)
                 for i in keep]
        classes = tuple(sorted(set(names)))
    batch = pseudo_collate([dataset[i] for i in keep])
    labels = torch.tensor([classes.index(k) for k in names])
    return torch.stack(batch['inputs']), labels, classes


def main(argv=None):
    args = parse_args(argv)
    working_dir_on_path()  # a project's config (projects.<name>) from a clone's root
    cfg = Config.fromfile(args.config)
    if args.cfg_options:
        cfg.merge_from_dict(args.cfg_options)
    from mmidc.runtime.data_root import resolve_paths
    resolve_paths(cfg, args.config, args.cfg_options)  # '{data_root}/...'
    if not cfg.model.get('backbone'):
        raise SystemExit(
            f'{args.config}: model ({cfg.model.get("type")}) has no backbone '
            'to probe: give a CLIP4IDC config (its pair encoder, e.g. '
            'projects/from_scratch/configs/clip4idc-caption_tiny_synthetic-'
            'clevr-change.py)')
    for name in ('train', 'val'):
        if not cfg.get(f'{name}_dataloader'):
            raise SystemExit(f'{args.config}: no {name}_dataloader (the probe '
                             'trains on train and reports on val)')
    init_default_scope('mmidc')
    if args.threads:
        torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)

    train_x, train_y, classes = load_split(cfg, 'train', args.target)
    val_x, val_y, val_classes = load_split(cfg, 'val', args.target)
    if classes != val_classes:  # attribute values seen in either split
        union = tuple(sorted(set(classes) | set(val_classes)))
        train_y = torch.tensor([union.index(classes[i]) for i in train_y])
        val_y = torch.tensor([union.index(val_classes[i]) for i in val_y])
        classes = union
    print(f'{args.target}: train {len(train_y)} pairs, val {len(val_y)} '
          f'pairs, classes {classes}', flush=True)
    preprocess = MODELS.build(dict(type='IDCDataPreprocessor'))
    backbone = MODELS.build(cfg.model.backbone)
    readout = PairPooling(backbone.segments, mode=args.readout)
    classifier = nn.Linear(backbone.output_dim, len(classes))
    params = [*backbone.parameters(), *classifier.parameters()]
    optimizer = torch.optim.AdamW(params, lr=args.lr, weight_decay=0.05)

    def logits_of(pairs, training):
        x = preprocess({'inputs': pairs}, training)['inputs']  # [B,2,3,H,W]
        tokens = backbone(x[:, 0], x[:, 1])  # [B, S(n+1), D]
        return classifier(readout(tokens))  # [B, classes]

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
    per_class = {k: round((pred[val_y == i] == i).float().mean().item(), 3)
                 for i, k in enumerate(classes) if (val_y == i).any()}
    accuracy = (pred == val_y).float().mean().item()
    majority = (val_y == train_y.mode().values).float().mean().item()
    print(f'val accuracy {accuracy:.3f} (majority class {majority:.3f}); '
          f'per class {per_class}')
    return dict(final_loss=smooth, val_accuracy=accuracy, per_type=per_class,
                majority_accuracy=majority,
                segments=backbone.segments,
                num_inter_layers=backbone.num_inter_layers)


if __name__ == '__main__':
    main()
    sys.exit(0)
