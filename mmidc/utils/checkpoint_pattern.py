"""Resolve a checkpoint path given as a glob pattern.

MMEngine's ``CheckpointHook(save_best='rsum')`` names the best checkpoint
after the epoch it came from (``best_rsum_epoch_7.pth``) and deletes the
previous best when a better one is saved, so a config cannot know the name
in advance. A pattern such as
``work_dirs/clip4idc-adapt_vit-b32_clevr-change/best_rsum_*.pth`` names it
instead; :func:`resolve_checkpoint` turns it into the newest matching file.
"""
import glob
import os.path as osp

__all__ = ['resolve_checkpoint']

_GLOB_CHARS = ('*', '?', '[')


def resolve_checkpoint(path: str) -> str:
    """Return ``path``, or the newest file matching it if it is a pattern.

    Args:
        path (str): A file path or a glob pattern (``*``, ``?``, ``[...]``).

    Returns:
        str: ``path`` unchanged when it has no glob characters; otherwise the
        matching file with the latest modification time (ties: the last name).

    Raises:
        FileNotFoundError: The pattern matches no file (the message names it).
    """
    path = str(path)
    if not any(char in path for char in _GLOB_CHARS):
        return path
    found = [p for p in glob.glob(path) if osp.isfile(p)]
    if not found:
        raise FileNotFoundError(
            f'no checkpoint matches the pattern {path!r} (relative to '
            f'{osp.abspath(".")!r}); run the stage that writes it first, '
            'or give the file path explicitly')
    return max(found, key=lambda p: (osp.getmtime(p), p))
