"""A paste longer than any window, offline: filed in archival in parts, never refused."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest

from tiermem.agent.loop import Agent
from tiermem.agent.offline import CHUNK_CHARS, OfflinePolicy
from tiermem.agent.trimming import MIN_SHOWN_TOKENS, trimmed_for_context
from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.text.sentences import chunk_text
from tiermem.memory.text.tokenizer import TokenCounter
from tiermem.tools.memory_tools import HIT_TEXT_CHARS, ToolContext, memory_toolbox

COUNTER = TokenCounter()


def paste(chars: int, seed: int = 1) -> str:
    """Log lines that tokenise densely, like the pastes people make (~2.5 characters a token)."""
    rng = random.Random(seed)
    lines: list[str] = []
    while sum(map(len, lines)) < chars:
        lines.append(f"2024-03-05 06:{rng.randrange(60):02d}:{rng.randrange(60):02d} ERROR "
                     f"req={rng.getrandbits(48):x} user={rng.randrange(99_999)} payment-service "
                     f"timeout talking to db-{rng.randrange(99)}")
    return "\n".join(lines)


def test_a_paste_over_the_window_is_filed_in_parts_with_a_note(tmp_path: Path) -> None:
    text = paste(120_000)
    policy = OfflinePolicy()
    assert COUNTER.count(text) > policy.context_window  # the size that used to be refused
    with HierarchicalMemory(tmp_path, embedder=HashingEmbedder()) as memory:
        reply = Agent(memory, policy).step(text).reply or ""
        parts = [row["text"] for row in memory.archival.iter_rows()]
        [stored] = [r for r in memory.snapshot()["tables"]["messages"] if r["role"] == "user"]
    assert len(parts) > 1 and all(len(p) <= CHUNK_CHARS for p in parts)
    assert "".join(parts).replace("\n", "") == text.replace("\n", "")
    assert stored["content"] == text and stored["status"] == "ok"
    assert re.search(rf"filed it in archival in {len(parts)} parts \(passages 1-{len(parts)}\)",
                     reply)
    assert "window" not in reply and "model" not in reply

    # The next session loads the window with the paste in it, and still answers.
    with HierarchicalMemory(tmp_path, embedder=HashingEmbedder()) as memory:
        agent = Agent(memory, OfflinePolicy())
        assert agent.context.messages[0]["content"].startswith(f"[{len(text):,} characters")
        answer = agent.step("Which requests timed out talking to db-59?").reply or ""
    assert answer.startswith("(offline")
    assert "[truncated" not in answer  # every search result came back whole


def test_the_window_counts_a_stand_in_for_the_paste_only_offline() -> None:
    policy = OfflinePolicy()
    text = paste(5_000)
    assert policy.shown_text("I live in Lisbon.") == "I live in Lisbon."
    shown = policy.shown_text(text)
    assert shown.startswith(f"[{len(text):,} characters, filed in archival: 2024-03-05")
    assert len(shown) < 200


@pytest.mark.parametrize(("text", "limit", "pieces"), [
    ("One two three. Four five six.", 100, ["One two three. Four five six."]),
    ("First para.\n\nSecond para is longer.", 30, ["First para.", "Second para is longer."]),
    ("Line one\nLine two\nLine three", 19, ["Line one\nLine two", "Line three"]),
    ("Dr. Smith came. He left.", 20, ["Dr. Smith came.", "He left."]),
    ("alpha beta gamma delta", 12, ["alpha beta", "gamma delta"]),
    ("a" * 25, 10, ["a" * 10, "a" * 10, "a" * 5]),
    ("  \n ", 10, []),
])
def test_chunks_are_cut_where_a_reader_would(text: str, limit: int, pieces: list[str]) -> None:
    assert chunk_text(text, limit) == pieces


def test_chunks_never_exceed_the_limit_and_lose_nothing_but_whitespace() -> None:
    text = paste(30_000, seed=7) + "\n\n" + "Prose follows. " * 400
    parts = chunk_text(text, 1_000)
    assert all(0 < len(p) <= 1_000 for p in parts)
    assert "".join("".join(p.split()) for p in parts) == "".join(text.split())
    with pytest.raises(ValueError):
        chunk_text(text, 0)


def test_many_long_calls_in_one_message_share_the_shown_limit() -> None:
    calls = [{"id": f"c{i}", "type": "function", "function": {
        "name": "archival_memory_insert", "arguments": json.dumps({"content": paste(2_000, i)})}}
        for i in range(40)]
    message = {"role": "assistant", "content": None, "tool_calls": calls}
    limit = 4_000
    shown = trimmed_for_context(message, limit, COUNTER)
    assert COUNTER.count(json.dumps(calls)) > 8 * limit
    # Each call keeps its share: the message stays near the limit, not 40 times it.
    assert COUNTER.count(json.dumps(shown["tool_calls"])) < limit + 40 * MIN_SHOWN_TOKENS


def test_search_results_show_the_start_of_a_long_text_and_stay_whole() -> None:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        for seed in range(5):
            memory.archival_insert(paste(50_000, seed))
        result = memory_toolbox().dispatch(
            "archival_memory_search", json.dumps({"query": "payment-service timeout"}),
            call_id="c1", context=ToolContext(memory=memory, turn=1))
    hits = json.loads(result.content)["results"]
    assert len(hits) == 5
    for hit in hits:
        assert len(hit["text"]) < HIT_TEXT_CHARS + 200
        assert hit["text"].endswith("find a passage about them]")


def test_a_core_bigger_than_the_window_is_not_refused_offline() -> None:
    policy = OfflinePolicy()
    with HierarchicalMemory(None, embedder=HashingEmbedder(), core_limit=60_000) as memory:
        for seed in range(16):
            memory.add_fact(paste(6_000, seed).replace("\n", " "), "durable")
        assert memory.core.tokens > policy.context_window
        agent = Agent(memory, policy)
        reply = agent.step("I live in Lisbon.").reply or ""
        assert "User lives in Lisbon" in reply
        assert agent.step("Where do I live?").reply == (
            "(offline, quoting memory)\n- From core memory: User lives in Lisbon")
