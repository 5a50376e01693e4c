"""A loopback HTTP server that speaks enough of the OpenAI API for client tests.

Tests of the LLM and embedding clients go through the real ``openai`` package
and a real socket, so request building, response parsing, status handling and
timeouts are all exercised, with no network::

    with FakeOpenAIServer() as server:
        server.enqueue_tool_calls([("archival_memory_search", '{"query": "tea"}')])
        client = OpenAIClient("fake-model", base_url=server.base_url)
        ...
        assert server.requests[0]["tools"] == tools

Chat completions answer from a queue of scripted responses, in order; when the
queue is empty, ``responder`` (if set) picks an answer from the request itself,
which is how recorded exchanges with real servers are replayed
(tests/server_recordings.py). With neither, the server answers HTTP 500 saying
so, which makes a test that calls the model more often than it scripted fail
loudly. Embeddings answer with deterministic vectors
(``fake_embedding``) unless an error or delay was queued for them.

To play a server with a character of its own (one that drops tools unless
``tool_choice`` is sent, say), set ``responder``: it answers every chat request
the queue does not. ``routes`` adds endpoints beside the OpenAI API (llama.cpp's
``GET /props``, Ollama's ``/api/ps``) and ``model_fields`` adds metadata to the
``/v1/models`` entry (``max_model_len``, llama-server's ``meta``).
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import struct
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

Endpoint = Literal["chat", "embeddings"]


def fake_embedding(text: str, dim: int = 8) -> list[float]:
    """The unit vector the fake server returns for ``text``: a pure function of text and dim."""
    values: list[float] = []
    counter = 0
    while len(values) < dim:
        digest = hashlib.sha256(f"{counter}:{text}".encode()).digest()
        for offset in range(0, len(digest), 4):
            (word,) = struct.unpack_from("<I", digest, offset)
            values.append(word / 0xFFFFFFFF * 2.0 - 1.0)
        counter += 1
    values = values[:dim]
    norm = math.sqrt(sum(v * v for v in values)) or 1.0
    return [v / norm for v in values]


@dataclass
class FakeResponse:
    """One scripted HTTP answer; ``delay`` seconds pass before it is sent."""

    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    #: For 200 chat answers built by the helpers: the message to wrap at request time.
    message: dict[str, Any] | None = None
    finish_reason: str = "stop"
    usage: tuple[int, int] | None = None
    #: Content-Length to announce instead of the body's; more than it sends = a cut-off body.
    declared_length: int | None = None
    #: Close the connection without sending anything (a server that crashed while answering).
    dropped: bool = False


class FakeOpenAIServer:
    """Chat completions and embeddings on ``127.0.0.1``, port chosen by the OS.

    ``requests`` holds every chat-completion request body (parsed JSON) and
    ``request_headers`` their headers, in arrival order; ``embedding_requests``
    the embedding request bodies.
    """

    def __init__(self, *, model: str = "fake-model", embedding_dim: int = 8) -> None:
        self.model = model
        self.embedding_dim = embedding_dim
        self.requests: list[dict[str, Any]] = []
        self.request_headers: list[dict[str, str]] = []
        self.embedding_requests: list[dict[str, Any]] = []
        #: Answers a chat request (its parsed body) when the queue is empty; None = no answer.
        self.responder: Callable[[dict[str, Any]], FakeResponse | None] | None = None
        #: Extra endpoints: (method, path) -> a JSON body served with 200, or a FakeResponse.
        self.routes: dict[tuple[str, str], dict[str, Any] | list[Any] | FakeResponse] = {}
        #: Merged into the model's entry in GET /v1/models.
        self.model_fields: dict[str, Any] = {}
        #: Every GET, and every POST outside /v1, as (method, path), in arrival order.
        self.other_requests: list[tuple[str, str]] = []
        self._queues: dict[Endpoint, deque[FakeResponse]] = {
            "chat": deque(),
            "embeddings": deque(),
        }
        self._lock = threading.Lock()
        self._arrived = threading.Condition(self._lock)
        self._stopping = threading.Event()
        self._counter = 0
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # lifecycle

    def start(self) -> FakeOpenAIServer:
        if self._httpd is not None:
            return self
        handler = type("_BoundHandler", (_Handler,), {"fake": self})
        httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        httpd.daemon_threads = True
        self._httpd = httpd
        # A short poll interval keeps shutdown() (which waits for the poll) quick.
        self._thread = threading.Thread(
            target=httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self._thread.start()
        return self

    def close(self) -> None:
        if self._httpd is None:
            return
        self._stopping.set()  # releases handlers sleeping in a delay
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._httpd = None
        self._thread = None

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError("FakeOpenAIServer is not running; use it as a context manager")
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    # scripting

    def wait_for_requests(self, count: int, timeout: float = 60.0) -> None:
        """Block until ``count`` chat requests have arrived (``timeout`` only bounds a failure)."""
        with self._arrived:
            if not self._arrived.wait_for(lambda: len(self.requests) >= count, timeout):
                raise AssertionError(f"only {len(self.requests)} of {count} chat requests "
                                     f"arrived within {timeout} s")

    @property
    def pending(self) -> int:
        """Chat responses queued and not yet served."""
        with self._lock:
            return len(self._queues["chat"])

    def enqueue(self, response: FakeResponse, *, endpoint: Endpoint = "chat") -> None:
        with self._lock:
            self._queues[endpoint].append(response)

    def enqueue_reply(
        self, text: str, *, usage: tuple[int, int] | None = None, finish_reason: str = "stop"
    ) -> None:
        """Answer the next chat request with plain text; ``usage`` is (prompt, completion)."""
        self.enqueue(
            FakeResponse(
                message={"role": "assistant", "content": text},
                finish_reason=finish_reason,
                usage=usage,
            )
        )

    def enqueue_tool_calls(
        self,
        calls: Sequence[tuple[str, str]],
        *,
        content: str | None = None,
        usage: tuple[int, int] | None = None,
    ) -> list[str]:
        """Answer with tool calls, each ``(name, arguments_json_text)`` sent verbatim.

        Returns the call ids the response will carry.
        """
        with self._lock:
            base = len(self.requests) + sum(len(q) for q in self._queues.values())
        # Nine letters and digits, the form every request sends (agent/wire_ids.py).
        ids = [f"fake{base:03d}{i:02d}" for i in range(len(calls))]
        tool_calls = [
            {"id": call_id, "type": "function", "function": {"name": name, "arguments": args}}
            for call_id, (name, args) in zip(ids, calls, strict=True)
        ]
        self.enqueue(
            FakeResponse(
                message={"role": "assistant", "content": content, "tool_calls": tool_calls},
                finish_reason="tool_calls",
                usage=usage,
            )
        )
        return ids

    def enqueue_error(
        self,
        status: int,
        body: dict[str, Any] | str | bytes | None = None,
        headers: dict[str, str] | None = None,
        *,
        endpoint: Endpoint = "chat",
    ) -> None:
        """Answer with HTTP ``status``; the default body is an OpenAI-style error object."""
        self.enqueue(_error_response(status, body, headers), endpoint=endpoint)

    def enqueue_raw(
        self,
        status: int,
        body: bytes,
        headers: dict[str, str] | None = None,
        *,
        endpoint: Endpoint = "chat",
    ) -> None:
        """Answer with exactly these bytes (for responses that are not valid completions)."""
        merged = {"Content-Type": "application/json", **(headers or {})}
        self.enqueue(FakeResponse(status=status, body=body, headers=merged), endpoint=endpoint)

    def enqueue_truncated(self, body: bytes, declared_length: int) -> None:
        """Announce ``declared_length`` bytes, send only ``body`` and close: a cut-off answer."""
        self.enqueue(FakeResponse(body=body, headers=dict(_JSON_HEADERS),
                                  declared_length=declared_length))

    def enqueue_delay(
        self,
        seconds: float,
        then: str | FakeResponse | None = None,
        *,
        endpoint: Endpoint = "chat",
    ) -> None:
        """Wait ``seconds`` before answering, to make clients time out.

        ``then`` is what is sent after the wait: reply text, a ``FakeResponse``,
        or None for a default reply (chat) or the usual vectors (embeddings).
        It occupies one queue slot, so a retry gets the next queued response.
        """
        if isinstance(then, FakeResponse):
            response = then
        elif endpoint == "embeddings" and then is None:
            response = FakeResponse()
        else:
            text = "late reply" if then is None else then
            response = FakeResponse(message={"role": "assistant", "content": text})
        response.delay = seconds
        self.enqueue(response, endpoint=endpoint)

    def enqueue_hold(self, *, endpoint: Endpoint = "chat") -> None:
        """Never answer the next request while the server runs: only a client timeout ends it."""
        self.enqueue_delay(math.inf, endpoint=endpoint)

    # serving (called from handler threads)

    def _next(self, endpoint: Endpoint) -> FakeResponse | None:
        with self._lock:
            queue = self._queues[endpoint]
            return queue.popleft() if queue else None

    def _serve_chat(self, body: dict[str, Any], headers: dict[str, str]) -> FakeResponse:
        with self._lock:
            self.requests.append(body)
            self.request_headers.append(headers)
            number = len(self.requests)
            self._arrived.notify_all()
        scripted = self._next("chat")
        if scripted is None and self.responder is not None:
            scripted = self.responder(body)
        if scripted is None:
            return _error_response(
                500,
                {
                    "error": {
                        "message": f"FakeOpenAIServer: chat request #{number} arrived but no "
                        f"response is queued (enqueue_reply / enqueue_tool_calls first)",
                        "type": "server_error",
                    }
                },
                None,
            )
        if scripted.message is None:
            return scripted
        return FakeResponse(
            status=scripted.status,
            body=self._completion_body(body, scripted),
            headers={"Content-Type": "application/json", **scripted.headers},
            delay=scripted.delay,
        )

    def _completion_body(self, request: dict[str, Any], scripted: FakeResponse) -> bytes:
        assert scripted.message is not None
        with self._lock:
            self._counter += 1
            number = self._counter
        if scripted.usage is not None:
            prompt, completion = scripted.usage
        else:
            # A rough 4-characters-per-token estimate, enough to be non-zero and stable.
            prompt = len(json.dumps(request.get("messages", []))) // 4 + 1
            completion = len(json.dumps(scripted.message)) // 4 + 1
        payload = {
            "id": f"chatcmpl-fake-{number}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": str(request.get("model") or self.model),
            "choices": [
                {
                    "index": 0,
                    "message": scripted.message,
                    "finish_reason": scripted.finish_reason,
                    "logprobs": None,
                }
            ],
            "usage": {
                "prompt_tokens": prompt,
                "completion_tokens": completion,
                "total_tokens": prompt + completion,
            },
        }
        return json.dumps(payload).encode()

    def _serve_embeddings(self, body: dict[str, Any]) -> FakeResponse:
        with self._lock:
            self.embedding_requests.append(body)
        scripted = self._next("embeddings")
        if scripted is not None and (scripted.status != 200 or scripted.body):
            return scripted
        raw = body.get("input", [])
        inputs = [raw] if isinstance(raw, str) else list(raw)
        # Token-id inputs (lists of ints) are hashed by their JSON text.
        texts = [item if isinstance(item, str) else json.dumps(item) for item in inputs]
        dim = int(body.get("dimensions") or self.embedding_dim)
        as_base64 = body.get("encoding_format") == "base64"
        data = []
        for index, text in enumerate(texts):
            vector = fake_embedding(text, dim)
            encoded: Any = (
                base64.b64encode(struct.pack(f"<{dim}f", *vector)).decode() if as_base64 else vector
            )
            data.append({"object": "embedding", "index": index, "embedding": encoded})
        tokens = sum(len(text.split()) for text in texts)
        payload = {
            "object": "list",
            "data": data,
            "model": str(body.get("model") or self.model),
            "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
        }
        return FakeResponse(
            body=json.dumps(payload).encode(),
            headers={"Content-Type": "application/json"},
            delay=scripted.delay if scripted is not None else 0.0,
        )

    def _models_body(self) -> bytes:
        payload = {
            "object": "list",
            "data": [{"id": self.model, "object": "model", "created": 0, "owned_by": "fake",
                      **self.model_fields}],
        }
        return json.dumps(payload).encode()

    def _serve_route(self, method: str, path: str) -> FakeResponse | None:
        """The response for an extra endpoint, or None when there is none."""
        with self._lock:
            self.other_requests.append((method, path))
            route = self.routes.get((method, path))
        if route is None or isinstance(route, FakeResponse):
            return route
        return FakeResponse(body=json.dumps(route).encode(), headers=dict(_JSON_HEADERS))


def _error_response(
    status: int, body: dict[str, Any] | str | bytes | None, headers: dict[str, str] | None
) -> FakeResponse:
    if body is None:
        body = {
            "error": {
                "message": f"scripted HTTP {status}",
                "type": "server_error" if status >= 500 else "invalid_request_error",
                "param": None,
                "code": None,
            }
        }
    if isinstance(body, dict):
        raw = json.dumps(body).encode()
        content_type = "application/json"
    elif isinstance(body, str):
        raw = body.encode()
        content_type = "text/plain; charset=utf-8"
    else:
        raw = body
        content_type = "application/octet-stream"
    return FakeResponse(
        status=status, body=raw, headers={"Content-Type": content_type, **(headers or {})}
    )


class _Handler(BaseHTTPRequestHandler):
    fake: FakeOpenAIServer
    server_version = "FakeOpenAI/1.0"

    def log_message(self, format: str, *args: Any) -> None:
        pass  # keep pytest output clean

    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0].rstrip("/")
        routed = self.fake._serve_route("GET", path)
        if routed is not None:
            self._send(routed)
        elif path == "/v1/models":
            self._send(FakeResponse(body=self.fake._models_body(), headers=_JSON_HEADERS))
        else:
            self._send(_error_response(404, _not_found(self.path), None))

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            self._send(_error_response(400, {"error": {"message": "body is not JSON"}}, None))
            return
        path = self.path.split("?", 1)[0].rstrip("/")
        routed = None if path.startswith("/v1/") else self.fake._serve_route("POST", path)
        if routed is not None:
            self._send(routed)
        elif path == "/v1/chat/completions":
            headers = {key.lower(): value for key, value in self.headers.items()}
            self._send(self.fake._serve_chat(body, headers))
        elif path == "/v1/embeddings":
            self._send(self.fake._serve_embeddings(body))
        else:
            self._send(_error_response(404, _not_found(self.path), None))

    def _send(self, response: FakeResponse) -> None:
        held = None if math.isinf(response.delay) else response.delay
        if response.delay > 0 and self.fake._stopping.wait(held):
            return  # the server is closing; nobody is waiting for this answer
        if response.dropped:
            self.close_connection = True
            return
        try:
            self.send_response(response.status)
            for name, value in response.headers.items():
                self.send_header(name, value)
            length = response.declared_length
            if length is None:
                length = len(response.body)
            self.send_header("Content-Length", str(length))
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(response.body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (a timeout test); that is the point


_JSON_HEADERS = {"Content-Type": "application/json"}


def _not_found(path: str) -> dict[str, Any]:
    return {"error": {"message": f"FakeOpenAIServer has no route {path}", "type": "not_found"}}
