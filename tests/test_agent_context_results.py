"""A turn of several long tool results on a small window: the results share the window.

Each result alone is trimmed to a quarter of the prompt budget (agent/trimming.py), but
three pages of long hits in one turn still filled a 4,096-token window, and the current
turn is never summarised away: the turn ended with ContextOverflowError, advising a
shorter message, and the user's message was left unanswered.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from fake_openai import FakeOpenAIServer
from test_agent_context import assert_no_orphans

from tiermem.agent.context import ContextOverflowError, ContextWindow
from tiermem.agent.earlier_turns import extractive_summary
from tiermem.agent.loop import Agent
from tiermem.agent.openai_client import OpenAIClient
from tiermem.agent.repeated_calls import SAME_RESULT
from tiermem.agent.trimming import shared_results
from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.text.tokenizer import TokenCounter

WINDOW, MAX_TOKENS = 4096, 512
STRING_MARKER = "characters not shown; search with words from further on to find the rest]"


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        for i in range(12):  # a dozen passages of 3,000 characters
            m.archival_insert(f"Passage {i} about tea: {words(1_500)}"[:3_000])
        yield m


def words(n: int) -> str:
    return " ".join(f"item{i % 997}" if i % 3 else f"note-{i}" for i in range(n))


def searches(server: FakeOpenAIServer, *queries: str) -> None:
    for query in queries:
        server.enqueue_tool_calls([("archival_memory_search", json.dumps(
            {"query": query, "request_heartbeat": True}))])


def small_agent(memory: HierarchicalMemory, server: FakeOpenAIServer) -> Agent:
    client = OpenAIClient("fake-model", base_url=server.base_url, context_window=WINDOW,
                          max_tokens=MAX_TOKENS)
    return Agent(memory, client, summarizer=extractive_summary)


def prompt_size(agent: Agent, request: dict[str, Any]) -> int:
    """A request as the window counts it, tool schemas included."""
    return (sum(agent.context.count_message(m) for m in request["messages"])
            + agent.context.counter.count(json.dumps(request["tools"])))


def test_three_pages_of_long_hits_in_one_turn_share_a_small_window(
        server: FakeOpenAIServer, memory: HierarchicalMemory) -> None:
    searches(server, "tea", "about tea", "passage tea")
    server.enqueue_reply("Found it.")
    agent = small_agent(memory, server)
    result = agent.step("what about tea?")

    assert result.reply == "Found it." and result.notice is None
    assert len(server.requests) == 4
    for request in server.requests:
        assert prompt_size(agent, request) <= WINDOW - MAX_TOKENS
        assert_no_orphans(request["messages"][1:])
    # Recall keeps every result whole; the window shows each cut, every hit still there
    # by id and the start of its text, with a marker saying how to reach the rest.
    fulls = [r.content for r in result.tool_results]
    stored = [r["content"] for r in memory.recall.iter_rows() if r["role"] == "tool"]
    assert stored == fulls and all(len(full) > 15_000 for full in fulls)
    last = server.requests[-1]["messages"]
    shown = [m for m in last if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in shown] == [c.id for c in result.tool_calls]
    for message, full in zip(shown, fulls, strict=True):
        page, whole = json.loads(message["content"]), json.loads(full)
        assert [h["id"] for h in page["results"]] == [h["id"] for h in whole["results"]]
        assert page["page"] == whole["page"] and len(page["results"]) == 5
        for hit, kept in zip(page["results"], whole["results"], strict=True):
            assert hit["text"].startswith(kept["text"][:20])
            assert hit["text"].endswith(STRING_MARKER)

    # A next turn that searches again folds the trimmed one into the summary as usual.
    searches(server, "tea note")
    server.enqueue_reply("Yes, tea.")
    second = agent.step("and was it about tea?")
    assert second.reply == "Yes, tea." and second.compacted
    for request in server.requests[4:]:
        assert prompt_size(agent, request) <= WINDOW - MAX_TOKENS


def test_results_that_cannot_fit_even_cut_to_their_ids_fail_with_advice_about_them(
        server: FakeOpenAIServer, memory: HierarchicalMemory) -> None:
    searches(server, "tea", "about tea", "passage tea", "tea note", "tea item")
    agent = small_agent(memory, server)
    with pytest.raises(ContextOverflowError) as info:
        agent.step("what about tea?")
    message = str(info.value)
    assert "tool results of this turn take" in message
    assert "or ask for less in one message" in message
    assert "shorter message" not in message
    for request in server.requests:  # nothing larger than the window was sent
        assert prompt_size(agent, request) <= WINDOW - MAX_TOKENS
    statuses = [r["status"] for r in memory.recall.iter_rows() if r["role"] == "user"]
    assert statuses == ["unanswered"]


def test_a_message_too_long_beside_results_is_still_the_message_to_shorten(
        server: FakeOpenAIServer, memory: HierarchicalMemory) -> None:
    agent = small_agent(memory, server)
    with pytest.raises(ContextOverflowError) as info:
        agent.step("tea? " + words(3_000))
    assert "send a shorter message" in str(info.value) and server.requests == []


def test_shared_results_cut_the_largest_and_leave_the_rest_as_they_are() -> None:
    counter = TokenCounter()
    small = json.dumps({"status": "ok", "stored": "User likes tea"})
    page = json.dumps({"results": [{"id": i, "text": words(400)} for i in range(5)]})
    results = [(small, small), (page, page), (page, page)]
    size = counter.count(page)
    shown, least = shared_results(results, size, counter)
    assert shown is not None and shown[0] is small
    assert sum(counter.count(s) for s in shown) <= size < 2 * counter.count(page)
    for text in shown[1:]:
        assert [h["id"] for h in json.loads(text)["results"]] == list(range(5))
    assert shared_results(results, least - 1, counter)[0] is None
    # Room enough for all: nothing changes, nothing grows.
    unchanged, _ = shared_results(results, 3 * size, counter)
    assert unchanged is not None and all(a is b[0] for a, b in zip(unchanged, results, strict=True))


def test_a_repeated_search_trimmed_keeps_every_hit_and_its_note(
        server: FakeOpenAIServer, memory: HierarchicalMemory) -> None:
    # The note after a repeated call's result made the page no JSON to the trimming: it
    # was cut from the end, showing its first hit alone, and the note with the rest.
    searches(server, "tea", "tea")
    server.enqueue_reply("Found it.")
    agent = small_agent(memory, server)
    result = agent.step("what about tea?")

    assert result.tool_results[1].content.endswith(SAME_RESULT)
    shown = [m["content"] for m in server.requests[-1]["messages"] if m["role"] == "tool"]
    assert not shown[0].endswith(SAME_RESULT) and shown[1].endswith("\n\n" + SAME_RESULT)
    whole = json.loads(result.tool_results[0].content)
    for text in shown:
        page = json.loads(text.removesuffix("\n\n" + SAME_RESULT))
        assert [h["id"] for h in page["results"]] == [h["id"] for h in whole["results"]]
    for request in server.requests:
        assert prompt_size(agent, request) <= WINDOW - MAX_TOKENS
    # Shared with other results too, each page keeps its hits and the note.
    counter = agent.context.counter
    full = result.tool_results[1].content
    least = shared_results([(full, full), (full, full)], 1_200, counter)[0]
    assert least is not None
    for text in least:
        assert text.endswith(SAME_RESULT)
        page = json.loads(text.removesuffix("\n\n" + SAME_RESULT))
        assert len(page["results"]) == 5


def test_a_result_first_shown_whole_is_trimmed_again_from_its_full_text(
        memory: HierarchicalMemory) -> None:
    # Pages that each fit their share are shown whole; shared once, they are cut; a result
    # more, and they are cut again: from their full text, so each hit's marker still says
    # how much of the stored text is not shown, not how much of the page shown before.
    window = ContextWindow(window=WINDOW, counter=TokenCounter(), reserve=MAX_TOKENS)
    user = {"role": "user", "content": "what about tea?"}
    window.remember(user, user, 1)
    text = words(60)
    page = json.dumps({"results": [{"id": i, "text": text} for i in range(5)]})
    for n in range(2, 9):
        call = {"role": "assistant", "content": "", "tool_calls": [{
            "id": f"c{n}", "type": "function",
            "function": {"name": "archival_memory_search", "arguments": "{}"}}]}
        result = {"role": "tool", "tool_call_id": f"c{n}", "content": page}
        window.remember(call, call, 2 * n)
        window.remember(result, result, 2 * n + 1)  # within its share: shown whole
        window.make_room(memory, [], extractive_summary, 0)
    shown = [m["content"] for m in window.messages if m["role"] == "tool"]
    assert all(content != page for content in shown)  # all cut, some more than once
    for content in shown:
        for hit in json.loads(content)["results"]:
            assert hit["text"].endswith(STRING_MARKER)
            assert f" of {len(text):,} characters not shown" in hit["text"]


def test_a_document_filed_in_many_long_calls_shares_the_window_with_its_results(
        server: FakeOpenAIServer, memory: HierarchicalMemory) -> None:
    # Each call's arguments alone are cut to an eighth of the prompt budget, but a long
    # document filed in six steps took six eighths: the sixth request no longer fit, and
    # the turn failed, advising a shorter message, with none of the parts filed.
    parts = [f"Part {k} of the manual: " + words(1_500).replace("item", f"p{k}-")
             for k in range(6)]
    for part in parts:
        server.enqueue_tool_calls([("archival_memory_insert", json.dumps(
            {"content": part, "request_heartbeat": True}))])
    server.enqueue_reply("Filed all six parts.")
    before = len(memory.archival)
    agent = small_agent(memory, server)
    result = agent.step("file this manual")

    assert result.reply == "Filed all six parts." and result.notice is None
    assert len(server.requests) == 7 and len(memory.archival) == before + 6
    for request in server.requests:
        assert prompt_size(agent, request) <= WINDOW - MAX_TOKENS
        assert_no_orphans(request["messages"][1:])
    # Recall keeps every call whole; the window shows each cut, saying where the rest is.
    stored = [json.loads(c["function"]["arguments"])["content"]
              for r in memory.recall.rows(range(1, len(memory.recall) + 1))
              for c in r.get("tool_calls") or ()]
    assert stored == parts
    shown = [json.loads(m["tool_calls"][0]["function"]["arguments"])["content"]
             for m in server.requests[-1]["messages"] if m.get("tool_calls")]
    assert len(shown) == 6
    for text, part in zip(shown, parts, strict=True):
        head = text.split("…", 1)[0]
        assert part.startswith(head) and len(head) > 100
        assert text.endswith(f" of {len(part):,} characters not shown; the full text is "
                             "stored in recall]")
