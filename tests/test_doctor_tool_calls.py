"""``tiermem doctor`` counts only the tool calls a turn would run."""

from __future__ import annotations

import json
from typing import Any

import pytest
import server_personalities as persona
from fake_openai import FakeOpenAIServer, FakeResponse

import tiermem.cli as cli
from tiermem.agent.doctor import DoctorReport, run_doctor

FACT = json.dumps({"content": "User is allergic to peanuts"})


def row(report: DoctorReport, check: str) -> tuple[str, str, str]:
    found = next(r for r in report.rows if r.check == check)
    return found.status, found.result, found.detail


def capable_but_closing(server: FakeOpenAIServer, choices: tuple[str, ...]) -> None:
    """A capable server that closes unanswered the requests with these tool_choice values."""
    persona.capable(server)
    capable = server.responder
    assert capable is not None
    server.responder = lambda body: (FakeResponse(dropped=True)
                                     if body.get("tool_choice") in choices else capable(body))


@pytest.mark.parametrize(("name", "arguments", "fault"), [
    ("core_memory_append", FACT[:-2], "the arguments of core_memory_append are not valid JSON"),
    ("core_memory_append", "{'content': 'User is allergic to peanuts'}", "not valid JSON"),
    ("memory_save", FACT, "it called 'memory_save', a tool the request did not offer (it "
                          "offered core_memory_append, send_message)"),
    ("core_memory_append", json.dumps({"fact": "User is allergic to peanuts"}),
     "the arguments of core_memory_append are invalid: missing required field(s): 'content' "
     "(string); unexpected field(s): 'fact'; core_memory_append takes only: content"),
    ("core_memory_append", '["User is allergic to peanuts"]', "must be a JSON object, not an "
                                                             "array"),
])
def test_a_tool_call_a_turn_would_refuse_does_not_work(
        server: FakeOpenAIServer, name: str, arguments: str, fault: str) -> None:
    persona.calling(server, name, arguments)
    report = run_doctor(server.base_url, server.model)
    status, result, detail = row(report, "tool calls, tool_choice auto")
    assert (status, result) == ("fail", f"{name}() refused") and fault in detail
    assert row(report, "tool calls, tool_choice required")[:2] == ("warn", f"{name}() refused")
    assert report.findings.auto_calls == [] and not report.works
    assert report.verdict.startswith('the memory agent cannot work with fake-model: its tool '
                                     'calls with tool_choice "auto" cannot run (')
    assert fault in report.verdict
    said = "\n".join(report.advice)
    assert "not in a way a turn can run" in said and "trained for tool calls" in said
    assert row(report, "tool calls as text")[2] == "the calls came structured"
    assert "calls tools only when forced" not in said


def test_the_doctor_command_fails_a_model_whose_calls_cannot_run(
        server: FakeOpenAIServer, capsys: pytest.CaptureFixture[str]) -> None:
    persona.calling(server, "memory_save", FACT)
    assert cli.main(["doctor", "--base-url", server.base_url, "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["works"] is False


def test_one_call_that_runs_is_enough(server: FakeOpenAIServer) -> None:
    def with_a_stray_call(body: dict[str, Any], held: FakeResponse) -> None:
        if body.get("tools") and held.message is not None:
            stray = {"id": "call_x", "type": "function",
                     "function": {"name": "memory_save", "arguments": "{}"}}
            held.message["tool_calls"] = [stray, *(held.message.get("tool_calls") or [])]

    persona.capable_but(server, with_a_stray_call)
    report = run_doctor(server.base_url, server.model)
    assert row(report, "tool calls, tool_choice auto")[:2] == ("ok", "core_memory_append()")
    assert report.works and report.findings.auto_calls == ["core_memory_append"]


def test_tool_calls_outweigh_prompt_token_counts_that_never_move(
        server: FakeOpenAIServer) -> None:
    def constant_usage(body: dict[str, Any], held: FakeResponse) -> None:
        held.usage = (100, 5)  # whatever was sent

    persona.capable_but(server, constant_usage)
    # A template that claims no tool support, yet the calls came back.
    server.routes[("GET", "/props")] = {"chat_template_caps": {"supports_tools": False}}
    report = run_doctor(server.base_url, server.model)
    status, result, detail = row(report, "tools without tool_choice")
    assert (status, result) == ("info", "unknown")
    assert "100 no tools, 100 tools, 100 tools + tool_choice" in detail
    assert "the model called the tools it was offered" in detail
    assert not report.findings.tools_never_shown and report.findings.tools_reached
    assert report.works and "it makes structured tool calls" in report.verdict
    assert "never shows the tools" not in "\n".join(report.advice)
    assert "--jinja" not in "\n".join(report.advice)


def test_a_tool_call_probe_the_time_ran_out_for_is_untested_not_toolless(
        server: FakeOpenAIServer) -> None:
    persona.capable(server)
    # The probes' budget is spent once the plain chat and the two token-count probes were
    # sent: the clock reads the requests, never the time.
    report = run_doctor(server.base_url, server.model,
                        clock=lambda: 0.0 if len(server.requests) < 3 else 1000.0)
    assert row(report, "tool calls, tool_choice auto") == ("skip", "-", "out of time")
    assert [body.get("tool_choice") for body in server.requests].count("auto") == 0
    assert not report.works and report.findings.auto_error == "out of time"
    assert report.verdict == (
        "the memory agent cannot be shown to work with fake-model: the tool-call probe "
        "(tool_choice \"auto\") was not sent: the doctor's 55 s for all probes ran out before "
        "it, so whether the model calls tools is not known")
    assert report.advice == ["the probes before it took the doctor's time (a model loading, or "
                             "a slow server): run the doctor again once the model is loaded"]


def test_a_tool_call_probe_whose_connection_closed_unanswered_is_untested_not_toolless(
        server: FakeOpenAIServer) -> None:
    # The server closes the connection of the request with tool_choice "auto" unanswered.
    capable_but_closing(server, ("auto",))
    report = run_doctor(server.base_url, server.model)
    status, result, detail = row(report, "tool calls, tool_choice auto")
    assert (status, result) == ("fail", "error") and detail.startswith("no answer (")
    assert row(report, "tool calls, tool_choice required")[0] == "ok"
    assert not report.works
    assert report.verdict == (
        f"the memory agent cannot be shown to work with fake-model: the tool-call probe "
        f"(tool_choice \"auto\") got {detail}, so whether the model calls tools is not known")
    assert report.advice == [
        "the server did not answer the tool-call probe (it may have crashed, or run short of "
        "memory, on the request with tools): its log says why; run the doctor again once that "
        "is fixed"]


def test_the_json_report_says_unknown_when_the_tool_call_probe_got_no_answer(
        server: FakeOpenAIServer, capsys: pytest.CaptureFixture[str]) -> None:
    capable_but_closing(server, ("auto",))
    assert cli.main(["doctor", "--base-url", server.base_url, "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["verdict"].startswith("the memory agent cannot be shown to work")
    assert (data["works"], data["known"]) == (False, False)


def test_calls_as_text_are_not_checked_when_no_tool_call_probe_got_an_answer(
        server: FakeOpenAIServer) -> None:
    # Both requests with a tool_choice are closed unanswered: there is no content to read.
    capable_but_closing(server, ("auto", "required"))
    report = run_doctor(server.base_url, server.model)
    assert row(report, "tool calls as text") == (
        "skip", "-", "not checked: no tool-call probe was answered")


def test_calls_as_text_are_not_checked_when_the_time_ran_out_before_the_probes(
        server: FakeOpenAIServer) -> None:
    persona.capable(server)
    report = run_doctor(server.base_url, server.model,
                        clock=lambda: 0.0 if len(server.requests) < 3 else 1000.0)
    assert row(report, "tool calls as text") == ("skip", "-", "out of time")
