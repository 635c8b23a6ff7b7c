"""Reading MMEngine run logs."""
import glob
import json
import os.path as osp
import re

__all__ = ['checkpoint_validation']


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
