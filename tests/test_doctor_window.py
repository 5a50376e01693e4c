"""``tiermem doctor`` weighs the server's window against the agent's own prompt."""

from __future__ import annotations

import json

import pytest
import server_personalities as persona
from fake_openai import FakeOpenAIServer

import tiermem.cli as cli
from tiermem.agent.config import ENV_MAX_TOKENS
from tiermem.agent.context import ContextWindow
from tiermem.agent.doctor import DoctorReport, run_doctor
from tiermem.agent.doctor_window import window_fit
from tiermem.memory.text.tokenizer import TokenCounter
from tiermem.tools.memory_tools import memory_toolbox


def room(report: DoctorReport) -> tuple[str, str, str]:
    row = next(r for r in report.rows if r.check == "room in the window")
    return row.status, row.result, row.detail


def test_the_fixed_prompt_is_counted_as_the_chat_counts_it() -> None:
    tools = memory_toolbox().schemas()
    context = ContextWindow(window=100_000, counter=TokenCounter("cl100k_base"))
    fit = window_fit("local", 4096)
    assert fit.fixed == context.fixed_tokens(tools) > 1000
    assert fit.reply == 1024  # the chat's default reply budget for a 4096-token window


def test_a_window_too_small_for_the_agents_prompt_cannot_work(
        server: FakeOpenAIServer, capsys: pytest.CaptureFixture[str]) -> None:
    persona.llama_server_with_window(server, 2048)
    report = run_doctor(server.base_url, server.model)
    status, result, detail = room(report)
    fixed = window_fit(server.model, 2048).fixed
    assert (status, result) == ("fail", "0 tokens left")
    assert detail == f"of 2048: {fixed} for the instructions and tool schemas, 512 kept for " \
                     f"the reply"
    assert not report.works
    assert report.verdict == ("the memory agent cannot work with fake-model: the server's "
                              "window of 2048 tokens cannot hold the agent's own prompt")
    said = "\n".join(report.advice)
    assert "cannot hold even an empty conversation" in said
    assert "llama-server -c 4096" in said and "Ollama num_ctx 4096" in said
    assert "lower the reply budget" not in said  # no reply budget would make room here

    assert cli.main(["doctor", "--base-url", server.base_url, "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["works"] is False and data["facts"]["window_fit"]["window"] == 2048


def test_a_tight_window_works_with_a_warning(server: FakeOpenAIServer) -> None:
    persona.llama_server_with_window(server, 3072)
    report = run_doctor(server.base_url, server.model)
    assert room(report)[0] == "warn"
    assert report.works and report.verdict.startswith("the memory agent can work")
    said = "\n".join(report.advice)
    assert "summarised away" in said and "at least 4096 tokens" in said


def test_the_doctor_counts_the_configured_reply_budget(
        server: FakeOpenAIServer, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    persona.llama_server_with_window(server, 4096)
    assert cli.main(["doctor", "--base-url", server.base_url, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["advice"] == []

    monkeypatch.setenv(ENV_MAX_TOKENS, "2000")
    assert cli.main(["doctor", "--base-url", server.base_url, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    lower = 4096 - window_fit(server.model, 4096).fixed - 1024
    assert f"lower the reply budget to {lower}" in "\n".join(data["advice"])

    monkeypatch.setenv(ENV_MAX_TOKENS, "many")
    assert cli.main(["doctor", "--base-url", server.base_url]) == 2
    assert "TIERMEM_MAX_TOKENS='many' is not a whole number" in capsys.readouterr().err


def test_the_doctor_fails_a_window_exactly_when_a_first_turn_overflows() -> None:
    # At the edge, the empty core block, the statistics line and the memory pressure alert
    # decide it: measured as the chat builds the prompt, not estimated.
    from tiermem.agent.context import ContextOverflowError
    from tiermem.agent.doctor_window import FIRST_MESSAGE
    from tiermem.agent.loop import Agent
    from tiermem.agent.scripted import ScriptedModel, reply
    from tiermem.memory import HashingEmbedder, HierarchicalMemory

    fixed = window_fit("llama3.1:8b", 4096).fixed
    verdicts = set()
    for window in range(fixed + 300, fixed + 400, 2):
        fit = window_fit("llama3.1:8b", window, max_tokens=256)
        model = ScriptedModel([reply("Hi Sam.")], context_window=window, max_tokens=256)
        with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
            try:
                Agent(memory, model).step(FIRST_MESSAGE)
                overflowed = False
            except ContextOverflowError:
                overflowed = True
        assert (fit.status == "fail") == overflowed, (window, fit)
        verdicts.add(overflowed)
    assert verdicts == {True, False}  # the range crosses the edge
