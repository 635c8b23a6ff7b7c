import pytest

from mmidc.utils.run_logs import checkpoint_validation
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
