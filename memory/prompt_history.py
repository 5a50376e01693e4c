"""What was typed at the chat prompt, kept for the up arrow inside the memory's database.

The lines are one ``state`` value of the memory (``prompt_history``), so they
live where the rest of the agent's data lives: a snapshot carries them,
erasing a message from recall erases the same line here (``forget``), and
``clear`` removes them all. Nothing is written anywhere else.

A layer above may keep lines typed at the prompt outside the database (the chat's
history under ``--no-history``): registered in ``copies`` while it lives, such a copy
loses what a forget or an erasure takes out of the stored lines (``scrub``), the lines
equal to a user message removed and those quoting a text removed
(memory/ops/state_scrub.py).

Only the newest lines are kept, up to ``MAX_JSON_CHARS`` of stored JSON, and
a line longer than ``MAX_LINE_CHARS`` is not kept at all: that is a paste,
which recall keeps, and the up arrow would only bring back a wall of text.
"""

from __future__ import annotations

import json
import weakref
from collections.abc import Callable, Iterable
from typing import Protocol

from tiermem.memory.ops.state_scrub import ErasedRuns
from tiermem.memory.store.contract import StorageBackend
from tiermem.memory.text.padding import unpadded

META_KEY = "state.prompt_history"
MAX_LINE_CHARS = 2_000
#: Well under what one state value may hold in a snapshot (200,000 characters).
MAX_JSON_CHARS = 100_000


def keeps(line: str) -> bool:
    """Whether a line typed at the prompt is kept: not one the chat reads as blank (blanks and
    marks of no width alone), too long, or holding a NUL."""
    return bool(unpadded(line)) and len(line) <= MAX_LINE_CHARS and "\x00" not in line


class HistoryCopy(Protocol):
    """Lines typed at the prompt that a layer above keeps outside the database."""

    def rewrite(self, change: Callable[[list[str]], list[str]]) -> None:
        """Replace the lines (oldest first) by ``change`` of them."""
        ...


class PromptHistory:
    """The prompt history of one memory, oldest line first."""

    def __init__(self, store: StorageBackend,
                 screen: Callable[[str], str] | None = None) -> None:
        self.store = store
        #: What a privacy policy lets memory keep of a line (the facade sets it): a line
        #: typed at the prompt is stored data like the message it becomes.
        self.screen = screen
        #: Copies of typed lines kept outside the database (module docstring), held weakly:
        #: a copy its chat no longer holds is gone, not kept (and scrubbed) for the memory's
        #: lifetime, one more for every chat on the same memory.
        self.copies: weakref.WeakSet[HistoryCopy] = weakref.WeakSet()

    def lines(self) -> list[str]:
        raw = self.store.settings.get(META_KEY)
        if raw is None:
            return []
        try:
            value = json.loads(raw)
        except ValueError:
            return []  # unreadable history is only a lost convenience, never an error
        return [line for line in value if isinstance(line, str)] if isinstance(value, list) else []

    def add(self, line: str) -> bool:
        """Keep ``line`` as the newest; False when it is not kept (blank, too long, NUL)."""
        return self.add_many([line]) > 0

    def add_many(self, lines: Iterable[str]) -> int:
        """Keep ``lines`` in order, newest last; returns how many were kept (not one the chat
        reads as blank, a word joiner alone)."""
        wanted = [line for line in lines if keeps(line)]
        if self.screen is not None:
            wanted = [self.screen(line) for line in wanted]
        if wanted:
            with self.store.transaction():
                self._save([*self.lines(), *wanted])
        return len(wanted)

    def forget(self, texts: Iterable[str]) -> int:
        """Remove every line equal to one of ``texts``, each without what pads it
        (``unpadded``: "\u200b/forget X" is the line "/forget X") and as it was kept (with
        what the privacy policy drops withheld); returns how many."""
        texts = list(texts)
        kept_as = [self.screen(text) for text in texts] if self.screen is not None else []
        unwanted = {unpadded(text) for text in [*texts, *kept_as]}
        if not unwanted:
            return 0
        with self.store.transaction():
            lines = self.lines()
            kept = [line for line in lines if unpadded(line) not in unwanted]
            if len(kept) != len(lines):
                self._save(kept)
        return len(lines) - len(kept)

    def scrub(self, lines: Iterable[str], texts: Iterable[str]) -> None:
        """Take out of every copy what a forget or an erasure takes out of the stored lines:
        each line equal to one of ``lines`` (the user messages removed, unpadded), and each
        quoting one of ``texts`` (the texts removed), as ``scrub_state`` takes it out of
        the stored value."""
        if not self.copies:
            return
        unwanted = {unpadded(line) for line in lines}
        runs = ErasedRuns(texts)

        def scrubbed(kept: list[str]) -> list[str]:
            kept = [line for line in kept if unpadded(line) not in unwanted]
            return list(runs.scrub_value(kept)) if runs.runs else kept

        for copy in self.copies:
            copy.rewrite(scrubbed)

    def clear(self) -> int:
        """Remove every line; returns how many there were."""
        with self.store.transaction():
            count = len(self.lines())
            self.store.settings.delete([META_KEY])
        return count

    def _save(self, lines: list[str]) -> None:
        text = json.dumps(lines)
        while len(text) > MAX_JSON_CHARS and lines:
            lines = lines[max(1, len(lines) // 10):]  # drop the oldest tenth, then measure again
            text = json.dumps(lines)
        self.store.settings.set(META_KEY, text)
