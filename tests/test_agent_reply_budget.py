"""The reply budget (max_tokens) kept free in the window, and the model's own token encoding."""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from typing import Any

import pytest
from fake_openai import FakeOpenAIServer, FakeResponse

from tiermem.agent.config import (
    DEFAULT_MAX_TOKENS,
    LLMConfig,
    default_max_tokens,
    resolve_llm_config,
)
from tiermem.agent.context import ContextOverflowError, ContextWindow
from tiermem.agent.earlier_turns import extractive_summary
from tiermem.agent.errors import LLMConfigError
from tiermem.agent.loop import Agent
from tiermem.agent.openai_client import OpenAIClient
from tiermem.agent.scripted import ScriptedCall, ScriptedModel, reply
from tiermem.agent.server_options import add_server_options
from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.text.tokenizer import TokenCounter

LOCAL = {"TIERMEM_MODEL": "llama3.1", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}
FIRST = ("Please keep in mind that the quarterly report for the northern region is due on "
         "the fourth of March, that Priya owns the forecast tab, and that the numbers for "
         "the spreadsheet come from the finance export every Monday morning. ") * 3


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        yield m


def prompt_size(agent: Agent, recorded: ScriptedCall) -> int:
    """What the window counted for a recorded call (tools included)."""
    counted = sum(agent.context.count_message(m) for m in recorded.messages)
    return counted + agent.context.counter.count(json.dumps(recorded.tools))


def two_turns(window: int, max_tokens: int) -> tuple[Agent, ScriptedModel, list[bool]]:
    """A long first turn, then a short one, on a fresh memory; returns who compacted."""
    model = ScriptedModel([reply("Noted, all three."), reply("The fourth of March.")],
                          context_window=window, max_tokens=max_tokens)
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        agent = Agent(memory, model, summarizer=extractive_summary)
        agent.context.pressure_alerted = True  # keep the one-off alert out of the sizes
        compacted = [agent.step(FIRST).compacted, agent.step("When is the report due?").compacted]
    return agent, model, compacted


def test_a_prompt_that_fits_the_window_but_not_the_reply_budget_is_compacted() -> None:
    agent, model, compacted = two_turns(1_000_000, 0)
    first, second = (prompt_size(agent, recorded) for recorded in model.calls)
    # The second prompt fits window-1 but not window-max_tokens; the first fits both.
    window = second + 1
    budget = window - first
    assert budget > 1

    _, model, compacted = two_turns(window, 0)
    assert compacted == [False, False]  # without a reply budget the prompt is sent as is
    assert prompt_size(agent, model.calls[1]) == second

    agent, model, compacted = two_turns(window, budget)
    assert compacted == [False, True]
    for recorded in model.calls:
        assert prompt_size(agent, recorded) + budget <= window
    assert "Priya" not in str(model.calls[1].messages[1:])  # the first turn was folded away


def test_a_prompt_with_nothing_to_fold_is_a_clear_error(memory: HierarchicalMemory) -> None:
    probe = ScriptedModel([reply("ok")], context_window=1_000_000)
    agent = Agent(memory, probe)
    agent.step(FIRST)
    size = prompt_size(agent, probe.calls[0])

    with HierarchicalMemory(None, embedder=HashingEmbedder()) as fresh:
        model = ScriptedModel([], context_window=size + 1, max_tokens=50)
        with pytest.raises(ContextOverflowError) as info:
            Agent(fresh, model).step(FIRST)
    assert model.calls == []  # nothing was sent
    message = str(info.value)
    assert f"window is {size + 1} tokens, 50 of them kept for the reply" in message
    assert "TIERMEM_MAX_TOKENS" in message


def test_budget_is_the_window_less_the_reply() -> None:
    counter = TokenCounter()
    assert ContextWindow(window=8192, counter=counter, reserve=1024).budget == 7168
    assert ContextWindow(window=8192, counter=counter).budget == 8191
    assert ContextWindow(window=8192, counter=counter, reserve=1024).fits(7168)
    assert not ContextWindow(window=8192, counter=counter, reserve=1024).fits(7169)


@pytest.mark.parametrize(("model", "encoding"), [
    ("gpt-4o", "o200k_base"),
    ("gpt-4o-mini-2024-07-18", "o200k_base"),
    ("openai/gpt-4.1-nano", "o200k_base"),
    ("o1-preview", "o200k_base"),
    ("o3-mini", "o200k_base"),
    ("o4-mini", "o200k_base"),
    ("gpt-4-turbo", "cl100k_base"),
    ("gpt-3.5-turbo", "cl100k_base"),
    ("llama3.1:8b", "cl100k_base"),
    ("qwen2.5-7b-instruct", "cl100k_base"),
])
def test_encoding_follows_the_model_name(model: str, encoding: str) -> None:
    config = resolve_llm_config(model=model, base_url="http://127.0.0.1:9/v1", env={})
    assert config is not None and config.effective_encoding == encoding


def test_encoding_is_configurable() -> None:
    env = {**LOCAL, "TIERMEM_MODEL": "gpt-4o"}
    for value, expected in (("cl100k", "cl100k_base"), ("cl100k_base", "cl100k_base"),
                            (" O200K ", "o200k_base")):
        config = resolve_llm_config(env={**env, "TIERMEM_ENCODING": value})
        assert config is not None and config.effective_encoding == expected
    config = resolve_llm_config(env={**env, "TIERMEM_ENCODING": "cl100k"}, encoding="o200k")
    assert config is not None and config.effective_encoding == "o200k_base"
    with pytest.raises(LLMConfigError,
                       match=r"unknown tokenizer encoding 'p50k'.*TIERMEM_ENCODING"):
        resolve_llm_config(env={**env, "TIERMEM_ENCODING": "p50k"})


def test_the_agent_counts_the_prompt_in_the_models_encoding(
    server: FakeOpenAIServer, memory: HierarchicalMemory,
) -> None:
    agent = Agent(memory, OpenAIClient("gpt-4o", base_url=server.base_url))
    assert agent.context.counter.encoding == "o200k_base"
    assert memory.tokenizer.encoding == "cl100k_base"  # core limits keep their own unit
    text = "Здравствуйте, как дела? " * 20  # counted differently by the two encodings
    assert agent.context.counter.count(text) == TokenCounter("o200k_base").count(text)
    assert agent.context.counter.count(text) != TokenCounter("cl100k_base").count(text)
    configured = OpenAIClient("gpt-4o", base_url=server.base_url, encoding="cl100k")
    assert Agent(memory, configured).context.counter is memory.tokenizer


def test_reply_budget_defaults_and_environment() -> None:
    assert default_max_tokens("llama3.1", 8192) == DEFAULT_MAX_TOKENS == 1024
    assert default_max_tokens("llama3.1", 2048) == 512  # a quarter of a small window
    assert default_max_tokens("o3-mini", 200_000) == 8192  # reasoning shares the budget
    config = resolve_llm_config(env=LOCAL)
    assert config is not None and config.max_tokens is None
    assert config.effective_max_tokens == 1024
    config = resolve_llm_config(env={**LOCAL, "TIERMEM_MAX_TOKENS": "300"})
    assert config is not None and config.effective_max_tokens == 300
    config = resolve_llm_config(env={**LOCAL, "TIERMEM_MAX_TOKENS": "300"}, max_tokens=200)
    assert config is not None and config.effective_max_tokens == 200


def test_the_max_tokens_help_gives_the_defaults_a_model_gets() -> None:
    # A reader of --help for an o-series or gpt-5 model must not expect 1024.
    parser = argparse.ArgumentParser()
    add_server_options(parser)
    action = next(a for a in parser._actions if "--max-tokens" in a.option_strings)
    text = " ".join(str(action.help).split())
    budgets = {default_max_tokens(model, 1_000_000) for model in ("llama3.1", "o3", "gpt-5")}
    assert budgets == {1024, 8192}
    assert "default 1024, 8192 for o-series and gpt-5 models" in text


@pytest.mark.parametrize(("value", "fragment"), [
    ("many", "TIERMEM_MAX_TOKENS='many' is not a whole number"),
    ("0", "must be a positive token count"),
])
def test_bad_reply_budgets_are_refused_before_any_turn(value: str, fragment: str) -> None:
    with pytest.raises(LLMConfigError, match=fragment):
        resolve_llm_config(env={**LOCAL, "TIERMEM_MAX_TOKENS": value})
    with pytest.raises(LLMConfigError):
        LLMConfig(model="llama3.1", max_tokens=int(value) if value.isdigit() else -1)


def test_a_reply_budget_is_weighed_against_the_window_once_it_is_known() -> None:
    # Before the server is asked for its window, a budget too large for the 8192 tokens
    # assumed without one may still fit the server's (agent/server_facts.py checks it then).
    config = resolve_llm_config(env={**LOCAL, "TIERMEM_MAX_TOKENS": "5000"})
    assert config is not None and config.max_tokens == 5000
    with pytest.raises(LLMConfigError, match="less than half of the 8192-token context window"):
        resolve_llm_config(env={**LOCAL, "TIERMEM_MAX_TOKENS": "5000",
                                "TIERMEM_CONTEXT_WINDOW": "8192"})
    with pytest.raises(LLMConfigError, match="less than half of the 8192-token context window"):
        OpenAIClient.from_config(config)  # no window settled: the one assumed


def test_request_carries_max_tokens(server: FakeOpenAIServer, memory: HierarchicalMemory) -> None:
    server.enqueue_reply("hello")
    server.enqueue_reply("hello again")
    config = resolve_llm_config(model="fake-model", base_url=server.base_url,
                                env={"TIERMEM_MAX_TOKENS": "321"})
    assert config is not None
    agent = Agent(memory, OpenAIClient.from_config(config))
    agent.step("hi")
    assert server.requests[0]["max_tokens"] == 321
    assert agent.context.reserve == 321

    Agent(memory, OpenAIClient("fake-model", base_url=server.base_url)).step("hi")
    assert server.requests[1]["max_tokens"] == 1024


def test_reasoning_models_get_max_completion_tokens(server: FakeOpenAIServer) -> None:
    server.enqueue_reply("ok")
    OpenAIClient("o3-mini", base_url=server.base_url, max_tokens=4000).complete(
        [{"role": "user", "content": "hi"}], [])
    request: dict[str, Any] = server.requests[0]
    assert request["max_completion_tokens"] == 4000 and "max_tokens" not in request


def test_a_reply_cut_at_the_budget_is_stored_marked_as_cut(
        server: FakeOpenAIServer, memory: HierarchicalMemory) -> None:
    server.enqueue_reply("The report is due on the fo", finish_reason="length")
    result = Agent(memory, OpenAIClient("fake-model", base_url=server.base_url,
                                        max_tokens=7)).step("When is it due?")
    assert result.reply == "The report is due on the fo [cut off at max_tokens=7]"
    assert result.notice is not None
    assert "cut at max_tokens=7; raise it with --max-tokens / TIERMEM_MAX_TOKENS" in result.notice
    assert recall_rows(memory)[-1]["content"] == result.reply


def recall_rows(memory: HierarchicalMemory) -> list[dict[str, Any]]:
    return memory.recall.rows(range(1, len(memory.recall) + 1))


def cut_calls(server: FakeOpenAIServer, *calls: tuple[str, str], content: str = "") -> None:
    """Answer with tool calls and finish_reason "length", as a server does when max_tokens
    ran out in the middle of them."""
    server.enqueue(FakeResponse(finish_reason="length", message={
        "role": "assistant", "content": content, "tool_calls": [
            {"id": f"c{i}", "type": "function", "function": {"name": name, "arguments": args}}
            for i, (name, args) in enumerate(calls)]}))


CUT_RESULT = ("Error: your call to {} was cut off at the reply's token limit (max_tokens=9) "
              "before its arguments ended, and was not run")


def test_a_tool_call_cut_at_the_budget_is_not_run_and_the_model_is_told(
        server: FakeOpenAIServer, memory: HierarchicalMemory) -> None:
    cut_calls(server, ("core_memory_append", '{"content": "Allergic to pea'))
    server.enqueue_reply("Noted.")
    result = Agent(memory, OpenAIClient("fake-model", base_url=server.base_url,
                                        max_tokens=9)).step("I'm allergic to peanuts")
    assert len(memory.core) == 0 and result.reply == "Noted."
    [told] = result.tool_results
    assert not told.ok and told.content.startswith(CUT_RESULT.format("core_memory_append"))
    sent = server.requests[1]["messages"][-1]
    assert (sent["role"], sent["content"]) == ("tool", told.content)
    assert result.notice is not None
    assert ("cut at max_tokens=9 in the middle of a call to core_memory_append, which was not "
            "run; raise it with --max-tokens / TIERMEM_MAX_TOKENS") in result.notice


def test_only_the_cut_call_of_several_is_not_run(server: FakeOpenAIServer,
                                                 memory: HierarchicalMemory) -> None:
    # llama-server's Qwen2.5 template cut a third call short like this (arguments '{\n "').
    cut_calls(server, ("core_memory_append", '{"content": "Likes tea"}'),
              ("send_message", '{\n    "'))
    server.enqueue_reply("Noted.")
    result = Agent(memory, OpenAIClient("fake-model", base_url=server.base_url,
                                        max_tokens=9)).step("I like tea")
    assert [f.text for f in memory.core] == ["Likes tea"]
    assert [(r.name, r.ok) for r in result.tool_results] == [
        ("core_memory_append", True), ("send_message", False)]
    assert result.tool_results[1].content.startswith(CUT_RESULT.format("send_message"))
    assert result.reply == "Noted."
    assert result.notice is not None and "call to send_message, which was not run" in result.notice


def test_a_call_written_wrong_before_the_cut_one_is_answered_not_called_cut(
        server: FakeOpenAIServer, memory: HierarchicalMemory) -> None:
    cut_calls(server, ("core_memory_append", '{"content": "Likes tea"'),
              ("send_message", '{\n    "'))
    server.enqueue_reply("Noted.")
    result = Agent(memory, OpenAIClient("fake-model", base_url=server.base_url,
                                        max_tokens=9)).step("I like tea")
    assert [(r.name, r.ok) for r in result.tool_results] == [
        ("core_memory_append", False), ("send_message", False)]
    assert "not valid JSON" in result.tool_results[0].content
    assert result.tool_results[1].content.startswith(CUT_RESULT.format("send_message"))
    assert result.notice is not None
    assert "in the middle of a call to send_message, which was not run" in result.notice
    assert "core_memory_append" not in result.notice


CUT_TEXT_CALL = '<tool_call>{"name": "core_memory_append", "arguments": {"content": "Aller'


def test_a_text_tool_call_cut_at_the_budget_is_not_stored_as_the_reply(
        server: FakeOpenAIServer, memory: HierarchicalMemory) -> None:
    server.enqueue_reply(CUT_TEXT_CALL, finish_reason="length")
    server.enqueue_reply("Noted.")
    result = Agent(memory, OpenAIClient("fake-model", base_url=server.base_url,
                                        max_tokens=9)).step("I'm allergic")
    assert result.reply == "Noted." and len(memory.core) == 0
    assert [r["role"] for r in recall_rows(memory)] == ["user", "assistant", "tool", "assistant"]
    assert not any("<tool_call>" in r["content"] for r in recall_rows(memory))
    assert result.tool_results[0].content.startswith(CUT_RESULT.format("core_memory_append"))
    assert result.notice is not None and "call to core_memory_append" in result.notice


def test_with_text_calls_off_a_cut_one_is_a_cut_reply(
        server: FakeOpenAIServer, memory: HierarchicalMemory) -> None:
    server.enqueue_reply(CUT_TEXT_CALL, finish_reason="length")
    result = Agent(memory, OpenAIClient("fake-model", base_url=server.base_url, max_tokens=9,
                                        text_tool_calls="off")).step("I'm allergic")
    assert result.reply == CUT_TEXT_CALL + " [cut off at max_tokens=9]"


RAISE_IT = "raise it with --max-tokens / TIERMEM_MAX_TOKENS"


@pytest.mark.parametrize("message", [
    {"role": "assistant", "content": "<think>The user wants me to remember. Which tool"},
    # llama-server with the thinking split out of the content; vLLM and Ollama
    {"role": "assistant", "content": "", "reasoning_content": "The user wants me to"},
    {"role": "assistant", "content": None, "reasoning": "The user wants me to"},
])
def test_a_reply_budget_spent_thinking_says_so_and_to_raise_it(
        server: FakeOpenAIServer, memory: HierarchicalMemory, message: dict[str, Any]) -> None:
    server.enqueue(FakeResponse(finish_reason="length", message=message))
    result = Agent(memory, OpenAIClient("fake-model", base_url=server.base_url,
                                        max_tokens=9)).step("I like tea")
    assert result.reply is None and [r["role"] for r in recall_rows(memory)] == ["user"]
    assert result.notice == (f"the model used its whole reply budget (max_tokens=9) thinking "
                             f"and gave no reply; {RAISE_IT}")


def test_an_empty_reply_cut_without_thinking_is_no_reply(
        server: FakeOpenAIServer, memory: HierarchicalMemory) -> None:
    server.enqueue_reply("", finish_reason="length")
    result = Agent(memory, OpenAIClient("fake-model", base_url=server.base_url,
                                        max_tokens=9)).step("I like tea")
    assert result.reply is None and result.notice == "the model ended its turn without a reply"


@pytest.mark.parametrize(("content", "reply", "notice"), [
    ("", None, "the server's content filter stopped the reply"),
    ("The first part", "The first part [stopped by the content filter]",
     "the server's content filter stopped the reply part-way"),
])
def test_a_reply_the_content_filter_stopped_says_so(
        server: FakeOpenAIServer, memory: HierarchicalMemory, content: str,
        reply: str | None, notice: str) -> None:
    server.enqueue_reply(content, finish_reason="content_filter")
    result = Agent(memory, OpenAIClient("fake-model", base_url=server.base_url)).step("hello")
    assert (result.reply, result.notice) == (reply, notice)
    assert [r["content"] for r in recall_rows(memory)][1:] == ([reply] if reply else [])
