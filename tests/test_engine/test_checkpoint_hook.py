"""find_resume_checkpoint: the checkpoint ``last_checkpoint`` names, else the
newest complete one (kills and torn writes in a real run:
tests/test_faults/test_kill_resume.py)."""
import os.path as osp

import pytest
import torch

from mmidc.engine import find_resume_checkpoint


def _save(work_dir, name, complete=True):
    path = osp.join(work_dir, name)
    torch.save(dict(meta=name), path)
    if not complete:
        with open(path, 'r+b') as f:
            f.truncate(50)
    return path


def test_pointer_then_newest_complete_checkpoint(tmp_path):
    work_dir = str(tmp_path)
    assert find_resume_checkpoint(work_dir) is None  # a fresh start
    _save(work_dir, 'epoch_2.pth')
    newest = _save(work_dir, 'epoch_10.pth')  # by number, not by name
    _save(work_dir, 'epoch_11.pth', complete=False)
    _save(work_dir, 'best_rsum_epoch_12.pth')
    assert find_resume_checkpoint(work_dir) == newest  # no pointer
    pointer = tmp_path / 'last_checkpoint'
    named = _save(work_dir, 'epoch_2.pth')
    pointer.write_text(named + '\n')
    assert find_resume_checkpoint(work_dir) == named
    pointer.write_text(osp.join(work_dir, 'epoch_11.pth'))  # a torn write
    assert find_resume_checkpoint(work_dir) == newest


def test_a_pointer_with_nothing_to_resume_is_an_error(tmp_path):
    (tmp_path / 'last_checkpoint').write_text(str(tmp_path / 'gone.pth'))
    with pytest.raises(FileNotFoundError, match=r"names '.*gone\.pth', which is missing"):
        find_resume_checkpoint(str(tmp_path))
