"""Text that can always be stored and sent: no lone surrogates, no NUL characters.

SQLite stores text as UTF-8 and requests to a model are UTF-8 JSON. A lone
surrogate (half of a UTF-16 pair, which JSON's ``\\ud800`` escape produces)
cannot be encoded as either, so one such character in a tool result or a reply
would fail the whole turn; NUL is refused by the store's input checks. Text
that tiermem generates or relays passes through ``safe_text`` first.
"""

from __future__ import annotations

import json
import re
from typing import Any

_SURROGATE = re.compile("[\ud800-\udfff]")
REPLACEMENT = "\ufffd"


def safe_text(text: str) -> str:
    """``text`` with every lone surrogate replaced by U+FFFD and NUL characters dropped."""
    if text.isascii():
        return text.replace("\x00", "") if "\x00" in text else text
    return _SURROGATE.sub(REPLACEMENT, text.replace("\x00", ""))


def lone_surrogate_at(text: str) -> int | None:
    """The index of the first lone surrogate in ``text``, or None when it encodes as UTF-8."""
    if text.isascii():
        return None
    found = _SURROGATE.search(text)
    return None if found is None else found.start()


def clipped(text: str, limit: int, what: str = "text") -> str:
    """``text`` cut to at most ``limit`` characters, ending with a marker that says so."""
    if len(text) <= limit:
        return text
    marker = (f"\n[truncated: the {what} was {len(text):,} characters, over the {limit:,} "
              f"that can be stored; the rest was dropped]")
    return text[: max(0, limit - len(marker))] + marker


def storable_calls(calls: list[dict[str, Any]] | None, limit: int) -> list[dict[str, Any]] | None:
    """Tool calls whose JSON fits in ``limit`` characters, the longest arguments cut (with
    ``clipped``'s marker) until it does: a model may send arguments far longer than any
    text a memory stores, and the assistant message that carries them must still be kept."""
    if not calls or len(json.dumps(calls)) <= limit:
        return calls
    cut = [dict(call, function=dict(call.get("function") or {})) for call in calls]
    for _ in range(8 * len(cut)):  # each round cuts the longest arguments by the excess
        excess = len(json.dumps(cut)) - limit
        if excess <= 0:
            break
        longest = max(cut, key=lambda c: len(json.dumps(c["function"].get("arguments"))))
        arguments = str(longest["function"].get("arguments") or "")
        # JSON may write one character as up to 12: cut in proportion to what it takes.
        encoded = len(json.dumps(arguments))
        keep = len(arguments) * max(0, encoded - excess - 256) // max(encoded, 1)
        longest["function"]["arguments"] = clipped(arguments, keep, "tool-call argument text")
    return cut
