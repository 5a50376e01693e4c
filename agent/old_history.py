"""An older version's plain-text prompt history (``history`` in the agent home), left in
place by an interactive chat with ``--no-history``.

Such a chat does not move the file into the database (it keeps no history), yet a forget
or an erasure promises the text is gone from every file. ``OldHistoryFile`` is therefore
one of the copies of typed lines a layer above keeps outside the database
(memory/prompt_history.py's ``HistoryCopy``): what a forget or an erasure takes out of the
stored lines, it takes out of the file, which is written again whole in one rename with
the mode it had. The chat says what was taken (``news``).

The file is prompt-toolkit's ``FileHistory`` format: each entry a run of lines starting
with "+", after lines that do not (a "# time" comment, a blank). An entry taken out goes
with the lines before it; every other byte of the file stays as it was.
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path

from tiermem.memory.text.counts import counted


class OldHistoryFile:
    """The old history file at ``path``, as a ``HistoryCopy`` of the prompt history."""

    def __init__(self, path: Path) -> None:
        self.path = path
        #: Entries taken out of the file since the chat last said so (``news``).
        self.taken = 0
        #: Why the file could not be written again, when it could not.
        self.failure: str | None = None

    def rewrite(self, change: Callable[[list[str]], list[str]]) -> None:
        """Write the file again with ``change`` applied to each entry. Never raises: the
        forget or erasure that asked has happened in the database, and ``news`` says
        what the file still holds."""
        try:
            self.taken += _rewrite(self.path, change)
        except OSError as exc:
            self.failure = exc.strerror or str(exc)

    def news(self) -> str | None:
        """What the forgets since the last call did to the file, in words (None: nothing)."""
        said = None
        if self.failure is not None:
            said = (f"{self.path}, an older version's plain-text prompt history, may still hold "
                    f"what was forgotten: it could not be written again ({self.failure}); "
                    "delete it")
        elif self.taken:
            said = (f"took {counted(self.taken, 'line')} out of {self.path}, an older "
                    "version's plain-text prompt history")
        self.taken, self.failure = 0, None
        return said


def _entries(data: bytes) -> list[tuple[bytes, bytes]]:
    """The file's ``data`` as (lines before an entry, the entry's "+" lines) pairs, in order;
    lines after the last entry are a pair with no entry."""
    pairs: list[tuple[bytes, bytes]] = []
    before, entry = b"", b""
    for line in re.findall(rb"[^\n]*\n|[^\n]+", data):  # as FileHistory splits it
        if line.startswith(b"+"):
            entry += line
            continue
        if entry:
            pairs.append((before, entry))
            before, entry = b"", b""
        before += line
    if before or entry:
        pairs.append((before, entry))
    return pairs


def _text(entry: bytes) -> str:
    """An entry's line as the chat typed it (as ``FileHistory`` reads it back)."""
    lines = entry.decode("utf-8", errors="replace").split("\n")
    return "\n".join(line[1:] for line in lines if line)


def _rewrite(path: Path, change: Callable[[list[str]], list[str]]) -> int:
    """Apply ``change`` to each entry of the file at ``path`` and write it again when that
    changed any; returns how many entries were taken out or changed."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return 0  # deleted since the chat began: nothing left to take out
    target = path.resolve()  # a link stays a link to the file written again
    pieces: list[bytes] = []
    changed = 0
    for before, entry in _entries(data):
        text = _text(entry)
        kept = change([text]) if entry else [text]
        if kept == [text]:
            pieces.append(before + entry)
            continue
        changed += 1
        pieces.extend(before + "".join(f"+{line}\n" for line in new.split("\n")).encode()
                      for new in kept)
    if changed:
        _replace(target, b"".join(pieces))
    return changed


def _replace(path: Path, data: bytes) -> None:
    """Put ``data`` in place of the file at ``path`` in one rename, with its mode: a reader,
    or a crash, finds the old file or the new one."""
    mode = stat.S_IMODE(path.stat().st_mode)
    fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(name, mode)
        os.replace(name, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(name)
        raise
