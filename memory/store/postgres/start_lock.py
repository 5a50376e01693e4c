"""The lock a start of a local server holds (memory/store/postgres/local_server.py).

Two starts of one directory at once would both run initdb on it, and as root both
rebuild the programs' copy under each other (which left it broken for every later
start). So a start holds an ``flock`` on a file in the temporary directory named
after the data directory (nothing is added beside the data directory, which may be
a user's own directory).

The file is removed before the lock is let go, so starts leave no file behind.
That is safe against a start waiting meanwhile: it waited on the removed file,
and once it has the lock it checks that the path still names the file it locked;
if not (the path is gone, or names a newer file another start locks now), it
opens the path again and waits anew. Every holder so holds the file the path
names, and a file is removed only by its holder: at most one start runs at once.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path


def start_lock(data_dir: Path) -> Path:
    """The file a start of ``data_dir``'s server locks while it runs."""
    digest = hashlib.sha256(str(data_dir.absolute()).encode()).hexdigest()[:16]
    return Path(tempfile.gettempdir()) / f"tiermem-pg-start-{digest}.lock"


@contextlib.contextmanager
def starting(data_dir: Path) -> Iterator[None]:
    """Held while one process starts the server of ``data_dir`` (module docstring); where
    the lock file cannot be opened (another user's, say) the start goes on without it."""
    path = start_lock(data_dir)
    fd = _locked(path)
    if fd is None:
        yield
        return
    try:
        yield
    finally:
        # Removed while still locked; another user's file (a sticky /tmp) stays.
        with contextlib.suppress(OSError):
            os.unlink(path)
        os.close(fd)


def _locked(path: Path) -> int | None:
    """A descriptor of the file ``path`` names, locked, or None where it cannot be opened."""
    while True:
        try:
            fd = _open(path)
        except OSError:
            return None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            if _names(path, fd):
                return fd
        except BaseException:
            os.close(fd)
            raise
        os.close(fd)  # removed by the start it waited for: wait on the file there now


def _open(path: Path) -> int:
    return os.open(path, os.O_RDWR | os.O_CREAT, 0o600)


def _names(path: Path, fd: int) -> bool:
    """Whether ``path`` names the file open on ``fd``."""
    try:
        named = os.stat(path)
    except FileNotFoundError:
        return False
    held = os.fstat(fd)
    return (named.st_dev, named.st_ino) == (held.st_dev, held.st_ino)
