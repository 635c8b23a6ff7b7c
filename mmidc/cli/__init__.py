"""The training, test and captioning commands (``tools/train.py``,
``tools/test.py``, ``tools/caption_pair.py``; ``python -m mmidc.cli.train`` /
``.test`` / ``.caption_pair`` from anywhere).

Run from a clone's root, a config may import a project's components
(``custom_imports = dict(imports=['mmidc', 'projects.<name>'])``): the
commands put the working directory first on ``sys.path``, as ``python -m``
does, so that ``projects`` is found there.
"""
import argparse
import os
import sys
from typing import Optional

from mmengine.config import Config

from mmidc.runtime.cfg_options import CfgOptionsAction
from mmidc.runtime.data_root import apply_data_root

__all__ = ['working_dir_on_path', 'parse_run_args', 'read_config']


def working_dir_on_path() -> None:
    """Put the working directory first on ``sys.path`` (where ``python -m``
    puts it), so that a config run from a clone's root imports
    ``projects.<name>`` from there."""
    cwd = os.getcwd()
    if cwd not in sys.path and '' not in sys.path:
        sys.path.insert(0, cwd)


def parse_run_args(parser: argparse.ArgumentParser, cfg_options_help: str,
                   launcher_help: Optional[str] = None) -> argparse.Namespace:
    """The command line of ``tools/train.py`` or ``tools/test.py``, parsed
    after adding the options both take (``--cfg-options``, ``--launcher``,
    ``--local-rank``); ``LOCAL_RANK`` set from ``--local-rank`` when the
    launcher did not set it."""
    parser.add_argument('--cfg-options', nargs='+', action=CfgOptionsAction,
                        help=cfg_options_help)
    parser.add_argument('--launcher',
                        choices=['none', 'pytorch', 'slurm', 'mpi'],
                        default='none', help=launcher_help)
    parser.add_argument('--local_rank', '--local-rank', type=int, default=0)
    args = parser.parse_args()
    if 'LOCAL_RANK' not in os.environ:
        os.environ['LOCAL_RANK'] = str(args.local_rank)
    return args


def read_config(args: argparse.Namespace) -> Config:
    """``args.config`` with ``--cfg-options`` merged and its paths derived
    from its roots (:func:`~mmidc.runtime.data_root.apply_data_root`)."""
    working_dir_on_path()  # `projects.<name>` from a clone's root
    cfg = Config.fromfile(args.config)
    if args.cfg_options is not None:
        cfg.merge_from_dict(args.cfg_options)
    apply_data_root(cfg, args.config, args.cfg_options)  # explicit values kept
    return cfg
