"""The chat prompt's up-arrow history, kept in the agent's database (memory/prompt_history.py).

Older versions kept it in a plain-text file, ``history``, in the agent home,
where erasing a message could not reach it. ``move_history_file`` brings such
a file's lines into the database and deletes it.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Callable, Iterable
from pathlib import Path
from typing import TextIO

from prompt_toolkit.history import FileHistory, History, InMemoryHistory

from tiermem.agent.line_input import typed_text
from tiermem.agent.old_history import OldHistoryFile
from tiermem.memory.errors import TiermemError
from tiermem.memory.prompt_history import PromptHistory, keeps
from tiermem.memory.text.counts import counted
from tiermem.memory.text.padding import unpadded

#: The plain-text history file of older versions, in the agent home.
OLD_HISTORY_FILE = "history"


class StoredHistory(History):
    """A prompt-toolkit ``History`` over a memory's ``PromptHistory``.

    Keeping a line is a convenience: when the database refuses it (a full
    disk), the line is still sent, ``warn`` is told once, and the prompt goes on.
    """

    def __init__(self, stored: PromptHistory, warn: TextIO | None = None) -> None:
        super().__init__()
        self.stored = stored
        self.warn = warn
        self.failed = False

    def load_history_strings(self) -> Iterable[str]:
        return list(reversed(self.stored.lines()))  # prompt-toolkit wants the newest first

    async def load(self) -> AsyncGenerator[str, None]:
        """The lines as the database holds them now, read again for every prompt:
        ``/history clear``, a ``/forget`` line and an erasure take lines out of it, and
        the up arrow must not bring them back from what an earlier prompt read. Once the
        database refused a line, what was read stays, with the lines it could not keep."""
        if not self.failed:
            self._loaded = False
        async for line in super().load():
            yield line

    def store_string(self, string: str) -> None:
        try:
            # As the message is sent: bytes typed that are not UTF-8 as U+FFFD.
            self.stored.add(typed_text(string)[0])
        except TiermemError as exc:
            if not self.failed and self.warn is not None:
                self.warn.write(f"tiermem: the prompt history could not be saved ({exc}); "
                                "the chat goes on without it\n")
            self.failed = True


class SessionHistory(InMemoryHistory):
    """The history of ``chat --no-history``: this session's lines, in memory only.
    ``/history clear`` empties it, as it empties the database's (``clear``), and a forget
    or an erasure takes out of it what it takes out of the database's (``rewrite``).
    ``old_file`` is an older version's history file the chat left in place, which loses
    the same lines (agent/old_history.py)."""

    old_file: OldHistoryFile | None = None

    def append_string(self, string: str) -> None:
        if keeps(typed_text(string)[0]):  # what the database keeps: not a word joiner alone
            super().append_string(string)

    def rewrite(self, change: Callable[[list[str]], list[str]]) -> None:
        """Replace the lines (oldest first) by ``change`` of them (memory/prompt_history.py's
        ``HistoryCopy``)."""
        self._storage[:] = change(list(self._storage))
        self._loaded_strings = list(reversed(self._storage))  # what each prompt reads

    def clear(self) -> int:
        """Take every line out, so the up arrow brings none back; returns how many."""
        count = len(self._storage)
        self._storage.clear()
        self._loaded_strings = []  # what each prompt's buffer reads (History.load)
        return count

    def forget(self, texts: list[str]) -> int:
        """Take out every line equal to one of ``texts`` (unpadded), as ``/forget`` takes its
        own line out of the database's history; returns how many."""
        unwanted = {unpadded(text) for text in texts}
        kept = [line for line in self._storage if unpadded(line) not in unwanted]
        taken = len(self._storage) - len(kept)
        self._storage[:] = kept
        self._loaded_strings = [s for s in self._loaded_strings if unpadded(s) not in unwanted]
        return taken


def move_history_file(home: Path, stored: PromptHistory) -> tuple[int, int] | None:
    """Move the lines of an old plain-text history file into ``stored`` and delete the
    file; returns how many lines moved and how many were left out (blank, too long: what
    the prompt history does not keep), or None when there was no such file."""
    path = home / OLD_HISTORY_FILE
    if not path.is_file():
        return None
    lines = list(reversed(list(FileHistory(str(path)).load_history_strings())))
    moved = stored.add_many(lines)
    path.unlink()
    return moved, len(lines) - moved


def adopt_history_file(home: Path | None, stored: PromptHistory,
                       note: Callable[[str], None]) -> None:
    """Move an old history file into ``stored``, and ``note`` that it was. Every command
    that writes the agent does so (a piped chat, ``forget``), so that an erasure reaches
    its lines: left as a file, no erasure would. ``home`` is None for an agent in
    PostgreSQL: a file in the directory of that name belongs to a SQLite agent."""
    if home is None:
        return
    counts = move_history_file(home, stored)
    if counts is not None:
        moved, left = counts
        left_out = f" ({counted(left, 'line')} blank or too long to keep left out)" if left \
            else ""
        note(f"moved {counted(moved, 'line')} of prompt history from "
             f"{home / OLD_HISTORY_FILE} into the agent's database{left_out} and deleted the "
             "file")


def chat_history(home: Path | None, stored: PromptHistory, keep: bool, warn: TextIO
                 ) -> History:
    """The history for an interactive chat: the database's, or with ``keep=False`` one that
    lasts only this session. An old history file is moved in, and ``warn`` says so
    (``home`` as for ``adopt_history_file``)."""
    if not keep:
        old = home / OLD_HISTORY_FILE if home is not None else None
        if old is not None and old.is_file():
            warn.write(f"tiermem: {old} is a plain-text prompt history from an older version; "
                       "tiermem no longer reads it, so delete it\n")
        session = SessionHistory()
        stored.copies.add(session)
        if old is not None and old.is_file():
            session.old_file = OldHistoryFile(old)  # held by the session, as copies need
            stored.copies.add(session.old_file)
        return session

    def say(text: str) -> None:
        warn.write(f"tiermem: {text}\n")

    adopt_history_file(home, stored, say)
    return StoredHistory(stored, warn)
