"""Stored state values (``set_state``) that quote erased text lose what they quote.

The layers above keep their own values in the memory: an agent's running
summary, the prompt history. The memory cannot know how such a value was
written, so it looks for the erased words themselves: a line of a stored
string is taken out when it shares a run of ``RUN_WORDS`` consecutive words
with an erased text (all of its words, for a shorter text), when it holds a
word of one that looks like a secret (``_secret_like``: a number of four
digits or more, a code mixing letters and digits), or when it is a slash
command (a search typed at the chat prompt) whose words all come from one. In a list, a string
with no line left goes; elsewhere it keeps ``ERASED_LINE`` in place of each
line taken out, so a reader sees that something was there. A mark longer than
the line it replaces lengthens the value: when the marks would take its JSON
text past ``MAX_STATE_VALUE_CHARS`` (the bound ``set_state`` and a snapshot's
restore hold every value to), the lines are taken out without a mark instead,
which never lengthens it.

A value paraphrased from the erased text (a summary written by a model) may
share no run of words with it; the agent rebuilds its summary after an
erasure for that reason (agent/stored_context.py).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from typing import Any

from tiermem.memory.search.lexical import STOPWORDS
from tiermem.memory.store.contract import SettingsStore
from tiermem.memory.store.records import STATE_PREFIX
from tiermem.memory.text.padding import unpadded
from tiermem.memory.validation import MAX_STATE_VALUE_CHARS, unescaped_json

#: Consecutive words a line must share with an erased text to be taken out.
RUN_WORDS = 4
ERASED_LINE = "[erased]"
_WORD = re.compile(r"\w+")


class ErasedRuns:
    """The word runs of some erased texts, and what a string keeps without them."""

    def __init__(self, texts: Iterable[str]) -> None:
        self.runs: set[tuple[str, ...]] = set()
        self.widths: set[int] = set()
        self.texts: list[set[str]] = []
        every_word: set[str] = set()
        for text in texts:
            words = _words(text)
            if not words:
                continue
            self.texts.append(set(words))
            every_word.update(self.texts[-1])
            width = min(RUN_WORDS, len(words))
            self.widths.add(width)
            # The runs of ``width`` words, as tuples: zip builds them without a slice each.
            self.runs.update(zip(*(words[start:] for start in range(width)), strict=False))
        # Each word judged once: the same words recur across thousands of erased messages.
        self.secrets = {word for word in every_word if _secret_like(word)}

    def quotes(self, line: str) -> bool:
        words = _words(line)
        if any(tuple(words[i : i + width]) in self.runs
               for width in self.widths for i in range(len(words) - width + 1)):
            return True
        if self.secrets.intersection(words):  # "remind me of 8675309", in any words
            return True
        # A search typed at the chat prompt for the erased text ("/recall PIN 8675309" for
        # "My PIN is 8675309") quotes it too: a slash command whose words, options aside,
        # all come from it, in any order.
        line = unpadded(line)  # "\u200b/recall ...", which the chat runs as a search
        if not line.startswith("/"):
            return False
        asked = set(_words(_without_command(line)))
        # "/recall my" names nothing: a search of common words alone is no quote.
        return bool(asked - STOPWORDS) and any(asked <= text for text in self.texts)

    def scrub(self, text: str, mark: bool = True) -> str | None:
        """``text`` without the lines that quote an erased text, each replaced by
        ``ERASED_LINE`` when ``mark``, else dropped; None if no line is left."""
        kept = [None if self.quotes(line) else line for line in text.split("\n")]
        if all(line in (None, ERASED_LINE) for line in kept):
            return None
        if mark:
            return "\n".join(ERASED_LINE if line is None else line for line in kept)
        return "\n".join(line for line in kept if line is not None)

    def scrub_value(self, value: Any, mark: bool = True) -> Any:
        """``value`` with every string in it scrubbed (``scrub``); without ``mark`` it is
        never longer as JSON."""
        if isinstance(value, str):
            scrubbed = self.scrub(value, mark)
            if scrubbed is None:
                return ERASED_LINE if mark else ""
            return scrubbed
        if isinstance(value, list):
            kept = []
            for item in value:
                if isinstance(item, str) and self.scrub(item) is None:
                    continue
                kept.append(self.scrub_value(item, mark))
            return kept
        if isinstance(value, dict):
            return {key: self.scrub_value(item, mark) for key, item in value.items()}
        return value


def scrub_state(settings: SettingsStore, erased_texts: Iterable[str]) -> int:
    """Take erased text out of every stored state value; returns how many values changed.

    A line taken out leaves ``ERASED_LINE`` unless that would take the value's stored text
    past ``MAX_STATE_VALUE_CHARS``: then every line taken out of that value leaves nothing,
    so the value stays within the bound a snapshot's restore holds it to. The erasure
    itself always completes (see ``_scrubbed`` for a restored value that is over even so)."""
    runs = ErasedRuns(erased_texts)
    if not runs.runs:
        return 0
    changed = 0
    for key, raw in settings.items(STATE_PREFIX):
        scrubbed = _scrubbed(runs, raw)
        if scrubbed is not None:
            settings.set(key, scrubbed)
            changed += 1
    return changed


def _scrubbed(runs: ErasedRuns, raw: str) -> str | None:
    """The text to store for ``raw`` without what it quotes; None if it quotes nothing."""
    try:
        value: Any = json.loads(raw)
        as_text: Callable[[Any], str] = unescaped_json
    except ValueError:
        # Not JSON (not written by set_state): judged as one string, stored as it is.
        value, as_text = raw, str
    marked = runs.scrub_value(value)
    if marked == value:
        return None
    text = as_text(marked)
    if len(text) <= MAX_STATE_VALUE_CHARS:
        return text
    text = as_text(runs.scrub_value(value, mark=False))
    if len(text) <= MAX_STATE_VALUE_CHARS or as_text is str:
        return text
    # Only a value set_state did not write can still be over: JSON text a snapshot restored,
    # written without the spaces json.dumps puts after "," and ":". Without them, and with
    # characters unescaped, the text is never longer than the restored one (taking lines out
    # only shortens it) but for one case: numbers the snapshot wrote shorter than Python
    # does (1e5 read back as 100000.0). The erasure must complete, and a value past the
    # bound would stop every later snapshot from restoring: such a value becomes null.
    compact = unescaped_json(runs.scrub_value(value, mark=False), compact=True)
    return compact if len(compact) <= MAX_STATE_VALUE_CHARS else "null"


def _without_command(line: str) -> str:
    """``line`` without a leading slash command and its options (``--page 2``), given
    before the query or, as the chat also reads them, after it (``/recall CODE --all``),
    in any case and as ``--page=2`` too."""
    tokens = line.split()
    if not tokens or not tokens[0].startswith("/"):
        return line
    tokens = tokens[1:]
    separated = False
    while tokens and tokens[0].startswith("--"):
        option = tokens.pop(0).lower()
        if option == "--":
            separated = True
            break
        if option == "--page" and tokens and tokens[0].isdigit():
            tokens.pop(0)
    while not separated and len(tokens) > 1:
        last = tokens[-1].lower()
        if last == "--all" or (last.startswith("--page=") and last[7:].isdigit()):
            tokens.pop()
        elif len(tokens) > 2 and tokens[-2].lower() == "--page" and last.isdigit():
            del tokens[-2:]
        else:
            break
    return " ".join(tokens)


def _words(text: str) -> list[str]:
    return [w.casefold() for w in _WORD.findall(text)]


def telling(text: str) -> bool:
    """Whether ``text`` names what it says wherever it is quoted: ``RUN_WORDS`` words or
    more, or a word that looks like a secret ("Thanks!" or "Yes, in Lisbon." is said in
    passing by many messages that quote nothing of it)."""
    words = _words(text)
    return len(words) >= RUN_WORDS or any(map(_secret_like, words))


__all__ = ["ERASED_LINE", "RUN_WORDS", "ErasedRuns", "scrub_state", "telling"]


def _secret_like(word: str) -> bool:
    """A word an erased text holds that names it on its own wherever it appears: a number
    of four digits or more (a PIN, a card or phone number) that is not a year, or a code of
    six characters or more mixing letters and digits (a key, a password)."""
    digits = sum(c.isdigit() for c in word)
    if digits == len(word) == 4 and 1900 <= int(word) <= 2099:
        return False  # a year: other lines mention it without quoting the secret
    return digits >= 4 or (len(word) >= 6 and 0 < digits < len(word))
