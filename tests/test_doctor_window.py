"""``tiermem doctor`` weighs the server's window against the agent's own prompt."""

from __future__ import annotations

import json

import pytest
import server_personalities as persona
from fake_openai import FakeOpenAIServer, FakeResponse

import tiermem.cli as cli
from tiermem.agent.config import (
    ENV_CONTEXT_WINDOW,
    ENV_ENCODING,
    ENV_MAX_TOKENS,
    resolve_llm_config,
)
from tiermem.agent.context import ContextWindow
from tiermem.agent.doctor import DoctorReport, run_doctor
from tiermem.agent.doctor_window import window_fit
from tiermem.agent.errors import LLMConfigError
from tiermem.agent.server_options import open_client
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


@pytest.mark.parametrize("tools_only", [True, False], ids=["tool-probe", "plain-chat"])
def test_a_window_too_small_is_known_though_the_server_was_busy(
        server: FakeOpenAIServer, capsys: pytest.CaptureFixture[str], tools_only: bool) -> None:
    persona.llama_server_with_window(server, 2048)
    capable = server.responder
    assert capable is not None
    busy = json.dumps({"error": {"message": "server busy, please try again.  maximum "
                                            "pending requests exceeded"}}).encode()

    def respond(body: dict[str, object]) -> FakeResponse:
        answer = capable(body)
        assert answer is not None
        if (body.get("tools") or not tools_only) and not body.get("stream"):
            answer.status, answer.message, answer.body = 503, None, busy
        return answer

    server.responder = respond
    report = run_doctor(server.base_url, server.model)
    assert report.findings.server_busy
    # The window rules the agent out whatever the busy probe would have shown.
    assert report.verdict.startswith("the memory agent cannot work with fake-model: the "
                                     "server's window of 2048 tokens")
    assert report.known and not report.works
    assert "llama-server -c 4096" in "\n".join(report.advice)
    assert cli.main(["doctor", "--base-url", server.base_url, "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert (data["works"], data["known"]) == (False, True)


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


def doctor_json(server: FakeOpenAIServer, capsys: pytest.CaptureFixture[str]) -> tuple[
        int, dict[str, object]]:
    status = cli.main(["doctor", "--base-url", server.base_url, "--json"])
    return status, json.loads(capsys.readouterr().out)


def json_row(data: dict[str, object], check: str) -> dict[str, str]:
    rows = data["rows"]
    assert isinstance(rows, list)
    return next(r for r in rows if r["check"] == check)


def test_the_doctor_measures_the_window_the_chat_was_told_to_use(
        server: FakeOpenAIServer, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    persona.llama_server_with_window(server, 32768)
    monkeypatch.setenv(ENV_CONTEXT_WINDOW, "4096")
    status, data = doctor_json(server, capsys)
    assert status == 0
    window = json_row(data, "context window")
    assert (window["status"], window["result"]) == ("ok", "4096 tokens")
    assert window["detail"] == ("from TIERMEM_CONTEXT_WINDOW; the server's is 32768 (from "
                                "llama.cpp /props)")
    fixed = window_fit(server.model, 4096).fixed
    room_row = json_row(data, "room in the window")
    assert room_row["result"] == f"{4096 - 1024 - fixed} tokens left"
    assert room_row["detail"].startswith("of 4096:")
    facts = data["facts"]
    assert isinstance(facts, dict)
    assert facts["context_window"] == 4096 and facts["server_window"] == 32768


def test_a_window_set_larger_than_the_servers_is_said(
        server: FakeOpenAIServer, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    persona.llama_server_with_window(server, 4096)
    monkeypatch.setenv(ENV_CONTEXT_WINDOW, "16384")
    status, data = doctor_json(server, capsys)
    assert status == 0  # a first turn fits the server's window: the chat works, for a while
    window = json_row(data, "context window")
    assert (window["status"], window["result"]) == ("warn", "16384 tokens")
    assert "larger than the server's 4096" in window["detail"]
    assert json_row(data, "room in the window")["detail"].startswith("of 16384:")
    said = "\n".join(data["advice"])  # type: ignore[arg-type]
    assert "TIERMEM_CONTEXT_WINDOW=16384 is larger than the window the server runs with " \
           "(4096 tokens" in said
    assert "Set TIERMEM_CONTEXT_WINDOW=4096" in said


def test_a_window_set_larger_than_a_server_too_small_for_a_first_turn_fails(
        server: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch) -> None:
    persona.llama_server_with_window(server, 2048)
    report = run_doctor(server.base_url, server.model, context_window=16384)
    assert room(report)[0] == "ok"  # in the window the chat believes it has
    assert next(r.status for r in report.rows if r.check == "context window") == "fail"
    assert not report.works
    assert report.verdict == ("the memory agent cannot work with fake-model: the server's "
                              "window of 2048 tokens cannot hold the agent's own prompt")
    assert "even a first turn" in "\n".join(report.advice)


def test_a_window_set_too_small_for_the_agent_names_the_setting(
        server: FakeOpenAIServer) -> None:
    persona.llama_server_with_window(server, 32768)
    report = run_doctor(server.base_url, server.model, context_window=2048)
    assert room(report)[0] == "fail" and not report.works
    assert report.verdict == ("the memory agent cannot work with fake-model: the window of "
                              "2048 tokens TIERMEM_CONTEXT_WINDOW sets cannot hold the agent's "
                              "own prompt")
    said = "\n".join(report.advice)
    assert "Set TIERMEM_CONTEXT_WINDOW to at least 4096, or unset it: the server runs with " \
           "32768" in said
    assert "llama-server -c" not in said  # the server's window is large enough


def test_a_window_set_for_a_server_that_reports_none_is_measured(
        server: FakeOpenAIServer) -> None:
    persona.llama_server_with_window(server, 4096)
    del server.routes[("GET", "/props")]
    report = run_doctor(server.base_url, server.model, context_window=8192)
    status, result, detail = next((r.status, r.result, r.detail) for r in report.rows
                                  if r.check == "context window")
    assert (status, result) == ("ok", "8192 tokens")
    assert "does not report its own" in detail
    assert room(report)[0] == "ok" and report.findings.window_fit is not None
    assert report.findings.window_fit.window == 8192
    assert "does not report its context window" not in "\n".join(report.advice)


def test_the_doctor_counts_in_the_encoding_the_chat_was_told_to_use(
        server: FakeOpenAIServer, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    persona.llama_server_with_window(server, 4096)
    tools = memory_toolbox().schemas()
    counts = {name: ContextWindow(window=100_000, counter=TokenCounter(name)).fixed_tokens(tools)
              for name in ("cl100k_base", "o200k_base")}
    assert counts["cl100k_base"] != counts["o200k_base"]
    for name, fixed in counts.items():
        monkeypatch.setenv(ENV_ENCODING, name.removesuffix("_base"))
        status, data = doctor_json(server, capsys)
        facts = data["facts"]
        assert isinstance(facts, dict)
        assert status == 0 and facts["window_fit"]["fixed"] == fixed


@pytest.mark.parametrize(("variable", "value", "said"), [
    (ENV_ENCODING, "p50k", "unknown tokenizer encoding 'p50k'"),
    (ENV_CONTEXT_WINDOW, "big", "TIERMEM_CONTEXT_WINDOW='big' is not a whole number"),
    (ENV_CONTEXT_WINDOW, "0", "the context window must be a positive token count, not 0: "
                              "set TIERMEM_CONTEXT_WINDOW to the window the server runs with, "
                              "or unset it"),
])
def test_a_bad_window_or_encoding_setting_is_a_usage_error(
        server: FakeOpenAIServer, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch, variable: str, value: str, said: str) -> None:
    persona.llama_server_with_window(server, 4096)
    monkeypatch.setenv(variable, value)
    assert cli.main(["doctor", "--base-url", server.base_url]) == 2
    err = capsys.readouterr().err
    assert said in err
    assert "--context-window" not in err  # the doctor has no such option
    assert server.requests == []


@pytest.mark.parametrize(("settings", "said"), [
    ({ENV_CONTEXT_WINDOW: "32768", ENV_MAX_TOKENS: "20000"},
     "max_tokens=20000 would leave less than half of the 32768-token context window"),
    ({ENV_MAX_TOKENS: "0"}, "must be a positive token count, not 0"),
    ({ENV_MAX_TOKENS: "-5"}, "must be a positive token count, not -5"),
])
def test_a_reply_budget_the_chat_refuses_is_a_usage_error(
        server: FakeOpenAIServer, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch, settings: dict[str, str], said: str) -> None:
    # tiermem chat refuses these before its first request (exit 2); the doctor must not
    # say the agent can work with them.
    persona.llama_server_with_window(server, 32768)
    for variable, value in settings.items():
        monkeypatch.setenv(variable, value)
    assert cli.main(["doctor", "--base-url", server.base_url]) == 2
    assert said in capsys.readouterr().err
    assert server.requests == []


@pytest.mark.parametrize(("n_ctx", "works"), [
    (32768, True),  # the server's window holds it, though 8192 would not
    (8192, False),  # more than half the server's window
    (None, False),  # more than half the 8192 tokens assumed when the server says nothing
])
def test_the_doctor_and_the_chat_weigh_the_reply_budget_against_the_same_window(
        server: FakeOpenAIServer, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch, n_ctx: int | None, works: bool) -> None:
    persona.llama_server_with_window(server, n_ctx or 4096)
    if n_ctx is None:
        del server.routes[("GET", "/props")]
    monkeypatch.setenv(ENV_MAX_TOKENS, "5000")
    status, data = doctor_json(server, capsys)
    assert (status, data["works"]) == ((0, True) if works else (1, False))
    said = "\n".join(str(a) for a in data["advice"])  # type: ignore[attr-defined]
    assert ("tiermem chat refuses to start" in said) is not works
    if not works:
        assert json_row(data, "reply budget")["status"] == "fail"
        assert str(data["verdict"]).endswith("tiermem chat refuses the reply budget "
                                             "TIERMEM_MAX_TOKENS sets with this window")
        assert "lower it to at most 4096" in said
    # The chat, settling its window as it starts: the same answer.
    config = resolve_llm_config(model=server.model, base_url=server.base_url)
    assert config is not None
    if works:
        assert open_client(config, lambda _: None).max_tokens == 5000
    else:
        with pytest.raises(LLMConfigError, match="max_tokens=5000 would leave less than half"):
            open_client(config, lambda _: None)
