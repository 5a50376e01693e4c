"""Tool-call ids on the wire: nine letters or digits, one per call (agent/wire_ids.py)."""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from fake_openai import FakeOpenAIServer, FakeResponse

from tiermem.agent.loop import Agent
from tiermem.agent.openai_client import OpenAIClient
from tiermem.agent.wire_ids import with_wire_ids
from tiermem.memory import HashingEmbedder, HierarchicalMemory

NINE = re.compile(r"[A-Za-z0-9]{9}")
TEMPLATE_ERROR = "Tool call IDs should be alphanumeric strings with length 9!"


def assistant(*ids: str) -> dict[str, Any]:
    return {"role": "assistant", "content": "", "tool_calls": [
        {"id": i, "type": "function", "function": {"name": "f", "arguments": "{}"}}
        for i in ids]}


def result(call_id: str, text: str) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": text}


def pairs(messages: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """(the id of the call each result answers, the result's text), checking the order."""
    out, open_calls = [], set()
    for message in messages:
        if message.get("tool_calls"):
            open_calls = {c["id"] for c in message["tool_calls"]}
        if message["role"] == "tool":
            assert message["tool_call_id"] in open_calls
            out.append((message["tool_call_id"], message["content"]))
    return out


def test_every_id_is_nine_letters_or_digits_and_results_follow_their_calls() -> None:
    messages = [{"role": "user", "content": "hi"},
                assistant("call_1_0", "call_1_1"), result("call_1_0", "a"), result("call_1_1", "b"),
                assistant("abcDEF123"), result("abcDEF123", "c")]
    before = copy.deepcopy(messages)
    sent = with_wire_ids(messages)
    assert messages == before  # the caller's messages are not changed
    ids = [c["id"] for m in sent if m.get("tool_calls") for c in m["tool_calls"]]
    assert all(NINE.fullmatch(i) for i in ids) and len(set(ids)) == 3
    assert ids[2] == "abcDEF123"  # already of the form: kept
    assert [text for _, text in pairs(sent)] == ["a", "b", "c"]
    assert [i for i, _ in pairs(sent)] == ids
    assert with_wire_ids(messages) == sent  # the same in every request: prompt caches match


def test_an_id_a_server_repeats_across_replies_becomes_distinct_calls() -> None:
    messages = [assistant("call_0"), result("call_0", "first"),
                assistant("call_0"), result("call_0", "second"),
                assistant("abcDEF123"), result("abcDEF123", "x"),
                assistant("abcDEF123"), result("abcDEF123", "y")]
    sent = with_wire_ids(messages)
    ids = [m["tool_calls"][0]["id"] for m in sent if m.get("tool_calls")]
    assert len(set(ids)) == 4 and all(NINE.fullmatch(i) for i in ids)
    assert [(i, text) for i, text in pairs(sent)] == list(zip(ids, ["first", "second", "x", "y"],
                                                             strict=True))


def test_messages_without_calls_and_odd_shapes_pass_unchanged() -> None:
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "s"}, {"role": "assistant", "content": "hello"},
        {"role": "assistant", "content": "", "tool_calls": [{"type": "function"}]},
        result("never_called", "orphan")]
    assert with_wire_ids(messages) == messages


# A server running a Mistral chat template refuses what the template refuses.

@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        yield m


def strict_template(server: FakeOpenAIServer, replies: list[FakeResponse]) -> None:
    def respond(body: dict[str, Any]) -> FakeResponse:
        for message in body["messages"]:
            ids = [c.get("id") for c in message.get("tool_calls") or []]
            if message["role"] == "tool":
                ids.append(message.get("tool_call_id"))
            if any(not isinstance(i, str) or not NINE.fullmatch(i) for i in ids):
                return FakeResponse(status=500, body=json.dumps(
                    {"error": {"code": 500, "message": TEMPLATE_ERROR,
                               "type": "server_error"}}).encode(),
                    headers={"Content-Type": "application/json"})
        return replies.pop(0)
    server.responder = respond


def reply(content: str | None = None, calls: list[dict[str, Any]] | None = None) -> FakeResponse:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if calls:
        message["tool_calls"] = calls
    return FakeResponse(message=message, finish_reason="tool_calls" if calls else "stop")


def call(call_id: str, content: str) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {
        "name": "core_memory_append",
        "arguments": json.dumps({"content": content, "request_heartbeat": True})}}


def test_a_mistral_template_server_takes_the_turn_after_a_text_call(
        server: FakeOpenAIServer, memory: HierarchicalMemory) -> None:
    strict_template(server, [
        reply('[TOOL_CALLS]core_memory_append[ARGS]{"content": "Allergic to peanuts", '
              '"request_heartbeat": true}'),
        reply("Noted."), reply("You are allergic to peanuts.")])
    agent = Agent(memory, OpenAIClient("fake-model", base_url=server.base_url,
                                       max_retries=0))
    first = agent.step("I'm allergic to peanuts")
    assert first.reply == "Noted." and [f.text for f in memory.core] == ["Allergic to peanuts"]
    assert agent.step("What am I allergic to?").reply == "You are allergic to peanuts."
    assert len(server.requests) == 3


def test_a_server_that_repeats_call_0_keeps_each_result_with_its_call(
        server: FakeOpenAIServer, memory: HierarchicalMemory) -> None:
    strict_template(server, [
        reply(calls=[call("call_0", "Likes tea")]), reply("Noted."),
        reply(calls=[call("call_0", "Hates coffee")]), reply("Noted too."), reply("Done.")])
    agent = Agent(memory, OpenAIClient("fake-model", base_url=server.base_url,
                                       max_retries=0))
    agent.step("I like tea")
    agent.step("I hate coffee")
    agent.step("Thanks")
    last = server.requests[-1]["messages"]
    ids = [c["id"] for m in last if m.get("tool_calls") for c in m["tool_calls"]]
    assert len(ids) == 2 and len(set(ids)) == 2
    answered = dict(pairs(last))
    assert [answered[i] for i in ids] == [
        r["content"] for r in last if r["role"] == "tool"]
    assert "Likes tea" in answered[ids[0]] and "Hates coffee" in answered[ids[1]]
