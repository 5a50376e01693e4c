"""A tool call whose name or id is blank (whitespace only, as a small model or a garbled
stream may send): the model is told there is no such tool, and recall keeps the call and its
result as they came; neither fails the turn."""

from __future__ import annotations

import pytest

from tiermem.agent.llm import Completion, ToolCall
from tiermem.agent.loop import Agent
from tiermem.agent.scripted import ScriptedModel, call
from tiermem.memory import HashingEmbedder, HierarchicalMemory


@pytest.mark.parametrize("blank", [" ", "\x85", "\u2028", "\t\n"])
def test_a_blank_tool_name_is_an_unknown_tool_the_model_is_told_of(blank: str) -> None:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        with ScriptedModel([call(blank, content="x"), call("send_message", message="ok")]
                           ) as model:
            turn = Agent(memory, model).step("hello")
        assert turn.reply == "ok"
        assert turn.tool_results[0].content.startswith(
            f"Error: there is no tool named {blank!r}")
        tool_messages = [row for row in memory.recall.iter_rows() if row["role"] == "tool"]
        assert [row["tool_name"] for row in tool_messages] == [blank, "send_message"]


@pytest.mark.parametrize("blank", [" ", "\x85"])
def test_a_blank_call_id_is_stored_as_it_came(blank: str) -> None:
    appended = '{"content": "User likes tea", "request_heartbeat": true}'
    step = Completion(content=None, finish_reason="tool_calls", model="scripted", tool_calls=[
        ToolCall(id=blank, name="core_memory_append", arguments=appended)])
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        with ScriptedModel([step, call("send_message", message="ok")]) as model:
            turn = Agent(memory, model).step("I like tea")
        assert turn.reply == "ok"
        assert [fact.text for fact in memory.core] == ["User likes tea"]
        tool_messages = [row for row in memory.recall.iter_rows() if row["role"] == "tool"]
        assert tool_messages[0]["tool_call_id"] == blank
