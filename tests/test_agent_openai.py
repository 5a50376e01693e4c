"""The agent end to end over the real ``openai`` package and a loopback chat server."""

from __future__ import annotations

import json
import re
import socket
from collections.abc import Iterator
from typing import Any

import pytest
from fake_openai import FakeOpenAIServer, FakeResponse

from tiermem.agent.errors import ProviderError
from tiermem.agent.llm import Usage
from tiermem.agent.loop import Agent
from tiermem.agent.openai_client import OpenAIClient
from tiermem.agent.repeated_calls import NEW_RESULT, SAME_RESULT
from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.tools.dispatch import MAX_ARGUMENT_BYTES


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        yield m


def client_for(url: str, sleeps: list[float], **kwargs: Any) -> OpenAIClient:
    kwargs.setdefault("max_retries", 2)
    return OpenAIClient("fake-model", base_url=url, sleep=sleeps.append, **kwargs)


def args(**values: Any) -> str:
    return json.dumps(values)


def without_message(snapshot: dict[str, Any], content: str) -> dict[str, Any]:
    copy = json.loads(json.dumps(snapshot))
    rows = copy["tables"]["messages"]
    dropped = [r for r in rows if r["content"] == content]
    assert len(dropped) == 1 and dropped[0]["status"] == "unanswered"
    copy["tables"]["messages"] = [r for r in rows if r["content"] != content]
    return copy


def test_tool_chain_then_reply_with_usage(
    server: FakeOpenAIServer, memory: HierarchicalMemory, sleeps: list[float]
) -> None:
    [first] = server.enqueue_tool_calls(
        [("core_memory_append", args(content="User's dog is Rex", request_heartbeat=True))],
        usage=(100, 10))
    [a, b] = server.enqueue_tool_calls(
        [("archival_memory_search", args(query="dog", request_heartbeat=True)),
         ("conversation_search", args(query="dog", request_heartbeat=True))],
        usage=(200, 20))
    server.enqueue_reply("Rex is a good name.", usage=(300, 30))

    result = Agent(memory, client_for(server.base_url, sleeps)).step("My dog is called Rex")

    assert result.reply == "Rex is a good name."
    assert result.usage == Usage(600, 60, 660)
    assert [f.text for f in memory.core] == ["User's dog is Rex"]
    assert len(server.requests) == 3 and server.pending == 0
    assert {t["function"]["name"] for t in server.requests[0]["tools"]} >= {
        "send_message", "core_memory_append", "conversation_search"}
    second = server.requests[1]["messages"]
    assert second[-2]["tool_calls"][0]["id"] == first
    assert second[-1] == {"role": "tool", "tool_call_id": first,
                          "content": second[-1]["content"]}
    assert second[-1]["content"].startswith("core + User's dog is Rex")
    third = server.requests[2]["messages"]
    assert [m.get("tool_call_id") for m in third[-2:]] == [a, b]
    assert json.loads(third[-2]["content"])["tier"] == "archival"
    assert json.loads(third[-1]["content"])["tier"] == "recall"
    assert sleeps == []


def test_rate_limit_then_success(
    server: FakeOpenAIServer, memory: HierarchicalMemory, sleeps: list[float]
) -> None:
    server.enqueue_error(429, headers={"Retry-After": "1"})
    server.enqueue_reply("Hello after waiting.")
    result = Agent(memory, client_for(server.base_url, sleeps)).step("hi")
    assert result.reply == "Hello after waiting."
    assert sleeps == [1.0]
    assert len(server.requests) == 2


def test_server_errors_until_give_up_raise_and_leave_memory_unchanged(
    server: FakeOpenAIServer, memory: HierarchicalMemory, sleeps: list[float]
) -> None:
    server.enqueue_reply("First answer.")
    agent = Agent(memory, client_for(server.base_url, sleeps))
    agent.step("hello")
    before = memory.snapshot()
    server.enqueue_tool_calls([("core_memory_append",
                                args(content="User owns a boat", request_heartbeat=True))])
    for _ in range(3):
        server.enqueue_error(500, {"error": {"message": "model crashed: CUDA out of memory"}})

    with pytest.raises(ProviderError) as info:
        agent.step("I own a boat")
    assert info.value.kind == "server" and info.value.attempts == 3
    assert "HTTP 500" in str(info.value) and "CUDA out of memory" in str(info.value)
    assert len(sleeps) == 2

    after = memory.snapshot()
    assert without_message(after, "I own a boat") == before
    assert "CUDA" not in json.dumps(after)
    assert [f.text for f in memory.core] == []


def test_timeout_raises_a_timeout_provider_error(
    server: FakeOpenAIServer, memory: HierarchicalMemory, sleeps: list[float]
) -> None:
    server.enqueue_hold()  # no answer ever comes: only the client's own timeout ends the call
    agent = Agent(memory, client_for(server.base_url, sleeps, timeout=0.2, max_retries=0))
    before = memory.snapshot()
    with pytest.raises(ProviderError) as info:
        agent.step("are you there?")
    assert len(server.requests) == 1
    assert info.value.kind == "timeout" and "0.2 s" in str(info.value)
    assert without_message(memory.snapshot(), "are you there?") == before


def test_connection_refused(memory: HierarchicalMemory, sleeps: list[float]) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    url = f"http://127.0.0.1:{port}/v1"
    agent = Agent(memory, client_for(url, sleeps, max_retries=1))
    with pytest.raises(ProviderError) as info:
        agent.step("anyone?")
    assert info.value.kind == "connection"
    assert url in str(info.value) and "is the server running?" in str(info.value)
    rows = list(memory.recall.iter_rows())
    assert [(r["role"], r["status"]) for r in rows] == [("user", "unanswered")]


@pytest.mark.parametrize(("tool", "field"), [("archival_memory_insert", "content"),
                                            ("send_message", "message")])
def test_huge_tool_argument_gets_an_error_tool_message(
    server: FakeOpenAIServer, memory: HierarchicalMemory, sleeps: list[float], tool: str,
    field: str,
) -> None:
    huge = args(**{field: "x" * (MAX_ARGUMENT_BYTES + 10)})
    assert len(huge) > MAX_ARGUMENT_BYTES
    [call_id] = server.enqueue_tool_calls([(tool, huge)])
    server.enqueue_reply("That was too long to store.")

    result = Agent(memory, client_for(server.base_url, sleeps)).step("store this file")

    assert result.reply == "That was too long to store."
    (outcome,) = result.tool_results
    assert outcome.error_kind == "too_large"
    assert outcome.content.startswith("Error:") and "1 MB limit" in outcome.content
    sent = server.requests[1]["messages"]
    tool_message = next(m for m in sent if m.get("tool_call_id") == call_id)
    assert tool_message["content"] == outcome.content
    assert len(memory.archival) == 0
    assert len(json.dumps(sent)) < MAX_ARGUMENT_BYTES  # the rejected text is not sent back
    assert all(len(r["tool_calls"] or "") < MAX_ARGUMENT_BYTES
               for r in memory.recall.iter_rows())


def test_malformed_and_unknown_calls_are_reported_back(
    server: FakeOpenAIServer, memory: HierarchicalMemory, sleeps: list[float]
) -> None:
    [bad, unknown] = server.enqueue_tool_calls(
        [("core_memory_append", '{"content": "tea"'), ("forget_everything", "{}")])
    server.enqueue_reply("Let me try again later.")
    result = Agent(memory, client_for(server.base_url, sleeps)).step("remember tea")
    assert result.reply == "Let me try again later."
    sent = {m.get("tool_call_id"): m["content"] for m in server.requests[1]["messages"]}
    assert sent[bad].startswith("Error:") and "not valid JSON" in sent[bad]
    assert sent[unknown].startswith("Error: there is no tool named 'forget_everything'")


def test_call_ids_the_client_makes_up_differ_from_one_session_to_the_next(
    server: FakeOpenAIServer, memory: HierarchicalMemory, sleeps: list[float]
) -> None:
    without_id = {"role": "assistant", "content": None, "tool_calls": [
        {"type": "function", "function": {"name": "core_memory_append",
                                          "arguments": args(content="Likes tea")}}]}
    as_text = ('<tool_call>{"name": "core_memory_append", "arguments": '
               '{"content": "Likes jazz"}}</tool_call>')
    for _ in range(2):  # two sessions, each with its own client
        agent = Agent(memory, client_for(server.base_url, sleeps))
        server.enqueue(FakeResponse(message=without_id, finish_reason="tool_calls"))
        agent.step("I like tea")
        server.enqueue_reply(as_text)
        agent.step("I like jazz")
    server.enqueue_reply("Noted.")
    Agent(memory, client_for(server.base_url, sleeps)).step("hello")

    history = server.requests[-1]["messages"]
    called = [c["id"] for m in history for c in m.get("tool_calls", [])]
    answered = [m["tool_call_id"] for m in history if m["role"] == "tool"]
    assert len(called) == 4 and len(set(called)) == 4
    assert answered == called


def test_two_calls_a_server_gives_one_id_are_answered_under_distinct_ids(
    server: FakeOpenAIServer, memory: HierarchicalMemory, sleeps: list[float]
) -> None:
    same_id = {"role": "assistant", "content": None, "tool_calls": [
        {"id": "call_0", "type": "function",
         "function": {"name": "core_memory_append",
                      "arguments": args(content=text, request_heartbeat=True)}}
        for text in ("Likes tea", "Likes jazz")]}
    server.enqueue(FakeResponse(message=same_id, finish_reason="tool_calls"))
    server.enqueue_reply("Noted both.")
    Agent(memory, client_for(server.base_url, sleeps)).step("I like tea and jazz")

    history = server.requests[-1]["messages"]
    called = [c["id"] for m in history for c in m.get("tool_calls", [])]
    answered = [m["tool_call_id"] for m in history if m["role"] == "tool"]
    assert len(set(called)) == 2 and all(re.fullmatch(r"[A-Za-z0-9]{9}", i) for i in called)
    assert answered == called


def test_a_send_message_dispatch_refuses_is_not_stored_as_said(
    server: FakeOpenAIServer, memory: HierarchicalMemory, sleeps: list[float]
) -> None:
    # A small model's sends with a number for the text, and with a field the tool does not
    # take: the user receives neither, so recall must not say the agent said them.
    [number, extra] = server.enqueue_tool_calls(
        [("send_message", args(message=123)),
         ("send_message", args(message="Your flight is booked.", urgent=True))])
    server.enqueue_tool_calls([("send_message", args(message="I could not book it."))])
    agent = Agent(memory, client_for(server.base_url, sleeps))

    result = agent.step("book my flight")

    assert result.reply == "I could not book it."
    assert [r.ok for r in result.tool_results] == [False, False, True]
    rows = list(memory.recall.iter_rows())
    said = [r["content"] for r in rows if r["role"] == "assistant"]
    assert said == ["", "I could not book it."]
    found = memory.recall_search("flight booked", roles=["assistant"]).hits
    assert not any("booked" in hit.text or "123" in hit.text for hit in found)
    # The refused calls stay in the history, each paired with its error.
    [refused] = [r for r in rows if r["role"] == "assistant" and not r["content"]]
    assert [c["id"] for c in json.loads(refused["tool_calls"])] == [number, extra]
    results = {r["tool_call_id"]: r["content"] for r in rows if r["role"] == "tool"}
    assert results[number].startswith("Error:") and results[extra].startswith("Error:")


def test_a_refused_send_beside_the_same_text_reloads_without_it(
    server: FakeOpenAIServer, memory: HierarchicalMemory, sleeps: list[float]
) -> None:
    # The model wrote its answer as text and sent it too, with a field send_message does
    # not take: recall keeps the text, and the send added nothing. An older version stored
    # a refused send alone the same way, so read back the text is taken away as that send's:
    # a refused send never reads as said. Nothing the user saw goes: text beside a call that
    # failed is never the reply (the turn goes on), and the call keeps its words.
    server.enqueue_tool_calls([("send_message", args(message="Sure.", to="user"))],
                              content="Sure.")
    server.enqueue_tool_calls([("send_message", args(message="Done."))], content="Sure.")
    agent = Agent(memory, client_for(server.base_url, sleeps))
    assert agent.step("do it").reply == "Done."
    said = [r["content"] for r in memory.recall.iter_rows() if r["role"] == "assistant"]
    assert said == ["Sure.", "Sure.\n\nDone."]
    live = json.loads(json.dumps(agent.context.messages))
    live[1]["content"] = ""
    assert Agent(memory, client_for(server.base_url, sleeps)).context.messages == live


def test_a_call_repeated_exactly_in_a_turn_says_so_in_its_result(
    server: FakeOpenAIServer, memory: HierarchicalMemory, sleeps: list[float]
) -> None:
    # A small model in a loop: the same search again (its keys in another order), then a
    # changed one, then the first again, then a note it files twice.
    search = args(query="dog", request_heartbeat=True)
    same = json.dumps({"request_heartbeat": True, "query": "dog"})
    note = args(content="User has a dog", request_heartbeat=True)
    ids = [server.enqueue_tool_calls([(name, arguments)])[0] for name, arguments in [
        ("archival_memory_search", search), ("archival_memory_search", same),
        ("archival_memory_search", args(query="cat", request_heartbeat=True)),
        ("archival_memory_search", search),
        ("core_memory_append", note), ("core_memory_append", note)]]
    server.enqueue_reply("I found nothing about your dog.")
    agent = Agent(memory, client_for(server.base_url, sleeps))

    result = agent.step("what is my dog called?")

    assert result.reply == "I found nothing about your dog." and result.stopped is None
    assert result.steps == 7
    contents = [r.content for r in result.tool_results]
    assert [c.endswith(SAME_RESULT) for c in contents] == [
        False, True, False, True, False, False]
    assert contents[1] == f"{contents[0]}\n\n{SAME_RESULT}"
    assert contents[5].endswith(NEW_RESULT)  # filed again: its result says what it did now
    sent = {m.get("tool_call_id"): m["content"] for m in server.requests[-1]["messages"]}
    assert [sent[i] for i in ids] == contents
    stored = {r["tool_call_id"]: r["content"] for r in memory.recall.iter_rows()
              if r["role"] == "tool"}
    assert [stored[i] for i in ids] == contents

    # Another turn starts afresh: the same search is a new call there.
    server.enqueue_tool_calls([("archival_memory_search", search)])
    server.enqueue_reply("Still nothing.")
    [again] = agent.step("look again").tool_results
    assert "you already made this exact call" not in again.content


def test_a_call_made_again_after_memory_changed_is_a_new_call(
    server: FakeOpenAIServer, memory: HierarchicalMemory, sleeps: list[float]
) -> None:
    # Search, file what the user said, search again to check: the second search asks
    # anew (its result changed because the insert did), so no note tells the model it
    # is looping. Searched once more with nothing changed, it is a repeat, and its result
    # is the same as the last one's, which the note says.
    search = args(query="dog", request_heartbeat=True)
    for name, arguments in [
            ("archival_memory_search", search),
            ("archival_memory_insert", args(content="User's dog is called Rex",
                                            request_heartbeat=True)),
            ("archival_memory_search", search), ("archival_memory_search", search)]:
        server.enqueue_tool_calls([(name, arguments)])
    server.enqueue_reply("Your dog is Rex.")
    agent = Agent(memory, client_for(server.base_url, sleeps))

    result = agent.step("my dog is called Rex; check you have it")

    contents = [r.content for r in result.tool_results]
    assert "Rex" not in contents[0] and "Rex" in contents[2]
    assert "you already made this exact call" not in contents[2]
    assert contents[3] == f"{contents[2]}\n\n{SAME_RESULT}"
