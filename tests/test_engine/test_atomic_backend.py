import os

import pytest
from mmengine.fileio import get_file_backend

from mmidc.engine import AtomicLocalBackend


def test_registered_and_selected_by_backend_args(tmp_path):
    backend = get_file_backend(str(tmp_path), backend_args=dict(backend='atomic_local'))
    assert isinstance(backend, AtomicLocalBackend)


def test_put_replaces_whole_file_and_leaves_no_temp(tmp_path):
    backend = AtomicLocalBackend()
    target = tmp_path / 'sub' / 'epoch_1.pth'
    backend.put(b'old-contents', target)
    backend.put(b'new', target)
    backend.put_text('epoch_1.pth', tmp_path / 'last_checkpoint')
    assert target.read_bytes() == b'new'
    assert (tmp_path / 'last_checkpoint').read_text() == 'epoch_1.pth'
    assert sorted(os.listdir(tmp_path / 'sub')) == ['epoch_1.pth']


def test_failed_write_keeps_previous_file(tmp_path, monkeypatch):
    backend = AtomicLocalBackend()
    target = tmp_path / 'latest.pth'
    backend.put(b'good checkpoint', target)

    def crash(*args, **kwargs):
        raise OSError('disk full')

    monkeypatch.setattr(os, 'replace', crash)
    with pytest.raises(OSError, match='disk full'):
        backend.put(b'half-written', target)
    assert target.read_bytes() == b'good checkpoint'
    assert os.listdir(tmp_path) == ['latest.pth']


def test_written_file_has_the_mode_open_gives(tmp_path):
    umask = os.umask(0o022)
    try:
        AtomicLocalBackend().put(b'data', tmp_path / 'epoch_1.pth')
    finally:
        os.umask(umask)
    assert os.stat(tmp_path / 'epoch_1.pth').st_mode & 0o777 == 0o644


def test_stale_temp_files_are_removed_and_nothing_else(tmp_path):
    from mmidc.engine.atomic_backend import remove_stale_temp_files
    names = ['.epoch_2.pth.k3j_x9qa.tmp', '.last_checkpoint.abcdefgh.tmp',
             'epoch_1.pth', 'notes.tmp', '.hidden.tmp']
    for name in names:
        (tmp_path / name).write_bytes(b'x')
    removed = remove_stale_temp_files(tmp_path)
    assert sorted(os.path.basename(p) for p in removed) == sorted(names[:2])
    assert sorted(os.listdir(tmp_path)) == sorted(names[2:])
