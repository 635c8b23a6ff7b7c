"""Write the grid features of every image of a config's data sets, computed
by the config's (frozen) image backbone, for ``LoadPairFeatures``.

    python tools/dataset_converters/extract_pair_features.py CONFIG \
        --cache-dir data/clevr_change/features_resnet101_224 [--device cuda]

CONFIG is an IDC-PCL config whose ``model.feature_encoder`` has a backbone
(e.g. configs/idc_pcl/idc-pcl-caption_resnet101_clevr-change.py); its
weights come from the backbone's ``init_cfg`` (or ``--checkpoint``, an
IDC-PCL checkpoint). Images are loaded and resized by the test pipeline's
image steps and normalised by the model's data preprocessor, exactly as in
training. One shard per data set of ``train_dataloader``,
``val_dataloader`` and ``test_dataloader``; then point a config at the
folder (``configs/idc_pcl/idc-pcl-*_resnet101-features_clevr-change.py``).
"""
import argparse
import copy
import os.path as osp
import sys
import time

import numpy as np
import torch
from mmcv.transforms import Compose
from mmengine.config import Config
from mmengine.registry import init_default_scope
from mmengine.utils import ProgressBar

import mmidc  # noqa: F401  (registers every component)
from mmidc.datasets import write_feature_shard
from mmidc.registry import DATASETS, MODELS, TRANSFORMS
from mmidc.runtime.cfg_options import CfgOptionsAction
from mmidc.runtime.data_root import apply_data_root
from mmidc.cli import working_dir_on_path

DATALOADERS = ('train_dataloader', 'val_dataloader', 'test_dataloader')
IMAGE_STEPS = ('LoadImagePair', 'ResizePair')


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('config')
    parser.add_argument('--cache-dir', required=True, help='output folder')
    parser.add_argument('--checkpoint', help='IDC-PCL checkpoint whose '
                        'feature_encoder weights to use (default: the '
                        "backbone's init_cfg)")
    parser.add_argument('--device', default='cuda' if torch.cuda.is_available()
                        else 'cpu')
    parser.add_argument('--batch-size', type=int, default=32,
                        help='images per forward pass')
    parser.add_argument('--cfg-options', nargs='+', action=CfgOptionsAction)
    return parser.parse_args(argv)


def image_pipeline(dataset_cfg, where: str = 'the data set'):
    """The loading and resizing steps of a data set's pipeline (``where``
    names the data set in the error)."""
    steps = [t for t in dataset_cfg.get('pipeline', [])
             if str(t['type']).split('.')[-1] in IMAGE_STEPS]
    if [str(t['type']).split('.')[-1] for t in steps] != list(IMAGE_STEPS):
        raise ValueError(
            f'{where} ({dataset_cfg.get("type")}) has no LoadImagePair and '
            f'ResizePair in its pipeline to extract features with, got '
            f'{steps} (a ConcatDataset: write a config of each part)')
    return Compose([TRANSFORMS.build(t) for t in steps])


def build_encoder(cfg, checkpoint, device):
    model_cfg = cfg.model
    if not model_cfg.get('feature_encoder'):
        raise SystemExit(
            f'{cfg.filename}: model ({model_cfg.get("type")}) has no '
            'feature_encoder to compute features with: give an IDC-PCL config '
            '(e.g. configs/idc_pcl/idc-pcl-caption_resnet101_clevr-change.py)')
    encoder = MODELS.build(copy.deepcopy(model_cfg.feature_encoder))
    if encoder.backbone is None:
        raise ValueError(f'{cfg.filename}: model.feature_encoder has no '
                         'backbone to compute features with')
    preprocessor = MODELS.build(copy.deepcopy(
        model_cfg.get('data_preprocessor') or dict(type='IDCDataPreprocessor')))
    if checkpoint:
        from mmidc.apis.model_loading import read_checkpoint
        state, _ = read_checkpoint(checkpoint)
        prefix = 'feature_encoder.'
        encoder.load_state_dict({k[len(prefix):]: v for k, v in state.items()
                                 if k.startswith(prefix)})
    else:
        encoder.init_weights()
    return encoder.to(device).eval(), preprocessor.to(device)


@torch.no_grad()
def extract(paths, pipeline, encoder, preprocessor, batch_size, device):
    """``[N, h, w, C]`` float16 features of ``paths``."""
    out = []
    bar = ProgressBar(len(paths))
    for start in range(0, len(paths), batch_size):
        chunk = paths[start:start + batch_size]
        images = [pipeline(dict(img1_path=p, img2_path=p))['img1'] for p in chunk]
        padded = images + images[-1:] * (len(images) % 2)  # whole pairs
        pairs = torch.from_numpy(np.stack(padded)).permute(0, 3, 1, 2)  # [n, 3, H, W]
        pairs = pairs.reshape(-1, 2, *pairs.shape[1:])  # [n/2, 2, 3, H, W]
        inputs = preprocessor(dict(inputs=pairs.to(device)))['inputs']
        maps = encoder.backbone(inputs.flatten(0, 1))  # [n, 3, H, W] in
        if isinstance(maps, (tuple, list)):
            maps = maps[encoder.out_index]
        if maps.ndim == 3:  # tokens [n, N, C] -> [n, 1, N, C]
            maps = maps[:, None]
        else:  # [n, C, h, w] -> [n, h, w, C]
            maps = maps.permute(0, 2, 3, 1)
        out.append(maps[:len(chunk)].half().cpu().numpy())
        bar.update(len(chunk))
    bar.file.write('\n')
    return np.concatenate(out)


def main(argv=None):
    args = parse_args(argv)
    working_dir_on_path()  # a project's config (projects.<name>) from a clone's root
    cfg = Config.fromfile(args.config)
    if args.cfg_options:
        cfg.merge_from_dict(args.cfg_options)
    apply_data_root(cfg, cfg_options=args.cfg_options)
    init_default_scope(cfg.get('default_scope', 'mmidc'))
    encoder, preprocessor = build_encoder(cfg, args.checkpoint, args.device)
    source = (f'{args.config} feature_encoder'
              + (f' from {args.checkpoint}' if args.checkpoint else ''))
    for key in DATALOADERS:
        loader = cfg.get(key)
        if not loader:
            continue
        dataset_cfg = copy.deepcopy(loader['dataset'])
        while 'dataset' in dataset_cfg:  # wrappers
            dataset_cfg = dataset_cfg['dataset']
        pipeline = image_pipeline(dataset_cfg, f'{args.config}: {key}.dataset')
        dataset_cfg.update(pipeline=[], lazy_init=False)
        dataset = DATASETS.build(dataset_cfg)
        paths = list(dict.fromkeys(
            dataset.get_data_info(i)[k] for i in range(len(dataset))
            for k in ('img1_path', 'img2_path')))
        shard = f'{dataset_cfg["type"]}_{dataset_cfg.get("split", key.split("_")[0])}'
        start = time.time()
        features = extract(paths, pipeline, encoder, preprocessor,
                           args.batch_size, args.device)
        index = write_feature_shard(args.cache_dir, shard, dataset.data_root,
                                    paths, features, source)
        print(f'{shard}: {len(paths)} images, features {features.shape[1:]} in '
              f'{time.time() - start:.1f} s -> {index}')
    print(f'use: dict(type="LoadPairFeatures", cache_dir="{args.cache_dir}")')
    return 0


if __name__ == '__main__':
    sys.exit(main())
