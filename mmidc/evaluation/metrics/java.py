"""Finding the Java runtime that pycocoevalcap's tokenizer and METEOR need."""
import os
import shutil
import subprocess
from typing import Optional

INSTALL_HINT = ('Install a Java runtime (version 8 or newer), e.g. '
                '`sudo apt-get install default-jre-headless` on Debian/Ubuntu, '
                'and make sure `java` is on PATH (or set MMIDC_JAVA).')


def find_java(java: Optional[str] = None) -> Optional[str]:
    """Return the path of the java binary to use, or None if there is none.

    Order: the explicit argument, the ``MMIDC_JAVA`` environment variable,
    then ``java`` on ``PATH``.
    """
    candidate = java or os.environ.get('MMIDC_JAVA') or 'java'
    if os.path.sep in candidate:
        ok = os.path.isfile(candidate) and os.access(candidate, os.X_OK)
        return candidate if ok else None
    return shutil.which(candidate)


def java_version(java: Optional[str] = None) -> Optional[str]:
    """The first line of ``java -version`` or None if Java cannot run."""
    path = find_java(java)
    if path is None:
        return None
    try:
        out = subprocess.run([path, '-version'], capture_output=True,
                             text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    lines = (out.stderr or out.stdout).strip().splitlines()
    return lines[0] if out.returncode == 0 and lines else None


def require_java(java: Optional[str] = None, needed_by: str = 'mmidc',
                 hint: str = '') -> str:
    """Return the java binary to use or raise a clear error naming it.

    Args:
        java (str, optional): Explicit path or name of the binary. See
            :func:`find_java` for the fallbacks.
        needed_by (str): Who needs Java, for the error message.
        hint (str): Appended to the error message.

    Raises:
        RuntimeError: If no runnable binary is found.
    """
    path = find_java(java)
    if path is None:
        wanted = java or os.environ.get('MMIDC_JAVA') or 'java'
        raise RuntimeError(
            f'{needed_by} needs a Java runtime, but the java binary '
            f'{wanted!r} was not found or is not executable. {INSTALL_HINT}'
            + hint)
    return path
