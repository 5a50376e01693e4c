"""Stored state values (``set_state``) that quote erased text lose what they quote.

The layers above keep their own values in the memory: an agent's running
summary, the prompt history. The memory cannot know how such a value was
written, so it looks for the erased words themselves: a line of a stored
string that shares a run of ``RUN_WORDS`` consecutive words with an erased
text (all of its words, for a shorter text) is taken out. In a list, a string
with no line left goes; elsewhere it keeps ``ERASED_LINE`` in place of each
line taken out, so a reader sees that something was there.

A value paraphrased from the erased text (a summary written by a model) may
share no run of words with it; the agent rebuilds its summary after an
erasure for that reason (agent/stored_context.py).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from tiermem.memory.store.contract import SettingsStore

#: Consecutive words a line must share with an erased text to be taken out.
RUN_WORDS = 4
ERASED_LINE = "[erased]"
STATE_PREFIX = "state."
_WORD = re.compile(r"\w+")


class ErasedRuns:
    """The word runs of some erased texts, and what a string keeps without them."""

    def __init__(self, texts: Iterable[str]) -> None:
        self.runs: set[tuple[str, ...]] = set()
        self.widths: set[int] = set()
        for text in texts:
            words = _words(text)
            if not words:
                continue
            width = min(RUN_WORDS, len(words))
            self.widths.add(width)
            self.runs.update(tuple(words[i : i + width]) for i in range(len(words) - width + 1))

    def quotes(self, line: str) -> bool:
        words = _words(line)
        return any(tuple(words[i : i + width]) in self.runs
                   for width in self.widths for i in range(len(words) - width + 1))

    def scrub(self, text: str) -> str | None:
        """``text`` without the lines that quote an erased text; None if no line is left."""
        lines = text.split("\n")
        kept = [ERASED_LINE if self.quotes(line) else line for line in lines]
        if all(line == ERASED_LINE for line in kept):
            return None
        return "\n".join(kept)

    def scrub_value(self, value: Any) -> Any:
        if isinstance(value, str):
            scrubbed = self.scrub(value)
            return ERASED_LINE if scrubbed is None else scrubbed
        if isinstance(value, list):
            kept = []
            for item in value:
                if isinstance(item, str) and self.scrub(item) is None:
                    continue
                kept.append(self.scrub_value(item))
            return kept
        if isinstance(value, dict):
            return {key: self.scrub_value(item) for key, item in value.items()}
        return value


def scrub_state(settings: SettingsStore, erased_texts: Iterable[str]) -> int:
    """Take erased text out of every stored state value; returns how many values changed."""
    runs = ErasedRuns(erased_texts)
    if not runs.runs:
        return 0
    changed = 0
    for key, raw in settings.items(STATE_PREFIX):
        try:
            value = json.loads(raw)
        except ValueError:
            # Not JSON (not written by set_state): judged as one string.
            scrubbed: Any = runs.scrub_value(raw)
            if scrubbed != raw:
                settings.set(key, scrubbed)
                changed += 1
            continue
        scrubbed = runs.scrub_value(value)
        if scrubbed != value:
            settings.set(key, json.dumps(scrubbed))
            changed += 1
    return changed


def _words(text: str) -> list[str]:
    return [w.casefold() for w in _WORD.findall(text)]


__all__ = ["ERASED_LINE", "RUN_WORDS", "ErasedRuns", "scrub_state"]
