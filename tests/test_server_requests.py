"""What goes over the wire to a local server, and which of its refusals are final.

Each test drives the real ``openai`` package against the loopback server
(tests/fake_openai.py) and checks the requests it received.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from fake_openai import FakeOpenAIServer

from tiermem.agent.errors import ProviderError
from tiermem.agent.loop import Agent
from tiermem.agent.openai_client import OpenAIClient
from tiermem.agent.server_errors import classify_refusal
from tiermem.memory import HashingEmbedder, HierarchicalMemory

TOOLS = [{"type": "function", "function": {
    "name": "send_message", "description": "Reply.",
    "parameters": {"type": "object", "properties": {"message": {"type": "string"}}}}}]


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        yield m


def client(server: FakeOpenAIServer, sleeps: list[float] | None = None,
           **kwargs: Any) -> OpenAIClient:
    kwargs.setdefault("max_retries", 3)
    return OpenAIClient("fake-model", base_url=server.base_url,
                        sleep=(sleeps if sleeps is not None else []).append, **kwargs)


def args(**values: Any) -> str:
    return json.dumps(values)


def test_tool_choice_is_auto_exactly_when_tools_are_sent(server: FakeOpenAIServer) -> None:
    server.enqueue_reply("with tools")
    server.enqueue_reply("without tools")
    llm = client(server)
    llm.complete([{"role": "user", "content": "hi"}], TOOLS)
    llm.complete([{"role": "user", "content": "hi"}], [])
    with_tools, without = server.requests
    assert with_tools["tool_choice"] == "auto" and with_tools["tools"] == TOOLS
    assert "tool_choice" not in without and "tools" not in without


def test_every_agent_request_with_tools_says_tool_choice_auto(
        server: FakeOpenAIServer, memory: HierarchicalMemory) -> None:
    server.enqueue_tool_calls([("core_memory_append",
                                args(content="Likes tea", request_heartbeat=True))])
    server.enqueue_reply("Noted.")
    Agent(memory, client(server)).step("I like tea")
    assert [r.get("tool_choice") for r in server.requests] == ["auto", "auto"]


def contents(request: dict[str, Any]) -> list[Any]:
    return [m.get("content", "<missing>") for m in request["messages"]]


def test_no_request_carries_null_content_even_after_reloading_the_context(
        server: FakeOpenAIServer, memory: HierarchicalMemory) -> None:
    # The server sends content: null beside its tool calls, as most do.
    server.enqueue_tool_calls([("core_memory_append",
                                args(content="Likes tea", request_heartbeat=True))])
    server.enqueue_reply("Noted.")
    first = Agent(memory, client(server))
    first.step("I like tea")
    reloaded_agent = Agent(memory, client(server))  # a new agent reloads its window from recall
    for agent in (first, reloaded_agent):
        assert all(isinstance(m["content"], str) for m in agent.context.messages)
    server.enqueue_reply("Tea, as you said.")
    reloaded_agent.step("What do I like?")

    assert len(server.requests) == 3
    for request in server.requests:
        assert all(isinstance(c, str) for c in contents(request)), contents(request)
    reloaded = [m for m in server.requests[2]["messages"] if m.get("tool_calls")]
    assert len(reloaded) == 1 and reloaded[0]["content"] == ""


def test_the_client_sends_no_null_content_whoever_built_the_messages(
        server: FakeOpenAIServer) -> None:
    server.enqueue_reply("ok")
    call = {"id": "c1", "type": "function",
            "function": {"name": "send_message", "arguments": "{}"}}
    client(server).complete([
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "assistant", "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c1", "content": "OK"},
    ], TOOLS)
    assert contents(server.requests[0]) == ["hi", "", "", "OK"]


# llama-cpp-python 0.3.36 answers an assistant message with content: null so (abridged).
VALIDATION_500 = {"error": {
    "message": "7 validation errors:\n  {'type': 'string_type', 'loc': ('body', 'messages', 2, "
               "'ChatCompletionRequestAssistantMessage', 'content'), 'msg': 'Input should be a "
               "valid string', 'input': None}",
    "type": "internal_server_error", "param": None, "code": None}}
LLAMA_SERVER_OVERFLOW = {"error": {
    "code": 400, "message": "request (7038 tokens) exceeds the available context size "
                            "(4096 tokens), try increasing it",
    "type": "exceed_context_size_error", "n_prompt_tokens": 7038, "n_ctx": 4096}}


def test_a_validation_error_dressed_as_a_500_is_sent_once(server: FakeOpenAIServer) -> None:
    sleeps: list[float] = []
    server.enqueue_error(500, VALIDATION_500)
    with pytest.raises(ProviderError) as info:
        client(server, sleeps).complete([{"role": "user", "content": "hi"}], TOOLS)
    error = info.value
    assert len(server.requests) == 1 and sleeps == []
    assert (error.kind, error.retryable, error.status_code) == ("bad_request", False, 500)
    assert "the server refused the request: 7 validation errors" in str(error)


@pytest.mark.parametrize(("status", "body", "window"), [
    (400, LLAMA_SERVER_OVERFLOW, 4096),
    (500, {"error": {"message": "Requested tokens (5000) exceed context window of 2048"}}, 2048),
    (400, {"error": {"message": "This model's maximum context length is 4096 tokens. However, "
                                "you requested 7033 tokens", "code": "context_length_exceeded"}},
     4096),
    (500, "llama_decode: prompt is too long for n_ctx", None),
    # LM Studio's wording.
    (400, {"error": "Trying to keep the first 5000 tokens when context the overflows. "
                    "However, the model is loaded with context length of only 4096 tokens, "
                    "which is not enough."}, 4096),
])
def test_a_context_overflow_is_sent_once_and_names_the_flag(
        server: FakeOpenAIServer, status: int, body: Any, window: int | None) -> None:
    sleeps: list[float] = []
    server.enqueue_error(status, body)
    with pytest.raises(ProviderError) as info:
        client(server, sleeps).complete([{"role": "user", "content": "hi"}], TOOLS)
    error = info.value
    assert len(server.requests) == 1 and sleeps == []
    assert error.kind == "context_exceeded" and not error.retryable
    assert "--context-window" in str(error) and "TIERMEM_CONTEXT_WINDOW" in str(error)
    if window is not None:
        assert f"({window})" in str(error)
    assert error.context_window == window


def test_a_plain_500_is_still_retried(server: FakeOpenAIServer) -> None:
    sleeps: list[float] = []
    server.enqueue_error(500, {"error": {"message": "", "type": "internal_server_error"}})
    server.enqueue_reply("back")
    completion = client(server, sleeps).complete([{"role": "user", "content": "hi"}], TOOLS)
    assert completion.content == "back"
    assert len(server.requests) == 2 and len(sleeps) == 1


@pytest.mark.parametrize(("status", "body", "kind"), [
    (500, VALIDATION_500, "bad_request"),
    (500, VALIDATION_500["error"], "bad_request"),  # the SDK strips the "error" wrapper
    (422, {"detail": [{"msg": "Field required"}]}, "bad_request"),
    (400, LLAMA_SERVER_OVERFLOW, "context_exceeded"),
    (503, {"error": {"message": "loading model"}}, None),
    (500, {"error": {"message": "failed to create llama_context"}}, None),
    (429, {"error": {"message": "slow down"}}, None),
])
def test_classify_refusal(status: int, body: Any, kind: str | None) -> None:
    refusal = classify_refusal(status, body)
    assert (refusal.kind if refusal else None) == kind
