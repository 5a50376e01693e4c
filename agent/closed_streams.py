"""Standard input or error closed when ``tiermem`` starts (``<&-``, ``2>&-``).

A closed descriptor 0, 1 or 2 is free and the lowest, so the next file the process opens
takes its number: the writer lock of an agent home would become standard input, read by a
child process or by anything that reads descriptor 0, or standard error, receiving a
child's messages. ``settle_closed_streams`` fills the closed ones with /dev/null at startup,
before the command opens anything.

Descriptor 1 is left as it is: with standard output closed the command is refused before it
opens any file (``tiermem.cli.main``), so no file can take it.
"""

from __future__ import annotations

import os
import sys
from typing import Any


def settle_closed_streams() -> None:
    """Fill closed descriptors 0 and 2 with /dev/null; see the module docstring."""
    # Standard input first: the /dev/null opened for standard error would otherwise land on
    # descriptor 0, write-only, where a read fails instead of finding the end of input.
    fill_closed_stdin()
    quiet_closed_stderr()


def fill_closed_stdin() -> None:
    """With standard input closed (``<&-``), hold descriptor 0 with /dev/null, read-only.

    ``sys.stdin`` stays None: the commands that read it (``chat``, ``forget -``) still
    refuse a closed standard input as the usage error it is, and the others, which never
    read it, find an empty one there.
    """
    if sys.stdin is None:
        _fill_descriptor(0, os.O_RDONLY)


def quiet_closed_stderr() -> None:
    """With standard error closed (``2>&-``), send what would go there to /dev/null.

    Its notes and errors are dropped, as asked, while the command runs and exits as it
    would otherwise (a write to the missing stream must not turn an error's exit 2 into
    a crash).
    """
    if sys.stderr is not None:
        return
    _fill_descriptor(2, os.O_WRONLY)
    # A stream of its own, not descriptor 2, which a file opened before now may hold.
    sys.stderr = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 (lives with the process)


def _fill_descriptor(fd: int, flags: int) -> None:
    """Open /dev/null on ``fd`` if nothing holds it, inherited by child processes as the
    standard stream would have been."""
    try:
        os.fstat(fd)
        return  # taken by a file opened since the stream was found closed: leave it be
    except OSError:
        pass
    null = os.open(os.devnull, flags)
    if null == fd:  # the lowest free descriptor, as those below it are held
        os.set_inheritable(fd, True)  # os.open's descriptors are not inherited
        return
    os.dup2(null, fd)  # inheritable, as dup2 makes it
    os.close(null)


class WatchedOutput:
    """Standard output that remembers why a write to it failed, so the command can say
    that its output could not be written (a full disk behind ``> FILE``) instead of
    showing a traceback; everything else is the wrapped stream's."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream
        #: The first error a write or flush met, or None.
        self.failure: OSError | None = None

    def write(self, text: str) -> int:
        try:
            return int(self.stream.write(text))
        except OSError as exc:
            self.failure = self.failure or exc
            raise

    def flush(self) -> None:
        try:
            self.stream.flush()
        except OSError as exc:
            self.failure = self.failure or exc
            raise

    def __getattr__(self, name: str) -> Any:
        if name == "stream":  # only while unpickling or copying, before __init__
            raise AttributeError(name)
        return getattr(self.stream, name)


def is_output_failure(exc: BaseException) -> bool:
    """Whether ``exc`` is, or was raised while handling, the failed write to standard output
    that ``WatchedOutput`` recorded: the command's output is lost, which no handler of a
    single step can mend (``tiermem.cli.main`` ends the command, exit 74 or 141)."""
    failure = sys.stdout.failure if isinstance(sys.stdout, WatchedOutput) else None
    return failure is not None and raised_by(exc, failure)


def raised_by(exc: BaseException, cause: BaseException) -> bool:
    """Whether ``exc`` is ``cause`` or was raised while handling it."""
    seen: BaseException | None = exc
    while seen is not None:
        if seen is cause:
            return True
        seen = seen.__cause__ or seen.__context__
    return False
