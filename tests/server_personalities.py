"""Loopback servers with the characters of real ones, for ``tiermem doctor``.

Each function gives a ``FakeOpenAIServer`` the habits recorded from a real
server on this kind of machine (llama-cpp-python 0.3.36 with
``--chat_format chatml-function-calling``, llama-server b1-0c1e570 with ``--jinja``
and a template without tools), or documented for another (a server that
passes Hermes-style tool calls through as text). Prompt token counts grow by
``TOOL_TOKENS`` when a server really shows the tools to the model, which is
how the doctor tells a server that drops them.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from fake_openai import FakeOpenAIServer, FakeResponse

TOOL_TOKENS = 260
FACT = "User is allergic to peanuts"
Responder = Callable[[dict[str, Any]], FakeResponse]


def _prompt_tokens(body: dict[str, Any], tools_shown: bool) -> int:
    return len(json.dumps(body["messages"])) // 4 + 1 + (TOOL_TOKENS if tools_shown else 0)


def _reply(body: dict[str, Any], text: str | None, *, finish: str = "stop",
           tools_shown: bool = False, calls: list[tuple[str, str]] | None = None
           ) -> FakeResponse:
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if calls:
        message["tool_calls"] = [{"id": f"call_{i}", "type": "function",
                                  "function": {"name": name, "arguments": arguments}}
                                 for i, (name, arguments) in enumerate(calls)]
    return FakeResponse(message=message, finish_reason=finish,
                        usage=(_prompt_tokens(body, tools_shown), 5))


def _stream(text: str) -> FakeResponse:
    events = [{"choices": [{"index": 0, "delta": {"role": "assistant"}}]},
              {"choices": [{"index": 0, "delta": {"content": text}}]},
              {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}]
    body = "".join(f"data: {json.dumps(e)}\n\n" for e in events) + "data: [DONE]\n\n"
    return FakeResponse(body=body.encode(), headers={"Content-Type": "text/event-stream"})


def _error(status: int, message: str, kind: str = "internal_server_error") -> FakeResponse:
    body = {"error": {"message": message, "type": kind, "param": None, "code": None}}
    return FakeResponse(status=status, body=json.dumps(body).encode(),
                        headers={"Content-Type": "application/json"})


def _null_content(body: dict[str, Any]) -> bool:
    return any(m.get("role") == "assistant" and "tool_calls" in m and m.get("content") is None
               for m in body["messages"])


def _common(body: dict[str, Any], tools_shown: bool) -> FakeResponse | None:
    """Answers every personality gives alike: the stream, and a reply cut at 8 tokens."""
    if body.get("stream"):
        return _stream("Red, green and blue.")
    if body.get("max_tokens") == 8:
        return _reply(body, "One, two, three,", finish="length", tools_shown=tools_shown)
    return None


def _structured_call(body: dict[str, Any]) -> FakeResponse:
    return _reply(body, None, finish="tool_calls", tools_shown=True,
                  calls=[("core_memory_append", json.dumps({"content": FACT}))])


def _text_call(body: dict[str, Any], tool: str = "core_memory_append",
               thinking: bool = False, written: str | None = None) -> FakeResponse:
    if written is not None:
        return _reply(body, written, tools_shown=True)
    call = json.dumps({"name": tool, "arguments": {"content": FACT}})
    call = f"<tool_call>\n{call}\n</tool_call>"
    if thinking:  # a reasoning model that only considers the call, then answers
        return _reply(body, f"<think>I could write {call} but I will simply answer.</think>"
                            f"Noted.", tools_shown=True)
    return _reply(body, call, tools_shown=True)


def _answer(body: dict[str, Any], shown: bool, call: Responder) -> FakeResponse:
    """The stream, a cut reply, ``call`` when the tools were shown and there is room for
    one, else a greeting."""
    common = _common(body, shown)
    if common is not None:
        return common
    if shown and body.get("max_tokens", 0) > 1:
        return call(body)
    return _reply(body, "Hello there, friend!", tools_shown=shown)


def llama_cpp_python(server: FakeOpenAIServer) -> None:
    """Drops the tools unless ``tool_choice`` is sent, then calls them; answers HTTP 500 to
    ``tool_choice: "required"`` and to ``content: null``; says nothing of its window."""

    def respond(body: dict[str, Any]) -> FakeResponse:
        shown = bool(body.get("tools")) and "tool_choice" in body
        if _null_content(body):
            return _error(500, "7 validation errors: content Input should be a valid string")
        if body.get("tool_choice") == "required":
            return _error(500, "")
        return _answer(body, shown, _structured_call)

    server.responder = respond


def llama_server_without_tool_template(server: FakeOpenAIServer) -> None:
    """Reports its window in /props, but its chat template cannot show tools: the model
    answers in prose whatever is sent."""
    server.routes[("GET", "/props")] = {
        "default_generation_settings": {"n_ctx": 4096}, "total_slots": 4,
        "chat_template_caps": {"supports_tools": False, "supports_tool_calls": False}}
    server.model_fields["meta"] = {"n_ctx": 4096, "n_ctx_train": 8192}

    def respond(body: dict[str, Any]) -> FakeResponse:
        return _common(body, False) or _reply(
            body, "I'm sorry, I can't remember things between conversations.")

    server.responder = respond


def text_tool_calls(server: FakeOpenAIServer, tool: str = "core_memory_append",
                    thinking: bool = False, written: str | None = None) -> None:
    """Shows the tools, but the model's calls (to ``tool``) come back as Hermes
    ``<tool_call>`` text (a server without a tool-call parser), or with ``thinking`` only
    inside the model's ``<think>`` block, or as the content ``written``; a cut reply is
    marked "stop"."""
    server.model_fields["max_model_len"] = 32768

    def respond(body: dict[str, Any]) -> FakeResponse:
        shown = bool(body.get("tools"))
        if body.get("max_tokens") == 8:
            return _reply(body, "One, two, three,", finish="stop", tools_shown=shown)
        return _answer(body, shown, lambda asked: _text_call(asked, tool, thinking, written))

    server.responder = respond


def capable(server: FakeOpenAIServer) -> None:
    """A server and model that do everything right (vLLM with a tool-call parser, say)."""
    server.model_fields["max_model_len"] = 16384

    def respond(body: dict[str, Any]) -> FakeResponse:
        return _answer(body, bool(body.get("tools")), _structured_call)

    server.responder = respond


def capable_but(server: FakeOpenAIServer,
                change: Callable[[dict[str, Any], FakeResponse], None]) -> None:
    """``capable``, with ``change(request body, answer)`` made to each answer before it goes
    out (a delay, other usage figures, a stray call)."""
    capable(server)
    answer = server.responder
    assert answer is not None

    def respond(body: dict[str, Any]) -> FakeResponse:
        held = answer(body)
        assert held is not None
        change(body, held)
        return held

    server.responder = respond


def llama_server_with_window(server: FakeOpenAIServer, n_ctx: int) -> None:
    """A capable llama-server (``--jinja``, a tool template) started with ``-c n_ctx``."""
    capable(server)
    del server.model_fields["max_model_len"]
    server.routes[("GET", "/props")] = {
        "default_generation_settings": {"n_ctx": n_ctx}, "total_slots": 1,
        "chat_template_caps": {"supports_tools": True, "supports_tool_calls": True}}


def calling(server: FakeOpenAIServer, name: str, arguments: str) -> None:
    """A capable server whose model, shown tools, calls ``name`` with ``arguments`` (the JSON
    text it wrote, whether or not it is valid)."""
    capable(server)

    def call(body: dict[str, Any]) -> FakeResponse:
        return _reply(body, None, finish="tool_calls", tools_shown=True,
                      calls=[(name, arguments)])

    server.responder = lambda body: _answer(body, bool(body.get("tools")), call)
