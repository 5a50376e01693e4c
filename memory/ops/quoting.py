"""The recall messages that quote what a forget or an erasure takes, so they go with it.

A turn repeats what was said in it: the model's tool calls carry the fact they
store (``core_memory_append``'s arguments), tool results echo it, and the reply
quotes them. Taking the user's message and the facts learned from it would
leave the same text in those messages, so ``forget`` (tombstones) and ``erase``
(deletion) take them too:

- **Where.** The messages of the turns that hold what was taken: the messages
  named, the messages the facts and passages taken were learned or filed from
  (``source_message_id``), and the turn that last moved a fact taken out of core
  (``Fact.evicted_tick``: "Forget that." or a correction names it in its call,
  result and reply). Messages of other turns are not searched here (an erasure
  reads the rest of recall itself: memory/ops/erased_copies.py). In that last turn
  only the model's messages (calls, tool results, replies) are searched, and only
  for the facts' own texts: the user's message there is a statement of its own
  ("I moved to Munich. Tom still thinks I live in Berlin."), no copy of the fact,
  even where it repeats a message forgotten.
- **What quotes.** A message quotes a text when its content, a string value of it
  when it is JSON (a tool's result), or a string value in the arguments of one of its
  tool calls, contains the text: case and runs of
  whitespace ignored, and the text not cut out of a longer word (``card 41``
  does not quote ``card 4111``). The texts are those of the facts, passages and
  messages named or cascaded to, not of the messages taken for quoting them.
- **Taken alone.** A message taken for quoting is taken by itself; the facts
  learned from it and the passages filed from it stay unless they are taken
  otherwise. Messages of the turn that quote nothing taken (a tool result such
  as ``Sent.``) stay.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from typing import Any

from tiermem.memory.store.records import Message

__all__ = ["message_strings", "quoting", "quoting_copies"]

_SPACE = re.compile(r"\s+")
#: A word: a maximal run of the characters ``str.isalnum`` accepts, the test ``_cuts`` uses
#: to tell whether a text is cut out of a longer word. ``\w`` less the underscore is exactly
#: those characters (tests/test_quoting_index.py checks every code point).
_WORD = re.compile(r"[^\W_]+")
#: How many of a text's first characters are compared before the whole of it.
_OPENING = 32
#: The texts of one length: the length, how many characters open them (``_OPENING`` at
#: most), and the texts by their opening.
_Group = tuple[int, int, dict[str, list[str]]]
#: Texts by their length, then by their opening, as they are filed.
_Filed = dict[int, dict[str, list[str]]]


def _norm(text: str) -> str:
    return _SPACE.sub(" ", text).strip().casefold()


def message_strings(message: Message) -> Iterator[str]:
    """Every text a message holds: its content, its string values when it is JSON (a
    search's result, where a quotation mark or a line break is escaped), and the string
    values of its tool calls' arguments (the arguments themselves when they are not JSON)."""
    yield message.content
    if message.content.lstrip()[:1] in ("{", "["):
        yield from _strings(_parsed(message.content))
    for call in message.tool_calls or ():
        function = call.get("function") if isinstance(call, dict) else None
        arguments = function.get("arguments") if isinstance(function, dict) else None
        if isinstance(arguments, str):
            try:
                parsed: Any = json.loads(arguments)
            except (ValueError, RecursionError):
                yield arguments
                continue
            yield from _strings(parsed)
        elif arguments is not None:
            yield from _strings(arguments)


def _strings(value: Any) -> Iterator[str]:
    """The strings in ``value``, at any depth (a stack, not recursion: JSON nested as deep
    as the parser takes is no reason to fail a forget)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            yield item
        elif isinstance(item, dict):
            stack.extend(reversed(list(item.values())))
        elif isinstance(item, list):
            stack.extend(reversed(item))


def _parsed(text: str) -> Any:
    """``text`` as JSON, or None when it is not (or is nested past what the parser takes)."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


class _Needles:
    """The normalised texts a message may quote, indexed by where a match can begin, so a
    message costs a look-up per word rather than a search per text (an erasure of many
    messages looks for each one's text in every other).

    A text that starts with a letter or digit cannot start inside a word, so it can only
    begin where one of the message's words begins, and that word is the text's own leading
    word (the text cannot end inside a word either, and what follows its leading word is
    not a letter or digit). Such texts are filed under their leading word; the others under
    their first character, looked for wherever that character occurs. Either way the
    candidates are found one look-up of their opening per length of the texts filed there
    (up to the room left in the message), and only those whose opening is there are
    compared in full: comparing every long text in full at each place its first word occurs
    would cost a long message the square of its length."""

    def __init__(self, texts: Iterable[str]) -> None:
        by_word: dict[str, _Filed] = {}
        by_char: dict[str, _Filed] = {}
        for needle in {n for n in map(_norm, texts) if n}:
            word = _WORD.match(needle)
            table, key = (by_word, word.group()) if word else (by_char, needle[0])
            by_opening = table.setdefault(key, {}).setdefault(len(needle), {})
            by_opening.setdefault(needle[:_OPENING], []).append(needle)
        self._by_word = _shortest_first(by_word)
        self._by_char = _shortest_first(by_char)

    def __bool__(self) -> bool:
        return bool(self._by_word or self._by_char)

    def quoted_in(self, haystack: str) -> bool:
        """Whether ``haystack`` contains one of the texts, neither starting nor ending
        inside a word."""
        text = _norm(haystack)
        if self._by_word:
            for word in _WORD.finditer(text):
                groups = self._by_word.get(word.group())
                if groups is not None and _match_at(text, word.start(), groups):
                    return True
        for char, groups in self._by_char.items():
            start = text.find(char)
            while start >= 0:
                if _match_at(text, start, groups):
                    return True
                start = text.find(char, start + 1)
        return False


def _shortest_first(table: dict[str, _Filed]) -> dict[str, list[_Group]]:
    """Each key's texts in groups of one length, shortest first, so that a search can stop
    at the first too long for the rest of the message."""
    return {key: sorted((length, min(length, _OPENING), by_opening)
                        for length, by_opening in by_length.items())
            for key, by_length in table.items()}


def _match_at(text: str, start: int, groups: list[_Group]) -> bool:
    """Whether one of ``groups`` (texts by length, shortest first) is at ``start`` in
    ``text`` and does not end inside a word (that it does not start inside one, the caller
    knows)."""
    room = len(text) - start
    for length, opening, by_opening in groups:
        if length > room:
            break
        for needle in by_opening.get(text[start:start + opening], ()):
            if text.startswith(needle, start) and not _cuts(text, start + length, needle[-1]):
                return True
    return False


def _cuts(text: str, index: int, edge: str) -> bool:
    """Whether the character at ``index`` continues the word the needle's ``edge`` is in."""
    return 0 <= index < len(text) and edge.isalnum() and text[index].isalnum()


def quoting(messages: Iterable[Message], texts: Iterable[str]) -> list[Message]:
    """Those of ``messages`` that quote one of ``texts`` (module docstring)."""
    needles = _Needles(texts)
    if not needles:
        return []
    return [m for m in messages if any(map(needles.quoted_in, message_strings(m)))]


def quoting_copies(turns: Iterable[Message], texts: Iterable[str],
                   retiring: Iterable[Message], retired: Iterable[str]) -> list[Message]:
    """In id order, those of ``turns`` (the turns holding what goes) quoting one of
    ``texts``, and those of ``retiring`` (the turns that last moved a fact taken out of
    core) that the model wrote and that quote one of ``retired``, those facts' texts
    (module docstring)."""
    found = {m.id: m for m in quoting(turns, texts)}
    found.update((m.id, m) for m in quoting(retiring, retired) if m.role != "user")
    return sorted(found.values(), key=lambda m: m.id)
