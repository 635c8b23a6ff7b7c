"""The errors a command reports in one clear line, without a traceback:
the work dir in use or not writable, a full or read-only disk, a resume
that is refused. Any other error keeps its traceback (a bug to report)."""
import sys
from contextlib import contextmanager
from typing import Optional

from mmidc.engine.atomic_backend import DISK_ERRNOS

__all__ = ['clear_errors', 'known_error_message']


def known_error_message(err: BaseException) -> Optional[str]:
    """The message to print for a known error, None for any other.

    Args:
        err (BaseException): The error that ended the command.

    Returns:
        str | None: The message (an ``OSError``'s with the file it names).
    """
    from mmidc.engine.resume_check import ResumeRefusedError
    from mmidc.runtime.work_dir_lock import (WorkDirInUseError,
                                             WorkDirNotWritableError)
    if isinstance(err, (WorkDirInUseError, WorkDirNotWritableError,
                        ResumeRefusedError)):
        return str(err)
    if isinstance(err, OSError) and err.errno in DISK_ERRNOS:
        text = err.strerror or str(err)
        if err.filename is not None:
            text += f': {err.filename}'
        return text
    return None


@contextmanager
def clear_errors(prog: str):
    """Run a command's body; a known error (:func:`known_error_message`) is
    printed as ``<prog>: error: <message>`` on stderr and the command exits
    with status 1, without a traceback.

    Args:
        prog (str): The command's name in the message.
    """
    try:
        yield
    except Exception as err:
        message = known_error_message(err)
        if message is None:
            raise
        print(f'{prog}: error: {message}', file=sys.stderr, flush=True)
        raise SystemExit(1) from None
