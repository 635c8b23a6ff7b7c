"""The data set a data-preparation tool reads: a config's training data set
(``CONFIG [--cfg-options ...]``) or ``--dataset-type`` and ``--data-root``
(``--split``), with the data set's own ``--dataset-options``."""
import argparse
import os
import os.path as osp

from mmengine.config import Config

from .cfg_options import CfgOptionsAction

__all__ = ['add_dataset_args', 'check_dataset_args', 'check_out_file',
           'with_dataset_options']


def add_dataset_args(parser: argparse.ArgumentParser, config_help: str,
                     default_split: str = None) -> None:
    """Add ``config``, ``--dataset-type``, ``--data-root``, ``--split``,
    ``--cfg-options`` and ``--dataset-options`` to ``parser``.

    Args:
        parser (ArgumentParser): The tool's parser.
        config_help (str): What the tool reads of the config.
        default_split (str, optional): ``--split``'s default (None: the data
            set's own default).
    """
    parser.add_argument('config', nargs='?', help=config_help)
    parser.add_argument('--dataset-type', help='registered data set type, '
                        'e.g. CLEVRChangeDataset (instead of a config)')
    parser.add_argument('--data-root', help='data set root (with --dataset-type)')
    parser.add_argument('--split', default=default_split, help='split (with '
                        '--dataset-type; default: '
                        f'{default_split or "the data set default, the training split"})')
    parser.add_argument('--cfg-options', nargs='+', action=CfgOptionsAction,
                        help='override config settings, key=value')
    parser.add_argument('--dataset-options', nargs='+', action=CfgOptionsAction,
                        default={}, metavar='KEY=VALUE',
                        help="the data set's own arguments, e.g. "
                        'skip_missing_images=True')


def check_dataset_args(parser: argparse.ArgumentParser,
                       args: argparse.Namespace) -> None:
    """A usage error unless exactly one of a config and ``--dataset-type``
    (with ``--data-root``) is given."""
    if (args.config is None) == (args.dataset_type is None):
        parser.error('give either a CONFIG or --dataset-type and --data-root')
    if args.dataset_type and not args.data_root:
        parser.error('--dataset-type needs --data-root')


def check_out_file(parser: argparse.ArgumentParser, out: str) -> None:
    """A usage error when ``--out`` names a folder (an existing one, or a
    path ending in a separator), before the tool does its work."""
    if out and (osp.isdir(out) or out.endswith(('/', os.sep))):
        parser.error(f'--out {out}: a folder; give the file to write, e.g. '
                     f'{osp.join(out, "NAME.json")}')


def with_dataset_options(dataset_cfg: dict, options: dict) -> dict:
    """``dataset_cfg`` with ``options`` set, dotted keys
    (``data_prefix.img_path=...``) as in ``--cfg-options``."""
    merged = Config(dict(dataset=dataset_cfg))
    merged.merge_from_dict({f'dataset.{key}': value for key, value in options.items()})
    return merged.dataset.to_dict()
