"""mmidc_lab.checkout: the git state of the clone that holds the lab."""
import os.path as osp
import subprocess

import pytest

from mmidc_lab.checkout import LAB_DIR, git_commit


def git(repo, *args):
    subprocess.run(['git', '-C', str(repo), *args], check=True,
                   capture_output=True)


@pytest.fixture
def repo(tmp_path):
    git(tmp_path, 'init', '-q')
    for name in ('a.txt', 'page.md', 'sub/b.txt'):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text('1\n')
    git(tmp_path, 'add', '.')
    git(tmp_path, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit',
        '-qm', 'first')
    return tmp_path


def test_git_is_asked_in_the_labs_folder():
    assert osp.isfile(osp.join(LAB_DIR, 'checkout.py'))
    found = git_commit()
    if found is not None:  # a clone (an export without .git has none)
        assert len(found[0]) >= 7


def test_commit_and_what_counts_as_a_change(repo, tmp_path_factory):
    # asked from a subfolder: paths are relative to the top of the work tree
    where = str(repo / 'sub')
    commit, dirty = git_commit(where=where)
    assert len(commit) >= 7 and not dirty
    (repo / 'new.txt').write_text('untracked\n')
    assert git_commit(where=where)[1]
    assert not git_commit(where=where, untracked=False)[1]
    (repo / 'page.md').write_text('2\n')
    assert git_commit(where=where, untracked=False)[1]
    assert not git_commit(where=where, exclude=[str(repo / 'page.md')],
                          untracked=False)[1]
    assert not git_commit(where=where, paths=('a.txt', ))[1]
    assert git_commit(where=where, paths=('page.md', ))[1]
    outside = tmp_path_factory.mktemp('elsewhere')
    assert git_commit(where=where, exclude=[str(outside / 'x.md')],
                      untracked=False)[1]  # a file outside changes nothing
    assert git_commit(where=str(outside)) is None
