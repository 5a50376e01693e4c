"""Scenarios and LoCoMo QA count tool calls per day and per question, and say loudly when a
model never called a memory tool."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from fake_openai import FakeOpenAIServer, FakeResponse
from rich.console import Console
from test_eval_locomo import CONVERSATION

import tiermem.cli as cli
from tiermem.agent.errors import ProviderError
from tiermem.agent.openai_client import OpenAIClient
from tiermem.agent.scripted import ScriptedModel, reply
from tiermem.agent.tool_use import NO_TOOL_CALLS
from tiermem.evals.configs import resolve_configs
from tiermem.evals.locomo import load_conversations
from tiermem.evals.qa import run_qa
from tiermem.evals.runner import EvalOptions, run_locomo
from tiermem.memory import HashingEmbedder
from tiermem.scenarios import Day, Question, Scenario
from tiermem.scenarios.render import print_day, print_result
from tiermem.scenarios.runner import run_scenario

TINY = Scenario(
    name="tiny", description="one fact, one question",
    days=(Day("monday", ("I am allergic to peanuts.",)),),
    questions=(Question("What am I allergic to?", "peanuts", tier="core"),))


@pytest.fixture
def data_file(tmp_path: Path) -> Path:
    path = tmp_path / "locomo" / "7.json"
    path.parent.mkdir()
    path.write_text(json.dumps([CONVERSATION]))
    return path


def printed(result: Any) -> str:
    out = io.StringIO()
    console = Console(file=out, width=200)
    for day in result.days:
        print_day(console, day)
    print_result(console, result)
    return out.getvalue()


def test_a_scenario_counts_tool_calls_per_day() -> None:
    result = run_scenario(TINY, embedder=HashingEmbedder())  # the offline policy uses tools
    monday, questions = result.days
    assert (monday.turns, questions.turns) == (1, 1)
    assert monday.memory_tool_calls >= 1  # core_memory_append
    assert questions.tool_calls > questions.memory_tool_calls  # the reply is send_message
    assert result.warning is None
    data = result.to_dict()
    assert data["no_tool_calls"] is False
    assert data["tool_calls"] == monday.tool_calls + questions.tool_calls
    assert data["days"][0]["tool_calls"] == monday.tool_calls
    text = printed(result)
    assert "monday 1 turns," in text and NO_TOOL_CALLS not in text


def test_a_scenario_whose_model_never_calls_a_tool_is_flagged() -> None:
    model = ScriptedModel([reply("Noted."), reply("Peanuts, I think.")])
    result = run_scenario(TINY, llm=model, embedder=HashingEmbedder())
    assert [(d.turns, d.tool_calls) for d in result.days] == [(1, 0), (1, 0)]
    assert result.warning == NO_TOOL_CALLS
    data = result.to_dict()
    assert data["no_tool_calls"] is True and data["warning"].startswith("no tool calls:")
    assert "run tiermem doctor" in printed(result)


def test_the_scenario_command_reports_it_in_json(monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr("tiermem.scenarios.all_scenarios", lambda: {"tiny": TINY})
    with FakeOpenAIServer() as server:
        server.responder = lambda body: FakeResponse(
            message={"role": "assistant", "content": "Noted."})
        code = cli.main(["scenario", "tiny", "--model", server.model, "--base-url",
                         server.base_url, "--embedder", "hashing", "--json"])
    captured = capsys.readouterr()
    assert code == 1  # the answer was never found in core
    result = json.loads(captured.out)
    assert result["no_tool_calls"] is True and result["tool_calls"] == 0
    assert NO_TOOL_CALLS in " ".join(captured.err.split())



def test_the_scenario_command_takes_the_model_from_the_environment_as_chat_does(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr("tiermem.scenarios.all_scenarios", lambda: {"tiny": TINY})
    with FakeOpenAIServer() as server:
        server.responder = lambda body: FakeResponse(
            message={"role": "assistant", "content": "Noted."})
        monkeypatch.setenv("TIERMEM_MODEL", server.model)
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        assert cli.main(["scenario", "tiny", "--embedder", "hashing", "--json"]) == 1
        driven = json.loads(capsys.readouterr().out)
        asked = len(server.requests)
        # --offline keeps the rule-based policy, which passes, whatever is configured.
        assert cli.main(["scenario", "tiny", "--embedder", "hashing", "--json",
                         "--offline"]) == 0
        offline = json.loads(capsys.readouterr().out)
        assert len(server.requests) == asked
    assert asked >= 2 and driven["no_tool_calls"] is True  # the server's replies drove it
    assert offline["passed"] is True and offline["no_tool_calls"] is False

def test_qa_counts_tool_calls_per_question(data_file: Path,
                                           server: FakeOpenAIServer) -> None:
    server.enqueue_tool_calls([("archival_memory_search",
                                '{"query": "puppy name", "request_heartbeat": true}')])
    server.enqueue_reply("Rex")
    server.enqueue_reply("violin")
    llm = OpenAIClient(server.model, base_url=server.base_url, max_retries=0)
    report = run_qa(load_conversations([data_file]), resolve_configs(["hybrid"]),
                    HashingEmbedder(), llm, limit=2)
    records = report["units"]["hybrid"]["7"]["questions"]
    assert [(r["tool_calls"], r["memory_tool_calls"]) for r in records] == [(1, 1), (0, 0)]
    (hybrid,) = report["configs"]
    assert hybrid["overall"]["tool_calls_per_question"] == 0.5
    assert hybrid["overall"]["without_memory_tools"] == 1
    assert hybrid["warning"] is None and hybrid["no_tool_calls"] is False


def test_qa_without_any_tool_call_is_flagged(data_file: Path,
                                             server: FakeOpenAIServer) -> None:
    server.responder = lambda body: FakeResponse(
        message={"role": "assistant", "content": "No information available"})
    out = io.StringIO()
    options = EvalOptions(data=[str(data_file)], mode="qa", configs=["hybrid"],
                          embedder="hashing", limit=2, model=server.model,
                          base_url=server.base_url, context_window=8192)
    report = run_locomo(options, Console(file=out, width=200))
    hybrid, no_memory, full_context = report["configs"]
    assert hybrid["warning"] == NO_TOOL_CALLS and hybrid["no_tool_calls"] is True
    assert hybrid["overall"]["tool_calls_per_question"] == 0
    # The baselines are given no tools, so they are never flagged for not calling one.
    assert (no_memory["name"], no_memory["warning"]) == ("no-memory", None)
    assert (full_context["name"], full_context["warning"]) == ("full-context", None)
    assert not no_memory["no_tool_calls"] and not full_context["no_tool_calls"]
    text = " ".join(out.getvalue().split())
    assert f"hybrid: {NO_TOOL_CALLS}" in text and "tool_calls/question" in text
    assert f"no-memory: {NO_TOOL_CALLS}" not in text
    assert "context_share" in text


def test_a_failed_turn_costs_the_turn_not_the_run() -> None:
    refused = ProviderError("http://127.0.0.1:8091/v1 failed with HTTP 500", kind="server")
    model = ScriptedModel([refused, reply("Peanuts.")])
    result = run_scenario(TINY, llm=model, embedder=HashingEmbedder())
    monday, questions = result.days
    assert monday.errors == ["I am allergic to peanuts.: http://127.0.0.1:8091/v1 failed with "
                             "HTTP 500"]
    assert questions.errors == [] and result.answers[0].reply == "Peanuts."
    assert result.failed_turns == 1 and not result.passed
    assert result.to_dict()["failed_turns"] == 1
    assert "1 turns failed" in printed(result)


def test_no_baselines_flag_leaves_only_the_configs(data_file: Path,
                                                   server: FakeOpenAIServer) -> None:
    from tiermem.cli import build_parser
    from tiermem.evals.locomo_command import run_command

    server.responder = lambda body: FakeResponse(
        message={"role": "assistant", "content": "No information available"})
    argv = ["eval", "locomo", "--data", str(data_file), "--mode", "qa", "--config", "hybrid",
            "--embedder", "hashing", "--limit", "1", "--model", server.model,
            "--base-url", server.base_url, "--context-window", "8192"]
    for extra, names in (([], ["hybrid", "no-memory", "full-context"]),
                         (["--no-baselines"], ["hybrid"])):
        args = build_parser().parse_args([*argv, *extra])
        out = io.StringIO()
        requests_before = len(server.requests)
        assert run_command(args, Console(file=out, width=200)) == 0
        described = [line.split(":")[0] for line in out.getvalue().splitlines()
                     if NO_TOOL_CALLS not in line]
        assert [name for name in described
                if name in ("hybrid", "no-memory", "full-context")] == names
        assert len(server.requests) - requests_before == len(names)


def test_the_eval_says_what_it_assumed_on_standard_error(
        data_file: Path, server: FakeOpenAIServer, capsys: pytest.CaptureFixture[str]) -> None:
    # The server reports no window: the note about the one assumed is no table row.
    server.responder = lambda body: FakeResponse(
        message={"role": "assistant", "content": "No information available"})
    assert cli.main(["eval", "locomo", "--data", str(data_file), "--mode", "qa", "--config",
                     "hybrid", "--embedder", "hashing", "--limit", "1", "--no-baselines",
                     "--model", server.model, "--base-url", server.base_url]) == 0
    captured = capsys.readouterr()
    assert "LoCoMo qa" in captured.out
    assert "does not report its context window" not in " ".join(captured.out.split())
    assert "tiermem: " + server.base_url + " does not report its context window" in (
        captured.err)


def test_a_call_of_a_tool_that_does_not_exist_is_no_memory_tool_call() -> None:
    from tiermem.agent.tool_use import tool_calls
    from tiermem.tools.dispatch import ToolResult

    made_up = [ToolResult(name=name, call_id="c", ok=False,
                          content="Error: there is no tool named it")
               for name in ("nosuch_tool", "")]
    real = [ToolResult(name="archival_memory_search", call_id="a", ok=True, content="[]"),
            ToolResult(name="send_message", call_id="b", ok=True, content="sent")]
    assert tool_calls(made_up + real) == (4, 1)
    assert tool_calls(made_up) == (2, 0)


@pytest.mark.parametrize(("verdict", "right"), [
    ("CORRECT", 1.0), ("correct.", 1.0), ("INCORRECT", 0.0), ("Not correct", 0.0),
    ("CORRECT. Not much else to say.", 1.0), ("CORRECT, nothing wrong", 1.0),
    ("The given answer isn't correct.", 0.0), ("The answer is correct.", 1.0),
    ("WRONG", 0.0), ("Incorrect: the year differs", 0.0), ("", 0.0)])
def test_the_judge_reads_its_verdict_by_whole_words(verdict: str, right: float) -> None:
    from tiermem.evals.locomo import Question as LocomoQuestion
    from tiermem.evals.qa_judge import judge

    question = LocomoQuestion("7:0", "When?", "1999", ("D1:1",), 2)
    with ScriptedModel([reply(verdict) if verdict else reply(" ")]) as model:
        score, _ = judge(model, question, "banana")
    assert score == right


@pytest.mark.parametrize(("answered", "warned"), [(0, False), (1, True)])
def test_turns_the_server_failed_are_not_counted_as_the_model_calling_no_memory_tool(
        server: Any, tmp_path: Path, answered: int, warned: bool) -> None:
    scenario = Scenario(name="two-turns", description="two messages", days=(
        Day("monday", ("I am allergic to peanuts.", "I live in Lisbon.")),))
    for _ in range(2 - answered):
        server.enqueue_error(500, {"error": "llama runner process has terminated: signal: killed"})
    for _ in range(answered):
        server.enqueue_reply("Noted.")
    llm = OpenAIClient("m", base_url=server.base_url, sleep=lambda _: None)
    result = run_scenario(scenario, llm=llm, embedder=HashingEmbedder(), home=tmp_path / "home")
    assert len(server.requests) == 2 and result.failed_turns == 2 - answered
    assert (result.warning is not None) is warned
    assert result.to_dict()["no_tool_calls"] is warned
