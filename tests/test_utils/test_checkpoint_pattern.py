"""resolve_checkpoint: a path is kept, a pattern becomes its newest match
(a real run's best checkpoint: tests/test_engine/test_resume.py)."""
import os

import pytest

from mmidc.utils import resolve_checkpoint


def test_a_pattern_resolves_to_the_newest_match(tmp_path):
    assert resolve_checkpoint(str(tmp_path / 'not_there.pth')) == str(
        tmp_path / 'not_there.pth')  # no pattern: not looked up
    old, new = tmp_path / 'best_rsum_epoch_9.pth', tmp_path / 'best_rsum_epoch_2.pth'
    for path, mtime in ((old, 1000), (new, 2000)):
        path.write_bytes(b'x')
        os.utime(path, (mtime, mtime))
    (tmp_path / 'best_rsum_epoch_5.pth').mkdir()  # not a file
    assert resolve_checkpoint(str(tmp_path / 'best_rsum_*.pth')) == str(new)
    with pytest.raises(FileNotFoundError, match=r"pattern '.*best_CIDEr_\*\.pth'"):
        resolve_checkpoint(str(tmp_path / 'best_CIDEr_*.pth'))
