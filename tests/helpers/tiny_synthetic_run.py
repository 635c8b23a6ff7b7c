"""The quickstart's tiny adaptation config, run as it is on a tiny synthetic
set: what the stock-tools and install tests train.

:data:`TINY_CONFIG` is used unchanged; :func:`tiny_overrides` points its
loaders at a generated set of 8 scenes (4 training pairs: 2 iterations of
batch 2) and keeps the run to one epoch.
"""
import os.path as osp
from typing import Dict, List

TINY_CONFIG = ('projects/from_scratch/configs/'
               'clip4idc-adapt_tiny_synthetic-clevr-change.py')


def make_tiny_synthetic(root: str) -> str:
    """Generate the tiny synthetic set (48x32 px) under ``root`` (once)."""
    from mmidc.synthetic import generate_dataset
    if not osp.isfile(osp.join(root, 'splits.json')):
        generate_dataset(root, 8, seed=3, image_size=(48, 32), progress=False,
                         split_fractions=(0.5, 0.25, 0.25))
    return root


def tiny_overrides(data_root: str) -> Dict[str, object]:
    """Config overrides (``--cfg-options`` keys) for a seconds-long run."""
    options = {f'{loader}_dataloader.dataset.data_root': data_root
               for loader in ('train', 'val', 'test')}
    options.update({'train_dataloader.batch_size': 2,
                    'train_cfg.max_epochs': 1, 'train_cfg.val_interval': 1})
    return options


def cfg_options_args(options: Dict[str, object]) -> List[str]:
    """``--cfg-options k=v ...`` for a tool's command line."""
    return ['--cfg-options'] + [f'{k}={v}' for k, v in options.items()]
