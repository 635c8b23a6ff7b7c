import os

import pytest

from mmidc_lab.run_logs import (best_checkpoint, checkpoint_validation,
                                    newest_file)
from tests.helpers.run_logs import write_scalars


def test_the_validation_after_the_checkpoints_epoch(tmp_path):
    write_scalars(tmp_path, '20260101_000000', [
        dict(loss=3.0, lr=1e-3, step=2),  # a training line at iteration 2
        dict(CIDEr=80.0, **{'truth/total': 40.0}, step=1),
        dict(CIDEr=90.0, **{'truth/total': 45.0}, step=2),
        dict(CIDEr=95.0, **{'truth/total': 50.0}, step=3)])
    # resumed after epoch 2: epoch 3 validated again, in a newer folder
    write_scalars(tmp_path, '20260102_000000', [
        dict(CIDEr=96.0, **{'truth/total': 51.0}, step=3),
        dict(CIDEr=91.0, step=4)])
    assert checkpoint_validation(str(tmp_path), 'best_CIDEr_epoch_3.pth') == {
        'CIDEr': 96.0, 'truth/total': 51.0, 'step': 3}
    assert checkpoint_validation(
        str(tmp_path), str(tmp_path / 'best_CIDEr_epoch_2.pth'))['CIDEr'] == 90.0
    assert checkpoint_validation(str(tmp_path), 'epoch_4.pth') == {
        'CIDEr': 91.0, 'step': 4}
    assert checkpoint_validation(str(tmp_path), 'epoch_9.pth') == {}
    assert checkpoint_validation(str(tmp_path / 'none'), 'epoch_1.pth') == {}
    with pytest.raises(ValueError, match='epoch_N'):
        checkpoint_validation(str(tmp_path), 'model.pth')


def test_val_best_checkpoint_by_key(tmp_path):
    for name in ('best_CIDEr_epoch_2.pth', 'best_truth_total_epoch_3.pth',
                 'epoch_5.pth'):
        (tmp_path / name).write_text('')
    assert best_checkpoint(str(tmp_path), 'truth/total').endswith(
        'best_truth_total_epoch_3.pth')
    assert best_checkpoint(str(tmp_path), 'CIDEr').endswith(
        'best_CIDEr_epoch_2.pth')
    with pytest.raises(FileNotFoundError, match='best_rsum_'):
        best_checkpoint(str(tmp_path), 'rsum')


def test_the_newest_file(tmp_path):
    for name, mtime in (('epoch_2.pth', 2e9), ('epoch_10.pth', 1e9)):
        (tmp_path / name).write_text('')
        os.utime(tmp_path / name, (mtime, mtime))
    assert newest_file(str(tmp_path / 'epoch_*.pth')).endswith('epoch_2.pth')
    with pytest.raises(FileNotFoundError, match='nothing matches'):
        newest_file(str(tmp_path / 'best_*.pth'))
