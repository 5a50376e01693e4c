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

A web page (HTML) where a completion's JSON should be is no model's failure:
the base URL is a web UI's, or not the API root. ``web_page_error`` says so,
with the URL to try; ``not_json_error`` words an event stream or plain text.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import urlsplit, urlunsplit

from tiermem.agent.errors import ProviderError
from tiermem.tools.safe_text import safe_text

__all__ = ["PLACE_HINT", "Refusal", "RefusalKind", "begins", "classify_refusal", "is_web_page",
           "key_refusal", "not_json_error", "page_title", "server_message", "web_page_error"]

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
    r"(?:maximum context length is|context size \(|context window (?:is|of)|n_ctx\W{1,3}"
    # LM Studio: "... loaded with context length of only 4096 tokens"
    r"|context length of(?: only)?)"
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


def is_web_page(content_type: str, text: str) -> bool:
    """Whether an answer is an HTML page rather than an API's JSON."""
    return "html" in content_type.lower() or text.lstrip()[:1] == "<"


_TITLE = re.compile(r"<(title|h1)\b[^>]*>(.*?)</\1\s*>", re.IGNORECASE | re.DOTALL)
_TAG = re.compile(r"<[^>]*>")
# What a page's scripts, styles and comments hold is no title, even when it reads as one.
_UNSHOWN = re.compile(r"<!--.*?(?:-->|$)|<(script|style)\b.*?(?:</\1\s*>|$)",
                      re.IGNORECASE | re.DOTALL)


def page_title(text: str) -> str:
    """A web page's title (else its first heading), as plain text on one line, its
    entities read ("&amp;" as "&"), clipped; "" if it has neither. An error page says what
    it is there ("502 Bad Gateway"), while its markup quoted whole would bury that."""
    found = _TITLE.search(_UNSHOWN.sub(" ", text))
    return clip(html.unescape(_TAG.sub(" ", found.group(2))), 80) if found else ""


def web_page_error(url: str, attempts: int, status: int | None = None) -> ProviderError:
    """The error for a web page that ``url``'s chat endpoint answered with (``status``: the
    HTTP status of a refusal, e.g. a web UI's 405 to a POST): its hint points at the URL,
    which sending again or another model cannot fix."""
    parts = urlsplit(url)
    if parts.path.rstrip("/").endswith("/v1"):
        where = f"{url} may be a web UI's address, not the model server's"
        root, check = "the server's own API root (its port, ending in /v1)", "URL"
    else:
        check = urlunsplit((parts.scheme, parts.netloc, "/v1", "", ""))
        where = f"{url} does not end in /v1"
        root = f"the server's API root (it ends in /v1; perhaps {check})"
    answered = "a web page (HTML)" if status is None else f"HTTP {status} and a web page (HTML)"
    return ProviderError(
        f"{url}/chat/completions answered with {answered}, not an OpenAI-compatible "
        f"API's JSON: check that --base-url is the server's API root (it ends in /v1)",
        kind="bad_response", retryable=False, status_code=status, attempts=attempts,
        hint=(f"check the URL, not the model: {where}; set --base-url (or OPENAI_BASE_URL) to "
              f"{root}, and check it with `tiermem doctor --base-url {check}`"))


def not_json_error(url: str, attempts: int, content_type: str, text: str) -> ProviderError:
    """The error for an answer to a chat request that is neither JSON nor a web page: an
    event stream (the server, or a proxy before it, streams every answer although the
    request asks for one whole reply), or plain text. No model, and no sending again,
    changes either."""
    if "event-stream" in content_type.lower() or text.lstrip().startswith("data:"):
        return ProviderError(
            f"{url}/chat/completions answered with an event stream (server-sent events), "
            f"not one JSON reply, although the request asked for one (stream: false)",
            kind="bad_response", retryable=False, attempts=attempts,
            hint=("the server, or a proxy in front of it, streams every answer: turn its "
                  "forced streaming off, or point --base-url at an endpoint that honours "
                  "stream: false"))
    shown = clip(" ".join(text.split()), 80) or "an empty body"
    return ProviderError(
        f"{url}/chat/completions answered with {content_type or 'no content type'} "
        f"({shown!r}), not an OpenAI-compatible API's JSON",
        kind="bad_response", retryable=False, attempts=attempts,
        hint=(f"check the URL, not the model: set --base-url (or OPENAI_BASE_URL) to the "
              f"server's API root, and check it with `tiermem doctor --base-url {url}`"))


_MODEL_DENIED = re.compile(r"\bnot allowed to access model\b", re.IGNORECASE)
# Google's words for a key it does not know, which it sends as a 400: its message begins so
# (a message quoting a prompt that says them is no such refusal).
_KEY_INVALID = re.compile(r"API key not valid\b", re.IGNORECASE)


# OpenAI's 403 (code "unsupported_country_region_territory") and Gemini's 400 for a request
# from a country or region they do not serve; also as a proxy hands them on (``begins``).
_PLACE = re.compile(r"country, region, or territory not supported|user location is not "
                    r"supported", re.IGNORECASE)
#: What to do when a service refused requests from where they come from.
PLACE_HINT = ("the service serves no requests from where this machine reaches it (the country "
              "of its address, or of a VPN or proxy it goes through): set --base-url to a "
              "server that does, a local one (Ollama, llama.cpp) among them, then send it again")


def key_refusal(status: int | None,
                body: Any) -> Literal["key", "model", "place"] | None:
    """What a 400, 401 or 403 refused: the API key itself ("key": OpenAI's "Incorrect API key
    provided", or Google's 400 "API key not valid"), or this model to the key ("model": a
    LiteLLM proxy's "key not allowed to access model", of type "key_model_access_denied",
    which it sends as a 401 or a 403; any other 403), or the country or region the request
    comes from ("place": OpenAI's 403 "unsupported_country_region_territory", Gemini's 400
    "User location is not supported"), which no key or model changes; None for another
    refusal."""
    body = _one(body)
    if status in (400, 403) and begins(_PLACE, body):
        return "place"
    if status == 400:
        return "key" if _KEY_INVALID.match(server_message(body)) else None
    if status not in (401, 403):
        return None
    inner = body.get("error", body) if isinstance(body, Mapping) else body
    if isinstance(inner, Mapping) and "key_model_access_denied" in (inner.get("type"),
                                                                   inner.get("code")):
        return "model"
    if _MODEL_DENIED.search(_flat(body)):
        return "model"
    return "key" if status == 401 else "model"


# A LiteLLM proxy's name for the exception it hands on, before the provider's words:
# "litellm.PermissionDeniedError: OpenAIException - ", "litellm.BadRequestError: ".
_PROXY_NAME = re.compile(r"litellm\.\w+:\s*(?:\w+(?: \w+)? - )?")


def begins(pattern: re.Pattern[str], body: Any) -> bool:
    """Whether ``pattern`` begins the server's message in ``body``, or begins it after a
    LiteLLM proxy's name of the exception, or begins the message of a provider's error that a
    proxy quotes whole (OpenRouter's "Provider returned error" and its "raw"; a message that
    is the provider's JSON). Words further on may quote the request (a validation error's
    "input" holds the prompt), and tell nothing of the refusal."""
    return any(pattern.match(said) for said in _messages(body, 0))


def _messages(body: Any, depth: int) -> Iterator[str]:
    body = _one(body)
    inner = body.get("error", body) if isinstance(body, Mapping) else body
    if isinstance(inner, Mapping):
        metadata = inner.get("metadata")
        said = [inner.get("message"), metadata.get("raw") if isinstance(metadata, Mapping)
                else None]
    else:
        said = [inner]
    for text in said:
        if not isinstance(text, str):
            continue
        named = _PROXY_NAME.match(text.strip())
        text = text.strip()[named.end() if named else 0:]
        yield text
        if depth < 2 and text[:1] in ("{", "["):
            try:
                quoted = json.loads(text)
            except ValueError:
                continue
            yield from _messages(quoted, depth + 1)


def _one(body: Any) -> Any:
    """``body``, or the error in it when it is a list of one, as Google's APIs send it."""
    return body[0] if isinstance(body, list) and len(body) == 1 else body


def server_message(body: Any) -> str:
    """The server's own words in an error body, on one line and clipped; "" if none."""
    body = _one(body)
    if isinstance(body, Mapping):
        inner = body.get("error")
        if isinstance(inner, Mapping):
            body = inner
        message = body.get("message") or body.get("error") or body.get("detail")
        if isinstance(message, Mapping):  # a detail holding the server's own error body
            message = message.get("message") or message.get("error")
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
