"""A loopback server that answers OpenAI chat-completion requests from a script.

The fault harness points the real client (the ``openai`` package over a real
socket) at it and scripts failures a provider can produce: error statuses,
bodies that are not completions, a body cut short, an answer that never
comes. Nothing leaves 127.0.0.1.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

#: A hanging answer gives up after this long even if nobody closes the server.
HANG_LIMIT_S = 60.0


@dataclass
class Answer:
    """One scripted HTTP answer."""

    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    #: Announce this many bytes but send only ``body``, then close: a truncated body.
    declared_length: int | None = None
    #: Read the request and never answer.
    hang: bool = False


def completion_body(message: Any, usage: Any = None, choices: Any = None) -> bytes:
    """A chat completion carrying ``message`` (or exactly the ``choices`` given)."""
    payload = {
        "id": "chatcmpl-loopback", "object": "chat.completion", "created": 0,
        "model": "loopback-model",
        "choices": choices if choices is not None else [
            {"index": 0, "message": message, "finish_reason": "stop", "logprobs": None}],
        "usage": usage if usage is not None else {
            "prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }
    return json.dumps(payload).encode()


def reply(text: str) -> Answer:
    return Answer(body=completion_body({"role": "assistant", "content": text}),
                  headers={"Content-Type": "application/json"})


def tool_calls(*calls: tuple[str, str]) -> Answer:
    message = {"role": "assistant", "content": None, "tool_calls": [
        {"id": f"call_{i}", "type": "function", "function": {"name": name, "arguments": args}}
        for i, (name, args) in enumerate(calls)]}
    return Answer(body=completion_body(message), headers={"Content-Type": "application/json"})


class LoopbackOpenAI:
    """Answers ``POST /v1/chat/completions`` with queued ``Answer``s, in order."""

    def __init__(self) -> None:
        self.requests = 0
        self._answers: deque[Answer] = deque()
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    def __enter__(self) -> LoopbackOpenAI:
        handler = type("Handler", (_Handler,), {"server_side": self})
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever,
                                        kwargs={"poll_interval": 0.02}, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._httpd is None:
            return
        self._closing.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join()
        self._httpd = None

    @property
    def base_url(self) -> str:
        assert self._httpd is not None, "use the server as a context manager"
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def push(self, *answers: Answer) -> None:
        with self._lock:
            self._answers.extend(answers)

    def clear(self) -> None:
        with self._lock:
            self._answers.clear()

    def _next(self) -> Answer:
        with self._lock:
            self.requests += 1
            if self._answers:
                return self._answers.popleft()
        body = json.dumps({"error": {"message": "no answer is scripted", "type": "server_error"}})
        return Answer(status=500, body=body.encode(), headers={"Content-Type": "application/json"})


class _Handler(BaseHTTPRequestHandler):
    server_side: LoopbackOpenAI

    def log_message(self, format: str, *args: Any) -> None:
        pass  # the harness reports what matters

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        answer = self.server_side._next()
        if answer.hang:
            self.server_side._closing.wait(HANG_LIMIT_S)
            self.close_connection = True
            return
        self.send_response(answer.status)
        for name, value in answer.headers.items():
            self.send_header(name, value)
        length = answer.declared_length if answer.declared_length is not None else len(answer.body)
        self.send_header("Content-Length", str(length))
        self.send_header("Connection", "close")
        self.end_headers()
        try:
            self.wfile.write(answer.body)
            self.wfile.flush()
        except OSError:
            pass  # the client gave up first
        self.close_connection = True
