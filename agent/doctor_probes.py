"""The requests ``tiermem doctor`` sends, each bounded, and what came back.

Every probe is a raw HTTP exchange (agent/http_json.py), not a call through the
chat client: the doctor must see the server's own status, error text, token
usage and finish reason, and must never retry. All probes share one time
budget; a probe that would start after it is spent is skipped, so the whole
examination ends in under a minute whatever the server does.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tiermem.agent.http_json import (
    Answer,
    StreamStart,
    Unreachable,
    first_streamed_token,
    request_json,
)
from tiermem.agent.server_errors import clip, is_web_page, page_title
from tiermem.agent.server_setup import ServerFault, server_fault
from tiermem.agent.text_call_objects import offered_name
from tiermem.tools.dispatch import Toolbox, ToolResult
from tiermem.tools.memory_tools import memory_toolbox

#: The whole examination stops starting probes after this many seconds.
BUDGET_SECONDS = 55.0
#: Seconds one probe may take unless ``--timeout`` says otherwise.
PROBE_TIMEOUT = 20.0
_MAX_ERROR = 160
NOT_A_COMPLETION = "the answer is not a chat completion"
#: Refusals a proxy or firewall in front of the server sends as its own web page (an API's
#: URL right, the request refused): access denied, a rate limit, a gateway's failure.
_REFUSAL_PAGES = frozenset({401, 403, 407, 429})
#: Why a probe was not sent: the budget was spent before its turn.
OUT_OF_TIME = "out of time"

SYSTEM = ("You are an assistant with a long-term memory. When the user tells you a lasting "
          "fact about themselves, save it with the core_memory_append tool.")
FACT = "Remember that I am allergic to peanuts."
#: The two tools of the agent's toolbox that a first turn with a new fact needs.
PROBE_TOOLS = ("core_memory_append", "send_message")


def probe_toolbox() -> Toolbox:
    """The agent's own tools for ``PROBE_TOOLS``."""
    tools = memory_toolbox()
    return Toolbox(tool for name in PROBE_TOOLS if (tool := tools.get(name)) is not None)


def probe_tools() -> list[dict[str, Any]]:
    """The agent's own schemas for ``PROBE_TOOLS``, exactly as a turn sends them."""
    return probe_toolbox().schemas()


def refused_call(name: str, arguments: str) -> ToolResult | None:
    """Why a turn would refuse the model's call to ``name`` had the probe's tools been
    offered: a tool they do not include, arguments that are not a JSON object or do not
    fit the tool's schema. None for a call that would run."""
    return probe_toolbox().check(name, arguments)


@dataclass
class Exchange:
    """One chat request and its answer; ``status`` None means no answer at all."""

    status: int | None
    error: str = ""
    content: str | None = None
    tool_calls: list[tuple[str, str]] = field(default_factory=list)
    finish_reason: str | None = None
    prompt_tokens: int | None = None
    seconds: float = 0.0
    #: A refusal's body as the server sent it: decoded JSON, else its text, and its headers
    #: (a proxy's marks, as LiteLLM's ``x-litellm-`` ones).
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        # A 200 whose body is no completion (a web page, a body cut short) is a failure too.
        return self.status is not None and 200 <= self.status < 300 and not self.error

    def failure(self) -> str:
        """The failure in a few words: "HTTP 500: message" or why there was no answer."""
        if self.status is None:
            # A timeout already reads "no answer within the timeout".
            return self.error if self.error.startswith("no answer") else \
                f"no answer ({self.error})"
        return f"HTTP {self.status}" + (f": {self.error}" if self.error else "")

    def fault(self, model: str, url: str) -> ServerFault | None:
        """The server setup fault a refusal from ``url`` names (agent/server_setup.py), as
        the chat reads it; None for an answer, or a refusal that names none."""
        if self.status is None or self.ok:
            return None
        return server_fault(self.status, self.body, model, url, self.headers)


def error_text(answer: Answer) -> str:
    """The message in an error body (OpenAI, FastAPI and llama.cpp shapes), shortened."""
    body = answer.body
    if isinstance(body, list) and body:
        body = body[0]  # Google's APIs send their error as a list of one
    message: Any = None
    if isinstance(body, dict):
        message = body.get("error") or body.get("detail") or body.get("message")
        if isinstance(message, dict):
            # llama-cpp-python answers some failures with an empty message and only a type.
            message = message.get("message") or f"{message.get('type') or 'error'} (no message)"
    return clip(str(message) if message else answer.text, _MAX_ERROR)


def page_refusal(answer: Answer) -> str:
    """A refusal sent as a web page, as the doctor shows it: the page's title, the server
    that sent it (its ``Server`` header: a proxy, a CDN) and the wait its ``Retry-After``
    asks, which its markup would hide."""
    title = page_title(answer.text)
    said = f"a web page titled {title!r}" if title else "a web page (HTML)"
    server, wait = answer.headers.get("server"), answer.headers.get("retry-after")
    if server:
        said += f" from {clip(server, 40)!r}"
    return said + (f" (Retry-After: {clip(wait, 40)})" if wait else "")


def read_completion(answer: Answer) -> Exchange:
    """An answer to a chat request as an ``Exchange``: failed when it is an error or no chat
    completion at all; odd fields of a completion read as empty."""
    page = not answer.ok and is_web_page(answer.headers.get("content-type", ""), answer.text)
    if page and (answer.status in _REFUSAL_PAGES or answer.status >= 500):
        return Exchange(answer.status, page_refusal(answer), seconds=answer.seconds,
                        headers=answer.headers)
    if page:
        # A web UI refusing the POST (404, 405): as wrong a URL as a page answered with 200.
        return Exchange(answer.status, f"{NOT_A_COMPLETION}: {page_refusal(answer)}",
                        seconds=answer.seconds)
    if not answer.ok:
        return Exchange(answer.status, error_text(answer), seconds=answer.seconds,
                        body=answer.text if answer.body is None else answer.body,
                        headers=answer.headers)
    body = _mapping(answer.body)
    choices = body.get("choices")
    choice = _mapping(choices[0] if isinstance(choices, list) and choices else None)
    if not isinstance(choice.get("message"), dict):
        # A web UI's page answered with 200 is named by its title, not quoted as markup.
        said = (page_refusal(answer) if is_web_page(answer.headers.get("content-type", ""),
                                                    answer.text)
                else clip(answer.text, _MAX_ERROR) or "an empty body")
        return Exchange(answer.status, f"{NOT_A_COMPLETION}: {said}", seconds=answer.seconds)
    message = _mapping(choice.get("message"))
    calls = []
    for call in message.get("tool_calls") or []:
        function = call.get("function") if isinstance(call, dict) else None
        if isinstance(function, dict):
            arguments = function.get("arguments")
            # As a turn runs it: functions.NAME (gpt-oss) names the offered tool NAME.
            name = offered_name(str(function.get("name")), PROBE_TOOLS)
            calls.append((name, arguments if isinstance(arguments, str)
                          else json.dumps(arguments)))
    prompt = _mapping(body.get("usage")).get("prompt_tokens")
    content, finish = message.get("content"), choice.get("finish_reason")
    return Exchange(
        answer.status, content=content if isinstance(content, str) else None, tool_calls=calls,
        finish_reason=finish if isinstance(finish, str) else None,
        prompt_tokens=prompt if isinstance(prompt, int) and prompt > 0 else None,
        seconds=answer.seconds)


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


class Prober:
    """Sends the probes to one server within one time budget."""

    def __init__(self, base_url: str, model: str | None, api_key: str | None = None, *,
                 timeout: float = PROBE_TIMEOUT, budget: float = BUDGET_SECONDS,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.base_url = base_url
        self.model = model
        self.headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self.api_key = api_key
        self.timeout = timeout
        self._clock = clock
        self._deadline = clock() + budget

    def time_left(self) -> float | None:
        """Seconds the next probe may take, or None when the budget is spent."""
        left = self._deadline - self._clock()
        return None if left < 1.0 else min(self.timeout, left)

    def get(self, url: str) -> Answer | None:
        """GET ``url``; None when out of time. Raises ``Unreachable``."""
        limit = self.time_left()
        if limit is None:
            return None
        return request_json("GET", url, timeout=limit, headers=self.headers)

    def chat(self, messages: list[dict[str, Any]], *, max_tokens: int,
             tools: list[dict[str, Any]] | None = None, tool_choice: Any = None
             ) -> Exchange | None:
        """One chat completion; None when out of time."""
        limit = self.time_left()
        if limit is None:
            return None
        try:
            answer = request_json("POST", f"{self.base_url}/chat/completions",
                                  self._payload(messages, max_tokens, tools, tool_choice),
                                  timeout=limit, headers=self.headers)
        except Unreachable as exc:
            return Exchange(None, str(exc))
        return read_completion(answer)

    def first_token(self, messages: list[dict[str, Any]], *, max_tokens: int
                    ) -> StreamStart | str | None:
        """A streamed request up to its first token; the reason as text when there was no
        answer, None when out of time."""
        limit = self.time_left()
        if limit is None:
            return None
        try:
            return first_streamed_token(f"{self.base_url}/chat/completions",
                                        self._payload(messages, max_tokens, None, None),
                                        timeout=limit, headers=self.headers)
        except Unreachable as exc:
            return str(exc)

    def _payload(self, messages: list[dict[str, Any]], max_tokens: int,
                 tools: list[dict[str, Any]] | None, tool_choice: Any) -> dict[str, Any]:
        # temperature 0: the same question should get the same answer on every run.
        payload: dict[str, Any] = {"model": self.model, "messages": messages,
                                   "max_tokens": max_tokens, "temperature": 0}
        if tools:
            payload["tools"] = tools
        if tool_choice is not None:
            payload["tool_choice"] = tool_choice
        return payload


def fact_messages() -> list[dict[str, Any]]:
    """A first turn with a fact worth storing."""
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": FACT}]


def second_step_messages() -> list[dict[str, Any]]:
    """The fact turn after its tool call ran, with the assistant's content null."""
    # Nine letters and digits, as Mistral's templates require (agent/wire_ids.py).
    call = {"id": "doctor001", "type": "function",
            "function": {"name": "core_memory_append",
                         "arguments": json.dumps({"content": "User is allergic to peanuts"})}}
    return [*fact_messages(),
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": "doctor001",
             "content": "Appended to core: User is allergic to peanuts"}]
