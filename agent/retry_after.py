"""How long a refusal asks the client to wait before the request is sent again.

``retry_after_seconds`` reads a ``Retry-After`` or ``retry-after-ms`` header, or a wait the
body asks (agent/body_waits.py); ``asked_wait`` the same of an answer the doctor read.
"""

from __future__ import annotations

import email.utils
import math
import time
from typing import Any

from tiermem.agent.body_waits import LONGEST_WAIT, body_wait, wait_words

__all__ = ["asked_wait", "long_wait_hint", "retry_after_seconds"]


def retry_after_seconds(exc: Exception) -> float | None:
    """The wait the refusal ``exc`` (the ``openai`` package's) asked for (``asked_wait``)."""
    response = getattr(exc, "response", None)
    return asked_wait(getattr(exc, "status_code", None), getattr(response, "headers", None),
                      getattr(exc, "body", None))


def asked_wait(status: int | None, headers: Any, body: Any) -> float | None:
    """The wait a 429/503 response (its ``status``, ``headers`` and parsed ``body``) asked
    for, in seconds, or None: also for a wait of nothing (``Retry-After: 0``, or a date
    passed), which leaves the client's own wait. A response with both ``retry-after-ms`` and
    ``Retry-After`` asks the longer: OpenAI's agree (the seconds rounded up), and a
    ``retry-after-ms: 0`` beside a real ``Retry-After`` is a proxy's default, not the
    server's wish. A wait a 429's body asks (Gemini's "Please retry in 17.5s.", with no
    header) counts as a header's; another failure's body is no server's wish (a 500 may
    quote the prompt it failed on)."""
    asked = [seconds for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0))
             if headers is not None
             and (seconds := _header_seconds(headers.get(name), scale, name)) is not None]
    in_body = body_wait(body) if status == 429 else None
    if in_body is not None:
        asked.append(in_body)
    return max(asked) if asked and max(asked) > 0 else None


def long_wait_hint(seconds: float, status: int | None) -> str:
    """What to do when a server refused with ``status`` and asked to wait ``seconds``, longer
    than the minute a client waits: no request sent sooner can pass. Only a 429 asking hours
    is a quota for the day or the hour; minutes are a limit on requests or tokens that lifts
    sooner (Groq's tokens per minute ask "1m12s", its tokens per day "4m48s"), and a 503's
    wait is a busy server's or its maintenance, no quota of the key."""
    wait = wait_words(seconds)
    if status != 429:
        return (f"the server is busy or down for maintenance, it seems: send it again in "
                f"{wait}, or use another --base-url")
    used = ("a quota for the day (or the hour) is used up" if seconds >= 3600
            else "a limit on requests or tokens is reached")
    return f"{used}, it seems: send it again in {wait}, or use another key or --base-url"


def _header_seconds(value: str | None, scale: float, name: str) -> float | None:
    """The seconds a header's ``value`` says, in units of ``scale`` seconds or (for
    ``Retry-After``) as an HTTP date; None when absent or unreadable."""
    if value is None:
        return None
    seconds: float | None
    try:
        seconds = float(value) * scale
    except ValueError:
        seconds = _http_date_delay(value) if name == "retry-after" else None
    # Digits beyond a float's range ask a wait no less long than the longest read.
    return None if seconds is None or math.isnan(seconds) else min(seconds, LONGEST_WAIT)


def _http_date_delay(value: str) -> float | None:
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return when.timestamp() - time.time()
