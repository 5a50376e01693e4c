"""The wait a refusal's body asks for, when a server says it there rather than in a header.

Google's Gemini API (its OpenAI-compatible endpoint among them) answers a rate limit with a
429 that has no ``Retry-After`` header: its message ends "Please retry in 17.5s." and its
details may hold a ``RetryInfo`` whose ``retryDelay`` is "17s". Both are durations as Go
prints them ("2h47m56.58s", "850ms"). OpenAI and Groq word theirs "Please try again in
4m48s.", which a proxy handing their error on may send with no header. ``body_wait`` reads
any of them, for the client to wait as it waits for a ``Retry-After``
(agent/retry_after.py's ``retry_after_seconds``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping
from typing import Any

__all__ = ["LONGEST_WAIT", "body_wait", "wait_words"]

_UNITS = {"d": 86400.0, "h": 3600.0, "m": 60.0, "s": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6,
          "ns": 1e-9}
# A unit as Go prints it, or as a person writes it ("5 minutes", "30 sec", "1 day"), by its
# first letters; a unit goes on to no other letter ("5mins" is 5 minutes, "5 mice" no wait).
_WORDS = {**{unit: unit for unit in _UNITS}, "day": "d", "hour": "h", "hr": "h",
          "minute": "m", "min": "m", "second": "s", "sec": "s", "millisecond": "ms"}
_UNIT = (r"(?:ms|us|µs|ns|d|h|m|s|millisecond|day|hour|hr|minute|min|second|sec)"
         r"(?:s)?(?![a-zµ])")
_PART = re.compile(rf"(\d+(?:\.\d+)?) ?({_UNIT})", re.IGNORECASE)
# Parts follow each other as Go prints them ("1h30m"), or as a person joins them ("1 hour and
# 30 minutes"); a comma alone ends the wait ("in 20s, 1 min window") whatever follows it.
_DURATION = rf"(?:{_PART.pattern}(?:,? and | )?)+"
# Gemini's "Please retry in 17.5s."; OpenAI's and Groq's "Please try again in 4m48s.".
_RETRY_IN = re.compile(rf"\bplease (?:retry|try again) in ({_DURATION})", re.IGNORECASE)
_WHOLE = re.compile(rf"\s*({_DURATION})\s*")
#: The longest wait read: a longer one (or digits beyond a float's range) is no less long.
LONGEST_WAIT = 366 * 86400.0
# How deep into the body's objects and lists a wait is looked for, and how many items of a list.
_DEPTH = 5
_ITEMS = 8


def body_wait(body: Any) -> float | None:
    """The seconds ``body`` (a refusal's parsed JSON, or its text) asks to wait before the
    request is sent again, the longest when it asks more than once; None when it asks none,
    or nothing."""
    asked = [seconds for said in _said(body, 0)
             if (seconds := _seconds(said)) is not None and seconds > 0]
    return max(asked) if asked else None


def _said(value: Any, depth: int) -> Iterator[str]:
    """The durations ``value`` asks, as written: in a text's "Please retry in ...", or as a
    ``retryDelay``."""
    if depth > _DEPTH:
        return
    if isinstance(value, str):
        yield from (match.group(1) for match in _RETRY_IN.finditer(value))
    elif isinstance(value, Mapping):
        for key, item in value.items():
            if key == "retryDelay" and isinstance(item, str):
                whole = _WHOLE.fullmatch(item)
                if whole is not None:
                    yield whole.group(1)
            else:
                yield from _said(item, depth + 1)
    elif isinstance(value, list):
        for item in value[:_ITEMS]:
            yield from _said(item, depth + 1)


def _seconds(duration: str) -> float | None:
    total = sum(float(number) * _UNITS[_unit(unit)] for number, unit in _PART.findall(duration))
    return min(total, LONGEST_WAIT)


def _unit(written: str) -> str:
    """The Go unit a unit as written ("minutes", "Sec", "ms") stands for."""
    unit = written.lower()
    return unit if unit in _UNITS else _WORDS[unit.removesuffix("s")]


def wait_words(seconds: float) -> str:
    """A long wait as a person reads it: "2 h 48 min", "3 min 20 s", "3.5 days"."""
    if seconds >= LONGEST_WAIT:
        return "more than a year"
    whole = math.ceil(seconds)
    if whole >= 2 * 86400:
        return f"{whole / 86400:.3g} days"
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours} h {minutes} min" if minutes else f"{hours} h"
    if minutes:
        return f"{minutes} min {secs} s" if secs else f"{minutes} min"
    return f"{secs} s"
