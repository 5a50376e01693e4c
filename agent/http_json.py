"""Small bounded JSON requests to a model server, outside the chat client.

Asking a server about itself (agent/server_facts.py) and probing what it can do
(``tiermem doctor``) need exact control over the request body and the raw
answer, and must never retry; the standard library is enough for that.
Every call has a timeout, and an answer of any status is returned, not
raised: only a server that cannot be reached at all raises ``Unreachable``.
"""

from __future__ import annotations

import base64
import email.message
import http.client
import json
import socket
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlsplit, urlunsplit

from tiermem.agent.errors import ProviderError
from tiermem.agent.server_errors import server_message
from tiermem.memory.store.location_text import without_password

#: The most of an answer read: enough for any listing or completion a probe asks for.
MAX_BODY_BYTES = 4 * 1024 * 1024


class Unreachable(Exception):
    """No answer: the connection was refused, the host is unknown, it timed out, or it
    closed before the answer announced was whole."""


@dataclass
class Answer:
    """One HTTP answer: its status, its body parsed as JSON (None if it is not), its text."""

    status: int
    body: Any
    text: str
    seconds: float
    headers: dict[str, str]

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300


def _request(method: str, url: str, payload: Any, headers: dict[str, str] | None
             ) -> urllib.request.Request:
    data = None if payload is None else json.dumps(payload).encode()
    merged = {"Accept": "application/json", **(headers or {})}
    if data is not None:
        merged["Content-Type"] = "application/json"
    # urllib cannot send a URL's user:password@; the chat client (httpx) sends it as Basic
    # authentication, and so does this.
    parts = urlsplit(url)
    if parts.username is not None or parts.password is not None:
        pair = f"{unquote(parts.username or '')}:{unquote(parts.password or '')}"
        merged["Authorization"] = "Basic " + base64.b64encode(pair.encode()).decode()
        url = urlunsplit(parts._replace(netloc=parts.netloc.rpartition("@")[2]))
    return urllib.request.Request(url, data=data, headers=merged, method=method)


def shown_url(url: str) -> str:
    """``url`` as messages show it: a password in it as ``***``."""
    return without_password(url, url)


def without_secrets(text: str, *secrets: str | None) -> str:
    """``text`` with each of ``secrets`` (an API key, a URL's password) shown as ``***``:
    a server may quote a request's credentials back in its error."""
    for secret in secrets:
        if secret and len(secret) >= 4:
            text = text.replace(secret, "***")
    return text


def error_without_secrets(error: ProviderError, secrets: tuple[str | None, ...]) -> ProviderError:
    """``error`` with ``secrets`` hidden in its message and hint (without_secrets)."""
    message = without_secrets(error.message, *secrets)
    if message != error.message:
        error.message = message
        error.args = (message, *error.args[1:])
    if error.hint:
        error.hint = without_secrets(error.hint, *secrets)
    return error


def _describe(exc: BaseException) -> str:
    reason = getattr(exc, "reason", exc)
    if isinstance(reason, TimeoutError | socket.timeout):
        return "no answer within the timeout"
    return str(reason) or type(reason).__name__


def _whole(response: Any) -> bytes:
    """The body of ``response`` (or an HTTPError's), up to ``MAX_BODY_BYTES``; Unreachable
    when the connection closed before the Content-Length it announced: the server stopped
    answering part way through."""
    raw: bytes = response.read(MAX_BODY_BYTES)
    left = getattr(response, "length", None)  # of the length announced, what never came
    if isinstance(left, int) and left > 0 and len(raw) < MAX_BODY_BYTES:
        raise Unreachable(f"the connection closed after {len(raw)} of the {len(raw) + left} "
                          f"bytes announced")
    return raw


def request_json(method: str, url: str, payload: Any = None, *, timeout: float,
                 headers: dict[str, str] | None = None) -> Answer:
    """Send one request and read the whole answer, whatever its status."""
    started = time.perf_counter()
    try:
        with urllib.request.urlopen(_request(method, url, payload, headers),
                                    timeout=timeout) as response:
            status, raw = response.status, _whole(response)
            answer_headers = {k.lower(): v for k, v in response.headers.items()}
    except urllib.error.HTTPError as exc:
        # A refusal's body cut short is no answer either: its message may be cut mid-word.
        status, raw = exc.code, _whole(exc) if exc.fp is not None else b""
        answer_headers = {k.lower(): v for k, v in (exc.headers or {}).items()}
    except (urllib.error.URLError, OSError, ValueError) as exc:
        # URLError: refused or unknown host; OSError: reset or timed out mid-read;
        # ValueError: a URL urllib cannot use.
        raise Unreachable(_describe(exc)) from exc
    text = _decoded(raw, answer_headers.get("content-type", ""))
    try:
        body = json.loads(text) if text.strip() else None
    except ValueError:
        body = None
    return Answer(status, body, text, time.perf_counter() - started, answer_headers)


def _decoded(raw: bytes, content_type: str) -> str:
    """``raw`` as text in the charset ``content_type`` names (a proxy's page in
    "iso-8859-1", say), when it is a text encoding Python knows; else as UTF-8, as JSON is."""
    message = email.message.Message()
    message["content-type"] = content_type
    try:
        return raw.decode(message.get_content_charset() or "utf-8", errors="replace")
    except LookupError:  # unknown, or no text encoding ("base64")
        return raw.decode("utf-8", errors="replace")


@dataclass
class StreamStart:
    """A streamed request up to its first content: the status, and when what came."""

    status: int
    #: Seconds from sending to the first event that carries text or a tool call.
    first_token_seconds: float | None
    events: int
    text: str
    #: Why the stream stopped part way, with no content and before its end; "" if it did not.
    cut: str = ""
    #: The error the server sent in the stream before any content, in its words; "" if none.
    error: str = ""


def first_streamed_token(url: str, payload: dict[str, Any], *, timeout: float,
                         headers: dict[str, str] | None = None) -> StreamStart:
    """Send a streaming chat request; stop reading at its first content-bearing event. A
    stream that stops before it (and before its ``[DONE]`` or a ``finish_reason``) because
    the connection closed says so in ``cut``; one that carries an error event before it
    (llama.cpp's ``error:`` field, ``data: {"error": ...}``, or the data of an ``event: error``)
    gives its words in ``error``."""
    started = time.perf_counter()
    try:
        response = urllib.request.urlopen(
            _request("POST", url, {**payload, "stream": True}, headers), timeout=timeout)
    except urllib.error.HTTPError as exc:
        text = exc.read(MAX_BODY_BYTES).decode("utf-8", errors="replace") if exc.fp else ""
        return StreamStart(exc.code, None, 0, text)
    except (urllib.error.URLError, OSError, ValueError) as exc:
        raise Unreachable(_describe(exc)) from exc
    events, ended = 0, False
    try:
        with response:
            for field, data in _sse_fields(response):
                said = _stream_error(field, data)
                if said is not None:
                    return StreamStart(response.status, None, events, "", error=said)
                if data == "[DONE]":
                    return StreamStart(response.status, None, events, "")
                events += 1
                if _carries_content(data):
                    return StreamStart(response.status, time.perf_counter() - started,
                                       events, data)
                ended = ended or _finishes(data)
            left = getattr(response, "length", None)  # of the length announced, what never came
            if isinstance(left, int) and left > 0:
                cut = f"the connection closed with {left} bytes announced still to come"
            elif events and not ended:
                cut = "the connection closed before the stream's end ([DONE])"
            else:
                cut = ""
            return StreamStart(response.status, None, events, "", cut)
    except http.client.HTTPException as exc:  # a chunk cut short (IncompleteRead)
        return StreamStart(response.status, None, events, "",
                           f"the connection closed part way through a chunk ({exc!r})")
    except OSError as exc:
        raise Unreachable(_describe(exc)) from exc


def _sse_fields(response: Any) -> Iterator[tuple[str, str]]:
    """Each ``data`` (``[DONE]`` among them) and ``error`` field of the stream, with its
    value; the data of an event typed ``event: error`` comes as an ``error`` field."""
    kind = ""
    for raw_line in response:
        line = raw_line.decode("utf-8", errors="replace").strip()
        field, colon, value = line.partition(":")
        if not line:
            kind = ""  # a blank line ends the event, and its type with it
        elif colon and field == "event":
            kind = value.strip()
        elif colon and field in ("data", "error"):
            yield "error" if kind == "error" else field, value.strip()


def _stream_error(field: str, data: str) -> str | None:
    """The server's words if the field is an error (its text whole if it has no message);
    None if it is not one."""
    try:
        event: Any = json.loads(data)
    except ValueError:
        event = data
    if field == "error":
        return server_message(event) or data
    # "error": null (or empty) beside no choices yet says there is none.
    if isinstance(event, dict) and event.get("error") and not event.get("choices"):
        return server_message(event) or data
    return None


def _finishes(data: str) -> bool:
    """Whether the event ``data`` ends the answer (a ``finish_reason``): a stream may end
    there without ``[DONE]``."""
    try:
        event = json.loads(data)
    except ValueError:
        return False
    choices = event.get("choices") if isinstance(event, dict) else None
    return isinstance(choices, list) and any(
        isinstance(choice, dict) and choice.get("finish_reason") for choice in choices)


def _carries_content(data: str) -> bool:
    try:
        event = json.loads(data)
    except ValueError:
        return False
    choices = event.get("choices") if isinstance(event, dict) else None
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        return False
    delta = choices[0].get("delta")
    if not isinstance(delta, dict):
        return False
    return bool(delta.get("content") or delta.get("tool_calls")
                or delta.get("reasoning_content"))
