"""The recall messages that quote what a forget or an erasure takes, so they go with it.

A turn repeats what was said in it: the model's tool calls carry the fact they
store (``core_memory_append``'s arguments), tool results echo it, and the reply
quotes them. Taking the user's message and the facts learned from it would
leave the same text in those messages, so ``forget`` (tombstones) and ``erase``
(deletion) take them too:

- **Where.** The messages of the turns that hold what was taken: the messages
  named, and the messages the facts and passages taken were learned or filed
  from (``source_message_id``). Messages of other turns are not searched.
- **What quotes.** A message quotes a text when its content, or a string value
  in the arguments of one of its tool calls, contains the text: case and runs of
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
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from tiermem.memory.store.records import Message

__all__ = ["message_strings", "quotes", "quoting"]

_SPACE = re.compile(r"\s+")


def _norm(text: str) -> str:
    return _SPACE.sub(" ", text).strip().casefold()


def message_strings(message: Message) -> Iterator[str]:
    """Every text a message holds: its content and the string values of its tool calls'
    arguments (the arguments themselves when they are not JSON)."""
    yield message.content
    for call in message.tool_calls or ():
        function = call.get("function") if isinstance(call, dict) else None
        arguments = function.get("arguments") if isinstance(function, dict) else None
        if isinstance(arguments, str):
            try:
                parsed: Any = json.loads(arguments)
            except ValueError:
                yield arguments
                continue
            yield from _strings(parsed)
        elif arguments is not None:
            yield from _strings(arguments)


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def quotes(haystack: str, needles: Sequence[str]) -> bool:
    """Whether ``haystack`` contains one of ``needles`` (normalised already, non-empty),
    neither starting nor ending inside a word."""
    text = _norm(haystack)
    for needle in needles:
        start = text.find(needle)
        while start >= 0:
            end = start + len(needle)
            if not (_cuts(text, start - 1, needle[0]) or _cuts(text, end, needle[-1])):
                return True
            start = text.find(needle, start + 1)
    return False


def _cuts(text: str, index: int, edge: str) -> bool:
    """Whether the character at ``index`` continues the word the needle's ``edge`` is in."""
    return 0 <= index < len(text) and edge.isalnum() and text[index].isalnum()


def quoting(messages: Iterable[Message], texts: Iterable[str]) -> list[Message]:
    """Those of ``messages`` that quote one of ``texts`` (module docstring)."""
    needles = sorted({n for n in map(_norm, texts) if n}, key=len)
    if not needles:
        return []
    return [m for m in messages if any(quotes(s, needles) for s in message_strings(m))]
