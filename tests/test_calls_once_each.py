"""The same call twice in one reply runs once (agent/repeated_calls.py, agent/loop.py)."""

from __future__ import annotations

import json

from fake_openai import FakeOpenAIServer
from text_call_turns import allergy_turn

from tiermem.agent.llm import Completion, ToolCall
from tiermem.agent.repeated_calls import once_each

FACT = {"content": "Allergic to peanuts"}
APPEND_JSON = json.dumps({"name": "core_memory_append", "arguments": FACT})


def test_a_call_identical_to_one_before_it_in_the_reply_is_left_out() -> None:
    calls = [ToolCall("a", "core_memory_append", '{"content": "x", "durability": "durable"}'),
             ToolCall("b", "core_memory_append", '{"durability":"durable","content":"x"}'),
             ToolCall("c", "core_memory_append", '{"content": "y"}'),
             ToolCall("d", "archival_memory_search", '{"content": "x"}'),
             ToolCall("e", "core_memory_append", '{"content": "y"}')]
    assert [c.id for c in once_each(Completion(None, calls)).tool_calls] == ["a", "c", "d"]
    distinct = Completion(None, calls[2:4])
    assert once_each(distinct) is distinct


def test_a_call_written_twice_in_its_tags_runs_once(server: FakeOpenAIServer) -> None:
    result, rows = allergy_turn(
        server, f"<tool_call>\n{APPEND_JSON}\n</tool_call>\n<tool_call>\n{APPEND_JSON}\n"
                f"</tool_call>")
    assert [(r.name, r.ok) for r in result.tool_results] == [("core_memory_append", True)]
    assert "already" not in result.tool_results[0].content
    [asked] = [r for r in rows if r["role"] == "assistant"]
    assert len(asked["tool_calls"]) == 1
    assert [r["role"] for r in rows] == ["user", "assistant", "tool"]
