"""mmidc.runtime.checkout: the checkout's root and its git state."""
import os.path as osp
import subprocess

import pytest

from mmidc.runtime.checkout import REPO_ROOT, git_commit


def git(repo, *args):
    subprocess.run(['git', '-C', str(repo), *args], check=True,
                   capture_output=True)


@pytest.fixture
def repo(tmp_path):
    git(tmp_path, 'init', '-q')
    for name in ('a.txt', 'page.md'):
        (tmp_path / name).write_text('1\n')
    git(tmp_path, 'add', '.')
    git(tmp_path, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit',
        '-qm', 'first')
    return tmp_path


def test_root_holds_the_tools():
    assert osp.isfile(osp.join(REPO_ROOT, 'tools', 'train.py'))


def test_commit_and_what_counts_as_a_change(repo, tmp_path_factory):
    commit, dirty = git_commit(str(repo))
    assert len(commit) >= 7 and not dirty
    (repo / 'new.txt').write_text('untracked\n')
    assert git_commit(str(repo))[1]
    assert not git_commit(str(repo), untracked=False)[1]
    (repo / 'page.md').write_text('2\n')
    assert git_commit(str(repo), untracked=False)[1]
    assert not git_commit(str(repo), exclude=[str(repo / 'page.md')],
                          untracked=False)[1]
    assert not git_commit(str(repo), paths=('a.txt', ))[1]
    outside = tmp_path_factory.mktemp('elsewhere')
    assert git_commit(str(repo), exclude=[str(outside / 'x.md')],
                      untracked=False)[1]  # a file outside changes nothing
    assert git_commit(str(outside)) is None
