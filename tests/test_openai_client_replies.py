"""The OpenAI-compatible client over a real loopback server: what a reply, a tool call and
a request carry, and the usage counted."""

from __future__ import annotations

import json

from fake_openai import FakeOpenAIServer
from openai_helpers import MESSAGES, TOOLS, make_client

from tiermem.agent.llm import LLMClient, ToolCall, Usage
from tiermem.agent.openai_client import OpenAIClient


def test_plain_reply(server: FakeOpenAIServer, sleeps: list[float]) -> None:
    server.enqueue_reply("Noted: you like green tea.")
    completion = make_client(server, sleeps).complete(MESSAGES, TOOLS)
    assert completion.content == "Noted: you like green tea."
    assert completion.tool_calls == []
    assert completion.finish_reason == "stop"
    assert completion.model == "fake-model"


def test_single_tool_call(server: FakeOpenAIServer, sleeps: list[float]) -> None:
    [call_id] = server.enqueue_tool_calls([("core_memory_append", '{"text": "likes green tea"}')])
    completion = make_client(server, sleeps).complete(MESSAGES, TOOLS)
    assert completion.content is None
    assert completion.finish_reason == "tool_calls"
    assert completion.tool_calls == [
        ToolCall(id=call_id, name="core_memory_append", arguments='{"text": "likes green tea"}')
    ]


def test_parallel_tool_calls_keep_their_order(
    server: FakeOpenAIServer, sleeps: list[float]
) -> None:
    server.enqueue_tool_calls(
        [
            ("core_memory_append", '{"text": "a"}'),
            ("archival_memory_search", '{"query": "tea"}'),
            ("conversation_search", '{"query": "tea"}'),
        ],
        content="Let me check.",
    )
    completion = make_client(server, sleeps).complete(MESSAGES, TOOLS)
    assert completion.content == "Let me check."
    assert [c.name for c in completion.tool_calls] == [
        "core_memory_append",
        "archival_memory_search",
        "conversation_search",
    ]
    assert len({c.id for c in completion.tool_calls}) == 3


def test_malformed_arguments_come_through_raw(
    server: FakeOpenAIServer, sleeps: list[float]
) -> None:
    server.enqueue_tool_calls([("core_memory_append", '{"text": "unterminated')])
    completion = make_client(server, sleeps).complete(MESSAGES, TOOLS)
    assert completion.tool_calls[0].arguments == '{"text": "unterminated'


def test_unknown_tool_names_come_through(server: FakeOpenAIServer, sleeps: list[float]) -> None:
    server.enqueue_tool_calls([("launch_rockets", "{}")])
    completion = make_client(server, sleeps).complete(MESSAGES, TOOLS)
    assert completion.tool_calls[0].name == "launch_rockets"


def test_usage_is_recorded_per_call_and_in_total(
    server: FakeOpenAIServer, sleeps: list[float]
) -> None:
    server.enqueue_reply("one", usage=(11, 7))
    server.enqueue_reply("two", usage=(5, 1))
    client = make_client(server, sleeps)
    first = client.complete(MESSAGES, TOOLS)
    client.complete(MESSAGES, TOOLS)
    assert first.usage == Usage(prompt_tokens=11, completion_tokens=7, total_tokens=18)
    assert client.total_usage == Usage(prompt_tokens=16, completion_tokens=8, total_tokens=24)


def test_request_carries_our_messages_tools_and_key(server: FakeOpenAIServer) -> None:
    server.enqueue_reply("ok")
    client = OpenAIClient("fake-model", base_url=server.base_url, api_key="sk-local-test")
    client.complete(MESSAGES, TOOLS)
    [request] = server.requests
    assert request["model"] == "fake-model"
    assert request["messages"] == MESSAGES
    assert request["tools"] == TOOLS
    assert server.request_headers[0]["authorization"] == "Bearer sk-local-test"


def test_no_tools_key_when_there_are_no_tools(
    server: FakeOpenAIServer, sleeps: list[float]
) -> None:
    server.enqueue_reply("ok")
    make_client(server, sleeps).complete(MESSAGES, [])
    assert "tools" not in server.requests[0]


def test_huge_tool_argument_round_trips(server: FakeOpenAIServer, sleeps: list[float]) -> None:
    arguments = json.dumps({"text": "x" * 1_000_000})
    server.enqueue_tool_calls([("core_memory_append", arguments)])
    server.enqueue_reply("stored")
    client = make_client(server, sleeps)

    completion = client.complete(MESSAGES, TOOLS)
    assert completion.tool_calls[0].arguments == arguments

    tool_call = completion.tool_calls[0]
    follow_up = [
        *MESSAGES,
        completion.as_message(),
        {"role": "tool", "tool_call_id": tool_call.id, "content": "ok"},
    ]
    assert client.complete(follow_up, TOOLS).content == "stored"
    sent = server.requests[1]["messages"][2]["tool_calls"][0]["function"]["arguments"]
    assert sent == arguments


def test_base_url_without_v1_reaches_the_api(server: FakeOpenAIServer, sleeps: list[float]) -> None:
    server.enqueue_reply("ok")
    client = OpenAIClient(
        "fake-model", base_url=f"http://127.0.0.1:{server.port}", sleep=sleeps.append
    )
    assert client.base_url == server.base_url
    assert client.complete(MESSAGES, TOOLS).content == "ok"


def test_name_and_context_window(server: FakeOpenAIServer) -> None:
    client = OpenAIClient("gpt-4o-mini", base_url=server.base_url)
    assert client.name == f"openai:gpt-4o-mini @ {server.base_url}"
    assert client.context_window == 128_000
    assert (
        OpenAIClient("gpt-4o-mini", base_url=server.base_url, context_window=4096).context_window
        == 4096
    )
    assert isinstance(client, LLMClient)


def test_usage_adds() -> None:
    assert Usage(1, 2, 3) + Usage(10, 20, 30) == Usage(11, 22, 33)
