"""The scripted test double: steps played in order, checked for exhaustion and for steps
left unused."""

from __future__ import annotations

import json
from typing import Any

import pytest
from openai_helpers import MESSAGES, TOOLS

from tiermem.agent.errors import ProviderError, ScriptExhaustedError, ScriptUnusedError
from tiermem.agent.llm import Completion, LLMClient
from tiermem.agent.scripted import ScriptedModel, call, calls, raw_call, reply


def test_scripted_plays_steps_in_order_and_records_copies() -> None:
    model = ScriptedModel([call("core_memory_append", text="likes tea"), reply("noted")])
    messages = [dict(m) for m in MESSAGES]
    first = model.complete(messages, TOOLS)
    messages.append({"role": "user", "content": "changed after the call"})
    second = model.complete(messages, TOOLS)

    assert json.loads(first.tool_calls[0].arguments) == {"text": "likes tea"}
    assert second.content == "noted"
    assert model.calls[0].messages == MESSAGES
    assert len(model.calls[1].messages) == 3
    assert model.calls[0].tool_names == ["core_memory_append"]
    model.assert_finished()
    assert isinstance(model, LLMClient)
    assert (model.name, model.context_window) == ("scripted", 8192)


def test_scripted_exhaustion_says_how_many_steps() -> None:
    model = ScriptedModel([reply("a"), reply("b")])
    model.complete(MESSAGES, TOOLS)
    model.complete(MESSAGES, TOOLS)
    with pytest.raises(ScriptExhaustedError, match="only 2 steps"):
        model.complete(MESSAGES, TOOLS)
    assert len(model.calls) == 3


def test_scripted_unused_steps_are_listed() -> None:
    model = ScriptedModel([reply("used"), call("archival_memory_search", query="tea")])
    model.complete(MESSAGES, TOOLS)
    with pytest.raises(ScriptUnusedError) as info:
        model.assert_finished()
    assert "archival_memory_search" in str(info.value)
    assert "1 of 2" in str(info.value)


def test_scripted_context_manager_checks_on_clean_exit_only() -> None:
    with pytest.raises(ScriptUnusedError), ScriptedModel([reply("never")]):
        pass
    with pytest.raises(KeyError), ScriptedModel([reply("never")]):
        raise KeyError("the real failure")


def test_scripted_exception_step_is_raised() -> None:
    failure = ProviderError("down", kind="server")
    model = ScriptedModel([failure, reply("recovered")])
    with pytest.raises(ProviderError) as info:
        model.complete(MESSAGES, TOOLS)
    assert info.value is failure
    assert model.complete(MESSAGES, TOOLS).content == "recovered"


def test_scripted_callable_step_sees_the_prompt() -> None:
    def echo(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Completion:
        return reply(f"{messages[-1]['content']} / {len(tools)} tools")

    model = ScriptedModel([echo])
    assert model.complete(MESSAGES, TOOLS).content == "I like green tea. / 1 tools"


def test_scripted_helpers() -> None:
    parallel = calls(("a", {"x": 1}), ("b", {}))
    assert [(c.name, json.loads(c.arguments)) for c in parallel.tool_calls] == [
        ("a", {"x": 1}),
        ("b", {}),
    ]
    broken = raw_call("a", '{"x": ')
    assert broken.tool_calls[0].arguments == '{"x": '
    named = call("a", name="argument called name")
    assert json.loads(named.tool_calls[0].arguments) == {"name": "argument called name"}
    ids = [c.id for step in (parallel, broken, named) for c in step.tool_calls]
    assert len(set(ids)) == len(ids)
    assert parallel.as_message()["tool_calls"][1]["function"] == {"name": "b", "arguments": "{}"}
    assert "tool_calls" not in reply("hi").as_message()
