"""Reading MMEngine runs: their logs and the checkpoints they kept."""
import glob
import json
import os.path as osp
import re
from typing import Optional

__all__ = ['checkpoint_validation', 'best_checkpoint', 'newest_file']


def newest_file(pattern: str) -> str:
    """The newest file (by modification time) that ``pattern`` matches.

    Raises:
        FileNotFoundError: Nothing matches.
    """
    found = sorted(glob.glob(pattern), key=osp.getmtime)
    if not found:
        raise FileNotFoundError(f'nothing matches {pattern}')
    return found[-1]


def best_checkpoint(work_dir: str, key: Optional[str] = None) -> str:
    """The val-best checkpoint a run's checkpoint hook kept.

    Args:
        work_dir (str): The run's work dir.
        key (str, optional): The ``save_best`` metric key: the checkpoint
            is ``best_<key>_*.pth`` (``/`` in the key as ``_``); any
            ``best_*.pth`` without it. The newest if several.

    Raises:
        FileNotFoundError: The run kept no val-best checkpoint by that key.
    """
    pattern = 'best_*.pth' if key is None else \
        f'best_{key.replace("/", "_")}_*.pth'
    try:
        return newest_file(osp.join(work_dir, pattern))
    except FileNotFoundError:
        raise FileNotFoundError(
            f'no {pattern} in {work_dir}: the run kept no val-best '
            'checkpoint by that key (finished with another save_best? then '
            'choose another --work-dir)') from None


def checkpoint_validation(work_dir: str, checkpoint: str) -> dict:
    """The validation scores logged for a checkpoint named ``..._epoch_N.pth``.

    Reads the validation after epoch ``N`` from the run's
    ``<work_dir>/<timestamp>/vis_data/scalars.json`` files; when several
    have it (a resumed run logs into a new folder), the newest one's.

    Args:
        work_dir (str): The run's work dir.
        checkpoint (str): The checkpoint's path or name.

    Returns:
        dict: That validation's scores (``CIDEr``, ``truth/total``, ...), or
        an empty dict if none was logged.

    Raises:
        ValueError: ``checkpoint`` does not end in ``epoch_N.pth``.
    """
    match = re.search(r'epoch_(\d+)\.pth$', checkpoint)
    if match is None:
        raise ValueError(f'{checkpoint}: not a ..._epoch_N.pth checkpoint')
    epoch, found = int(match.group(1)), {}
    for path in sorted(glob.glob(osp.join(work_dir, '*', 'vis_data',
                                          'scalars.json'))):
        with open(path) as f:
            for line in f:
                entry = json.loads(line)
                # validation lines carry metrics, training lines a loss
                if entry.get('step') == epoch and 'loss' not in entry:
                    found = entry
    return found
