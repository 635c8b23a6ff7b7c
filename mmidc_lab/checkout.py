"""The git state of the code a measurement runs: the commit of the clone that
holds this lab (git is asked in the lab's own folder)."""
import os.path as osp
import subprocess
from typing import Optional, Sequence, Tuple

__all__ = ['git_commit']

#: Where git is asked: the lab's folder, inside the clone it belongs to.
LAB_DIR = osp.dirname(osp.abspath(__file__))


def git_commit(paths: Sequence[str] = ('.', ), exclude: Sequence[str] = (),
               untracked: bool = True,
               where: str = LAB_DIR) -> Optional[Tuple[str, bool]]:
    """HEAD's short hash and whether ``paths`` hold uncommitted changes.

    Args:
        paths (Sequence[str]): Where changes count, relative to the top of
            the work tree (``'.'``: all of it).
        exclude (Sequence[str]): Files whose changes do not count (e.g. the
            report a command rewrites), absolute or relative to the working
            directory; those outside the work tree change nothing.
        untracked (bool): Whether untracked files count as changes.
        where (str): A folder inside the work tree (default: the lab's).

    Returns:
        tuple | None: ``(short hash, dirty)``, or None without git (or
        outside a work tree).
    """
    def git(*args):
        return subprocess.run(['git', *args], cwd=where, capture_output=True,
                              text=True, check=True,
                              timeout=60).stdout.strip()

    try:
        top = git('rev-parse', '--show-toplevel')
        commit = git('rev-parse', '--short', 'HEAD')
        inside = [osp.relpath(osp.realpath(osp.abspath(p)), osp.realpath(top))
                  for p in exclude]
        excluded = [f':(top,exclude){p}' for p in inside
                    if not p.startswith('..')]
        status = ['status', '--porcelain'] + (
            [] if untracked else ['--untracked-files=no'])
        spec = [':(top)' + ('' if osp.normpath(p) == '.' else p)
                for p in paths]
        dirty = git(*status, '--', *spec, *excluded)
    except (OSError, subprocess.SubprocessError):
        return None
    return commit, bool(dirty)
