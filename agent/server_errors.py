"""Error responses that sending the same request again cannot change, read from their text.

Local servers do not always say with the status code what went wrong.
llama-cpp-python answers a request that fails its own validation (an
assistant message with ``content: null``) with HTTP 500 and a pydantic
message ("Input should be a valid string"); llama.cpp's server and vLLM say
"exceeds the available context size" or "maximum context length" with a 400.
Retrying either only repeats the failure, so the text of the body decides:

- ``context_exceeded``: the prompt is longer than the window the server runs
  with, whatever the status; the number it names, if any, is kept;
- ``bad_request``: a 400, 413 or 422, or a 5xx whose body is a validation error.

``classify_refusal`` is all the client and ``tiermem doctor`` need; everything
else a server answers is judged by its status code alone.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from tiermem.tools.safe_text import safe_text

__all__ = ["Refusal", "RefusalKind", "classify_refusal", "server_message"]

RefusalKind = Literal["context_exceeded", "bad_request"]

# Server error text is quoted in our messages; beyond this it is noise.
MAX_DETAIL = 300

_CONTEXT = re.compile(
    r"context[ _-]?(?:length|size|window)|maximum context|exceed\w*[ _]context|\bn_ctx\b"
    r"|prompt is too long|too many tokens",
    re.IGNORECASE,
)
# pydantic's and FastAPI's wording for a request body that does not fit the schema.
_VALIDATION = re.compile(
    r"validation errors?\b|input should be|field required|extra inputs are not permitted",
    re.IGNORECASE,
)
_WINDOW_NUMBER = re.compile(
    r"(?:maximum context length is|context size \(|context window (?:is|of)|n_ctx\W{1,3})"
    r"\s*(\d+)",
    re.IGNORECASE,
)
_REFUSED_STATUSES = frozenset({400, 413, 422})


@dataclass(frozen=True)
class Refusal:
    """Why a server refused a request for good: its ``kind``, its own ``message`` (clipped),
    and the ``context_window`` it named, when it named one."""

    kind: RefusalKind
    message: str
    context_window: int | None = None


def classify_refusal(status: int, body: Any) -> Refusal | None:
    """The refusal in an error response, or None when a retry may succeed (or the status
    code already says what happened: 401, 403, 404, 408, 429, and 5xx that are not
    validation errors).

    ``body`` is the response body, decoded JSON or text; an OpenAI-style
    ``{"error": {...}}`` wrapper may be present or already removed.
    """
    text = _flat(body)
    if _CONTEXT.search(text):
        return Refusal("context_exceeded", server_message(body), _window(body, text))
    if status in _REFUSED_STATUSES or (status >= 500 and _VALIDATION.search(text)):
        return Refusal("bad_request", server_message(body))
    return None


def server_message(body: Any) -> str:
    """The server's own words in an error body, on one line and clipped; "" if none."""
    if isinstance(body, Mapping):
        inner = body.get("error")
        if isinstance(inner, Mapping):
            body = inner
        message = body.get("message") or body.get("error") or body.get("detail")
        if isinstance(message, Mapping):
            message = message.get("message")
        if message:
            return clip(str(message))
        return ""
    if isinstance(body, str | bytes) and body.strip():
        return clip(body.decode(errors="replace") if isinstance(body, bytes) else body)
    return ""


def clip(text: str, limit: int = MAX_DETAIL) -> str:
    """``text`` made safe, on one line, and cut to ``limit`` characters with "..."."""
    text = " ".join(safe_text(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _flat(body: Any) -> str:
    if isinstance(body, bytes):
        return body.decode(errors="replace")
    if isinstance(body, str):
        return body
    try:
        return json.dumps(body, ensure_ascii=False, default=str)
    except (TypeError, ValueError, RecursionError):
        return str(body)


def _window(body: Any, text: str) -> int | None:
    if isinstance(body, Mapping):
        inner = body.get("error")
        fields = inner if isinstance(inner, Mapping) else body
        number = fields.get("n_ctx")
        if isinstance(number, int) and not isinstance(number, bool) and number > 0:
            return number
    found = _WINDOW_NUMBER.search(text)
    return int(found.group(1)) if found else None
