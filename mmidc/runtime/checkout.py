"""The source checkout mmidc runs from, and its git state."""
import os.path as osp
import subprocess
from typing import Optional, Sequence, Tuple

__all__ = ['REPO_ROOT', 'git_commit']

#: The folder holding ``mmidc/``, ``configs/`` and ``tools/`` (a source
#: checkout, or the one an editable install points at): the pipelines of
#: :mod:`mmidc.experiments` and :mod:`mmidc.benchmarks` run its tools.
REPO_ROOT = osp.dirname(osp.dirname(osp.dirname(osp.abspath(__file__))))


def git_commit(root: str = REPO_ROOT, paths: Sequence[str] = ('.', ),
               exclude: Sequence[str] = (),
               untracked: bool = True) -> Optional[Tuple[str, bool]]:
    """HEAD's short hash and whether ``paths`` hold uncommitted changes.

    Args:
        root (str): The checkout.
        paths (Sequence[str]): Where changes count, relative to ``root``.
        exclude (Sequence[str]): Files whose changes do not count (e.g. the
            report a command rewrites), absolute or relative to the working
            directory; those outside ``root`` change nothing.
        untracked (bool): Whether untracked files count as changes.

    Returns:
        tuple | None: ``(short hash, dirty)``, or None without git.
    """
    inside = [osp.relpath(osp.abspath(p), root) for p in exclude]
    excluded = [f':(exclude){p}' for p in inside if not p.startswith('..')]
    status = ['git', 'status', '--porcelain'] + (
        [] if untracked else ['--untracked-files=no'])
    try:
        commit = subprocess.run(['git', 'rev-parse', '--short', 'HEAD'],
                                cwd=root, capture_output=True, text=True,
                                check=True, timeout=60).stdout.strip()
        dirty = subprocess.run([*status, '--', *paths, *excluded], cwd=root,
                               capture_output=True, text=True,
                               timeout=60).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return commit, bool(dirty)
