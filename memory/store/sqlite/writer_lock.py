"""The lock that makes one process the only writer of an agent home.

It is an ``flock`` on ``writer.lock`` in the home, which records the holder's
pid for the refusal message. An flock belongs to the open file, and ``fork``
copies open files, so a child forked by the holder would keep the home locked
after the holder exited (and the refusal would name the dead holder). Each
process therefore closes its copy of every held lock right after a fork; the
lock stays with the process that took it, and an object inherited across a
fork refuses to be used.
"""

from __future__ import annotations

import contextlib
import fcntl
import gc
import io
import os
import weakref
from collections.abc import Callable
from pathlib import Path

from tiermem.memory.errors import StoreError, StoreLockedError, WriterLockError
from tiermem.memory.process_check import process_alive

LOCK_FILE = "writer.lock"

_held: weakref.WeakSet[WriterLock] = weakref.WeakSet()
_fork_hook_installed = False


def _drop_inherited_locks() -> None:
    for lock in list(_held):
        lock.forget_after_fork()


class WriterLock:
    """The writer lock of one agent home, held from ``acquire`` until ``release``."""

    def __init__(self, home: Path) -> None:
        self.path = home / LOCK_FILE
        self.owner_pid = os.getpid()
        self.forked = False
        # The locked file as an object that owns its descriptor: its close is one step,
        # marked done as it happens, so a close a Ctrl-C cut short is never repeated on a
        # number the system has since handed to another file.
        self._file: io.FileIO | None = None

    def acquire(self) -> None:
        global _fork_hook_installed
        if not _fork_hook_installed:
            os.register_at_fork(after_in_child=_drop_inherited_locks)
            _fork_hook_installed = True
        fd, holder = self._take()
        held_here = fd is None and self._held_here()
        if held_here:
            # A memory dropped without close() is part of reference cycles (its tiers and
            # stores point back at it), so its lock goes only when the collector frees
            # them: collected now, a dropped one lets go; one still in use keeps it.
            gc.collect()
            fd, holder = self._take()
        if fd is None:
            if holder is not None and not process_alive(holder):
                raise StoreLockedError(str(self.path.parent), None, exited_pid=holder)
            # The recorded pid alone may be this one's number in another process table (two
            # containers sharing the home): only a lock this process holds is its own.
            raise StoreLockedError(str(self.path.parent), holder,
                                   this_process=held_here and holder == os.getpid())
        self._file = io.FileIO(fd, "r+")
        self.owner_pid = os.getpid()
        _held.add(self)

    def _held_here(self) -> bool:
        """Whether this process holds this home's lock through another object."""
        home = self.path.parent
        return any(lock is not self and lock.held and lock.owner_pid == os.getpid()
                   and lock.locks(home) for lock in list(_held))

    def locks(self, home: Path) -> bool:
        """Whether this is the lock of ``home``, whether either path is written relative,
        absolute or through a symbolic link."""
        return self.path.resolve() == (home / LOCK_FILE).resolve()

    @property
    def held(self) -> bool:
        """Whether this process holds the lock (acquired, not released since)."""
        return self._file is not None and not self._file.closed

    def check_still_held(self, written_meanwhile: Callable[[], bool]) -> None:
        """Before a write: the lock held must still be the file at ``path``. Deleted by hand
        (as a "stale lock"), it would let a second writer in beside this one; so this one
        takes the file at ``path`` again, or stops writing when another process holds it,
        or has written the memory meanwhile (``written_meanwhile``: this session's state
        would then be behind the database)."""
        if self._file is None or self._file.closed:
            return
        if _is_at(self._file.fileno(), self.path):
            return
        fd, holder = self._take()
        if fd is not None and written_meanwhile():
            os.ftruncate(fd, 0)  # not held after all: no pid for a reader to find alive
            os.close(fd)
            fd, holder = None, None
        if fd is None:
            who = f"process {holder} has opened" if holder else "another process has written"
            raise StoreError(
                f"the writer lock {self.path} was deleted while this session held it, and "
                f"{who} the agent home since; this session stops writing so the two cannot "
                f"overwrite each other: close it. (Never delete {LOCK_FILE}: the lock of a "
                f"process that has exited is released by itself.)")
        self._file.close()
        self._file = io.FileIO(fd, "r+")

    def _take(self) -> tuple[int | None, int | None]:
        """(the locked file, None) with this pid recorded in it; or (None, the pid its
        holder recorded, when it did) when another holds it.

        The file locked must still be the one at ``path``: its holder may have removed it
        between this open and the flock (a failed restore removes the home it made), and
        a lock on a file no longer there would let the next process lock a new one beside
        this. So the file there now is taken instead."""
        for _ in range(_TAKE_TRIES):
            fd = self._open()
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                recorded = None
                with contextlib.suppress(OSError, ValueError):
                    recorded = int(os.pread(fd, 32, 0).decode().strip() or 0) or None
                os.close(fd)
                return None, recorded
            if _is_at(fd, self.path):
                os.ftruncate(fd, 0)
                os.pwrite(fd, str(os.getpid()).encode(), 0)
                return fd, None
            os.close(fd)
        return None, None  # removed again each time: another process is at work there

    def _open(self) -> int:
        try:
            return os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        except IsADirectoryError:
            raise StoreError(
                f"{self.path} is a directory, but tiermem keeps the agent home's writer lock "
                f"in a file of that name; remove the directory (rmdir {self.path}, after "
                f"checking it holds nothing you need) and try again") from None
        except OSError as exc:
            raise WriterLockError(str(self.path), exc.strerror or str(exc)) from None

    def release(self) -> None:
        _held.discard(self)
        held = self._file
        if held is None or held.closed:
            return
        with contextlib.suppress(OSError):
            os.ftruncate(held.fileno(), 0)
            fcntl.flock(held.fileno(), fcntl.LOCK_UN)
        held.close()

    def __del__(self) -> None:
        # A memory dropped without close() takes its lock with it; else the home would
        # stay locked, by this very process, for as long as it runs.
        if getattr(self, "_file", None) is not None and not self.forked and (
                os.getpid() == self.owner_pid):
            self.release()

    def forget_after_fork(self) -> None:
        """In a forked child: close the inherited copy, which leaves the parent's lock held."""
        if self._file is not None:
            with contextlib.suppress(OSError):
                self._file.close()
        self.forked = True
        _held.discard(self)

    def forked_error(self) -> StoreError:
        return StoreError(
            f"this memory was opened by process {self.owner_pid}, and process {os.getpid()} "
            f"is a fork of it; a forked process must open the agent home itself (after the "
            f"other process has closed it)")


#: How often ``_take`` opens the lock file again when the one it locked was removed.
_TAKE_TRIES = 5


def _is_at(fd: int, path: Path) -> bool:
    """Whether the open file ``fd`` is the one at ``path``."""
    held = os.fstat(fd)
    try:
        found = os.stat(path)
    except FileNotFoundError:
        return False
    return (found.st_ino, found.st_dev) == (held.st_ino, held.st_dev)


def writer_lock_held(home: Path) -> bool:
    """Whether a live process holds ``home``'s writer lock, read without taking it: its
    holder records its pid in the file and clears it on release (one killed leaves it)."""
    try:
        recorded = int((home / LOCK_FILE).read_text().strip() or 0)
    except (OSError, ValueError):
        return False
    return recorded > 0 and process_alive(recorded)
