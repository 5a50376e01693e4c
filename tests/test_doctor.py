"""``tiermem doctor`` against loopback servers with the characters of real ones."""

from __future__ import annotations

import io
import json
import math
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import server_personalities as persona
from fake_openai import FakeOpenAIServer, FakeResponse
from openai_helpers import closed_port
from rich.console import Console

import tiermem.cli as cli
from tiermem.agent.config import ENV_BASE_URL
from tiermem.agent.doctor import DoctorReport, run_doctor
from tiermem.agent.doctor_render import print_report


def rows(report: DoctorReport) -> dict[str, tuple[str, str]]:
    return {row.check: (row.status, row.result) for row in report.rows}


def rendered(report: DoctorReport) -> str:
    out = io.StringIO()
    print_report(Console(file=out, width=250), report)
    return " ".join(out.getvalue().split())


def advice(report: DoctorReport) -> str:
    return "\n".join(report.advice)


@pytest.fixture
def examine(server: FakeOpenAIServer) -> Iterator[Callable[..., DoctorReport]]:
    def run(personality: Callable[[FakeOpenAIServer], None], **kwargs: Any) -> DoctorReport:
        personality(server)
        kwargs.setdefault("model", server.model)
        return run_doctor(server.base_url, kwargs.pop("model"), **kwargs)

    yield run


def test_llama_cpp_python_works_because_tiermem_sends_tool_choice(
    examine: Callable[..., DoctorReport],
) -> None:
    report = examine(persona.llama_cpp_python)
    found = rows(report)
    assert found["reachable"][0] == "ok"
    assert found["models listed"] == ("ok", "fake-model")
    assert found["context window"] == ("warn", "not reported")
    assert found["plain chat"][0] == "ok"
    assert found["tool calls, tool_choice auto"] == ("ok", "core_memory_append()")
    assert found["tool calls, tool_choice required"] == ("warn", "error")
    assert found["tool calls as text"] == ("info", "none")
    assert found["tools without tool_choice"] == ("warn", "dropped")
    assert found["finish_reason at max_tokens"] == ("ok", "'length'")
    assert found["content null beside tool_calls"] == ("info", "refused")
    assert found["time to first token"][0] == "ok"
    assert report.works and report.verdict.startswith("the memory agent can work")
    said = advice(report)
    assert "this server drops tools unless tool_choice is sent; tiermem sends it" in said
    assert "pass --context-window N" in said and "--n_ctx" in said
    assert 'tool_choice "required" fails here (HTTP 500: internal_server_error (no message))' \
        in said
    assert "refuses content null" in said
    base, without, with_choice = report.findings.prompt_tokens
    assert without == base and with_choice == base + persona.TOOL_TOKENS


def test_llama_server_without_a_tool_template_cannot_work(
    examine: Callable[..., DoctorReport],
) -> None:
    report = examine(persona.llama_server_without_tool_template)
    found = rows(report)
    assert found["context window"] == ("ok", "4096 tokens")
    assert "llama.cpp /props" in next(r.detail for r in report.rows
                                      if r.check == "context window")
    assert found["tool calls, tool_choice auto"] == ("fail", "no call")
    assert found["tools without tool_choice"] == ("fail", "never shown")
    assert found["finish_reason at max_tokens"] == ("ok", "'length'")
    assert found["content null beside tool_calls"] == ("ok", "accepted")
    assert not report.works
    assert report.verdict.startswith("the memory agent cannot work with fake-model")
    assert "Start llama-server with --jinja and a tool-capable template" in advice(report)
    assert "instruct model" not in advice(report)  # the model never saw the tools
    assert "--context-window" not in advice(report)  # the server said its window


def test_text_tool_calls_are_enough(examine: Callable[..., DoctorReport]) -> None:
    report = examine(persona.text_tool_calls)
    found = rows(report)
    assert found["context window"] == ("ok", "32768 tokens")
    assert found["tool calls, tool_choice auto"] == ("warn", "no call")  # but text will do
    assert found["tool calls as text"] == ("ok", "core_memory_append() in the content")
    assert found["tools without tool_choice"] == ("ok", "reach the model")
    assert found["finish_reason at max_tokens"] == ("warn", "'stop'")
    assert report.works and "tool calls written as text" in report.verdict
    said = advice(report)
    assert "writes its tool calls as text" in said and "not 'length'" in said


def test_a_python_list_call_with_a_positional_value_counts(
        examine: Callable[..., DoctorReport]) -> None:
    # Llama 3.2 1B/3B; a turn maps the value onto the schema's one required parameter.
    report = examine(lambda server: persona.text_tool_calls(
        server, written='[core_memory_append("User is allergic to peanuts")]'))
    assert rows(report)["tool calls as text"] == ("ok", "core_memory_append() in the content")
    assert report.works and report.findings.text_calls_auto == ["core_memory_append"]


def test_structured_calls_in_the_functions_namespace_count(
        examine: Callable[..., DoctorReport]) -> None:
    # gpt-oss names its calls functions.NAME; a turn runs them as NAME (ee065e9).
    def namespaced(body: dict[str, Any], answer: FakeResponse) -> None:
        for call in (answer.message or {}).get("tool_calls") or []:
            call["function"]["name"] = f"functions.{call['function']['name']}"

    report = examine(lambda server: persona.capable_but(server, namespaced))
    assert rows(report)["tool calls, tool_choice auto"] == ("ok", "core_memory_append()")
    assert report.works and report.findings.auto_calls == ["core_memory_append"]
    assert report.findings.tools_reached


def test_a_call_ending_an_unclosed_thinking_block_counts(
        examine: Callable[..., DoctorReport]) -> None:
    # A small reasoning model that forgot </think> and ended its turn with its call.
    call = json.dumps({"name": "core_memory_append",
                       "arguments": {"content": "User is allergic to peanuts"}})
    report = examine(lambda server: persona.text_tool_calls(
        server, written=f"<think>\nAn allergy: save it.\n<tool_call>{call}</tool_call>"))
    assert rows(report)["tool calls as text"] == ("ok", "core_memory_append() in the content")
    assert report.works


def test_a_text_call_to_a_tool_not_offered_is_a_warning(
        examine: Callable[..., DoctorReport]) -> None:
    report = examine(lambda server: persona.text_tool_calls(server, tool="memory_store"))
    assert rows(report)["tool calls as text"] == ("warn", "memory_store() refused")
    assert "a tool the request did not offer" in rendered(report)
    # A call no turn would run is no way round the missing structured calls.
    assert not report.works and report.findings.text_calls_auto == []


def test_a_call_only_in_the_models_thinking_is_no_call(
        examine: Callable[..., DoctorReport]) -> None:
    report = examine(lambda server: persona.text_tool_calls(server, thinking=True))
    assert rows(report)["tool calls as text"][1] == "none"
    assert not report.works and report.findings.text_calls_auto == []


def test_a_capable_server_needs_no_advice(examine: Callable[..., DoctorReport]) -> None:
    report = examine(persona.capable, model=None)  # the model is taken from the listing
    assert report.works and report.model == "fake-model"
    assert report.advice == []
    assert [r.status for r in report.rows].count("ok") == 11
    assert "using the first one, --model fake-model" in rendered(report)


def test_an_unreachable_server() -> None:
    report = run_doctor(f"http://127.0.0.1:{closed_port()}/v1", "m")
    found = rows(report)
    assert found["reachable"] == ("fail", "no")
    assert found["plain chat"][0] == "skip"
    assert not report.works and "did not answer" in report.verdict
    assert "--base-url" in advice(report)


def test_the_probes_stop_when_the_time_is_spent(server: FakeOpenAIServer) -> None:
    persona.capable(server)
    ticks = iter(range(0, 10_000, 9))  # each look at the clock: 9 s later
    report = run_doctor(server.base_url, server.model, clock=lambda: float(next(ticks)))
    skipped = [r.check for r in report.rows if r.status == "skip"]
    assert skipped and all(r.detail == "out of time" for r in report.rows if r.status == "skip")
    assert len(server.requests) < 8


def test_the_doctor_command(server: FakeOpenAIServer, capsys: pytest.CaptureFixture[str]
                            ) -> None:
    persona.llama_server_without_tool_template(server)
    assert cli.main(["doctor", "--base-url", server.base_url, "--model", server.model,
                     "--json"]) == 1
    captured = capsys.readouterr()
    data = json.loads(captured.out)
    assert data["works"] is False and data["facts"]["context_window"] == 4096
    assert {r["check"] for r in data["rows"]} >= {"reachable", "time to first token"}
    assert "tiermem doctor: fake-model" in captured.err  # the table went to stderr

    persona.capable(server)
    assert cli.main(["doctor", "--base-url", server.base_url]) == 0
    assert "the memory agent can work" in " ".join(capsys.readouterr().out.split())


@pytest.mark.parametrize("json_flag", [[], ["--json"]])
def test_the_doctors_usage_errors_go_to_stderr(capsys: pytest.CaptureFixture[str],
                                               monkeypatch: pytest.MonkeyPatch,
                                               json_flag: list[str]) -> None:
    monkeypatch.delenv(ENV_BASE_URL, raising=False)
    assert cli.main(["doctor", *json_flag]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("tiermem: doctor needs the server: pass --base-url URL")
    assert len(captured.err.splitlines()) == 1
    assert cli.main(["doctor", "--base-url", "ftp://x", *json_flag]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("tiermem: ") and "ftp://x" in captured.err


@pytest.mark.parametrize(("content", "names"), [
    ('<tool_call>\n{"name": "core_memory_append", "arguments": {"content": "x"}}\n</tool_call>',
     ["core_memory_append"]),
    ('```json\n{"name": "send_message", "arguments": {"message": "hi"}}\n```', ["send_message"]),
    ('{"name": "core_memory_append", "arguments": {"content": "x"}}', ["core_memory_append"]),
    ('&lt;tool_call&gt;{&#34;name&#34;: &#34;core_memory_append&#34;, &#34;arguments&#34;: '
     '{}}&lt;/tool_call&gt;', ["core_memory_append"]),  # llama-cpp-python escapes its prompt
    ('<|python_tag|>{"name": "core_memory_append", "parameters": {"content": "x"}}',
     ["core_memory_append"]),
    ('[TOOL_CALLS] [{"name": "send_message", "arguments": {"message": "hi"}}]', ["send_message"]),
    ('[TOOL_CALLS]send_message[ARGS]{"message": "hi"}', ["send_message"]),
    ('<function=core_memory_append>{"content": "x"}</function>', ["core_memory_append"]),
    ('Noted. {"name": "core_memory_append", "arguments": {"content": "x"}}', []),
    ('<tool_call>{"name": "memory_store", "arguments": {}}</tool_call>', ["memory_store"]),
    ('{"name": "rm_rf", "arguments": {}}', []),
    ("I will remember that you are allergic to peanuts.", []),
])
def test_the_doctor_reads_text_tool_calls_as_the_agent_does(
        content: str, names: list[str]) -> None:
    from tiermem.agent.text_tool_calls import parse_text_tool_calls

    found = parse_text_tool_calls(content, ("core_memory_append", "send_message"))
    assert [call.name for call in found] == names


def test_a_probe_that_times_out_says_so(server: FakeOpenAIServer) -> None:
    def slow_tools(body: dict[str, Any], held: FakeResponse) -> None:
        if body.get("tool_choice") == "auto":
            held.delay = math.inf  # answered only when the server closes

    persona.capable_but(server, slow_tools)
    # Long enough for every probe that is answered, even on a busy machine; the held one
    # gets no answer however long it waits.
    report = run_doctor(server.base_url, server.model, timeout=5)
    assert rows(report)["tool calls, tool_choice auto"] == ("fail", "error")
    assert next(r.detail for r in report.rows if r.check == "tool calls, tool_choice auto") \
        == "no answer within the timeout"
    assert not report.works
    # The model was never heard from with tool_choice "auto" (sent once, never again): the
    # verdict says so, and the only advice is the timeout's, not another model.
    assert [body.get("tool_choice") for body in server.requests].count("auto") == 1
    assert report.verdict == ("the memory agent cannot be shown to work with fake-model: the "
                              "tool-call probe (tool_choice \"auto\") got no answer within 5 s, "
                              "so whether the model calls tools is not known")
    assert report.advice == ["the tool-call probe got no answer in time: on a slow machine pass "
                             "a larger --timeout to the doctor, and to chat"]


@pytest.mark.parametrize("answer", [
    FakeResponse(body=b"<html><body>It works!</body></html>",
                 headers={"Content-Type": "text/html"}),
    FakeResponse(body=json.dumps({"object": "chat.completion", "choices": []}).encode(),
                 headers={"Content-Type": "application/json"}),
])
def test_an_answer_that_is_no_completion_fails_plain_chat(
        server: FakeOpenAIServer, answer: FakeResponse) -> None:
    server.responder = lambda body: answer
    report = run_doctor(server.base_url, server.model)
    assert rows(report)["plain chat"] == ("fail", "no")
    assert not report.findings.plain_chat and not report.works
    assert "the answer is not a chat completion" in report.verdict
    assert "it ends in /v1" in advice(report)
    assert "instruct model" not in advice(report)


@pytest.mark.parametrize("status", [404, 405])
def test_a_web_ui_refusing_the_chat_request_is_a_wrong_url(
        server: FakeOpenAIServer, status: int) -> None:
    page = {"Content-Type": "text/html"}
    server.routes[("GET", "/v1/models")] = FakeResponse(
        body=b"<!doctype html><html><body>Open WebUI</body></html>", headers=page)
    server.responder = lambda body: FakeResponse(
        status=status, body=b"<html><body>Method Not Allowed</body></html>", headers=page)
    report = run_doctor(server.base_url, server.model)
    assert rows(report)["models listed"] == ("warn", "HTTP 200")
    listed = next(r.detail for r in report.rows if r.check == "models listed")
    assert listed == "a web page (HTML), not an OpenAI-compatible API's JSON"  # not "empty"
    assert rows(report)["plain chat"] == ("fail", "no") and not report.works
    assert "it ends in /v1" in advice(report)


def test_credentials_a_server_quotes_back_are_masked_in_the_verdict_and_json(
        server: FakeOpenAIServer) -> None:
    key, password = "sk-KEYSECRET-abcdef123", "PWSECRET99"
    echoed = {"error": {"message": f"internal: auth=Bearer {key} pw {password}"}}
    server.responder = lambda body: FakeResponse(status=500, body=json.dumps(echoed).encode())
    base_url = server.base_url.replace("http://", f"http://admin:{password}@")
    report = run_doctor(base_url, server.model, api_key=key)
    said = json.dumps(report.to_dict())
    assert "cannot work" in report.verdict and "internal: auth=Bearer" in said
    assert key not in said and password not in said


_ROLE = 'data: {"choices": [{"index": 0, "delta": {"role": "assistant"}}]}\n\n'


@pytest.mark.parametrize(("body", "announced", "why"), [
    # Cut inside an event, the rest of the length announced never sent.
    (_ROLE + 'data: {"choi', 10_000, "bytes announced still to come"),
    # Closed after a whole event, announcing no length: no [DONE], no finish_reason.
    (_ROLE, None, "closed before the stream's end ([DONE])"),
], ids=["mid-event", "no-end"])
def test_a_stream_cut_before_its_first_token_is_reported_as_cut(
        examine: Callable[..., DoctorReport], body: str, announced: int | None,
        why: str) -> None:
    def cut(request: dict[str, Any], answer: FakeResponse) -> None:
        if request.get("stream"):
            answer.body, answer.declared_length = body.encode(), announced

    report = examine(lambda server: persona.capable_but(server, cut))
    status, result = rows(report)["time to first token"]
    assert (status, result) == ("warn", "stream cut")
    assert why in rendered(report) and "its log says why" in rendered(report)


def test_a_whole_stream_without_text_is_no_cut(examine: Callable[..., DoctorReport]) -> None:
    def empty(request: dict[str, Any], answer: FakeResponse) -> None:
        if request.get("stream"):
            answer.body = (_ROLE + 'data: {"choices": [{"index": 0, "delta": {}, '
                                   '"finish_reason": "stop"}]}\n\n').encode()

    report = examine(lambda server: persona.capable_but(server, empty))
    assert rows(report)["time to first token"] == ("warn", "no tokens streamed")


_TOO_LONG = "the request exceeds the available context size, try increasing it"


@pytest.mark.parametrize("body", [
    # llama.cpp's error field, then its [DONE].
    f'error: {{"code": 400, "message": "{_TOO_LONG}", "type": "exceed_context_size_error"}}'
    '\n\ndata: [DONE]\n\n',
    # An error as an event's data (vLLM, a proxy), after the role.
    _ROLE + f'data: {{"error": {{"message": "{_TOO_LONG}", "code": 400}}}}\n\n',
    # An event typed as an error, its data the message alone, then the connection closed.
    _ROLE + f'event: error\ndata: {{"message": "{_TOO_LONG}"}}\n\n',
], ids=["error-field", "error-data", "error-event"])
def test_an_error_streamed_before_the_first_token_is_reported_in_the_server_s_words(
        examine: Callable[..., DoctorReport], body: str) -> None:
    def failing(request: dict[str, Any], answer: FakeResponse) -> None:
        if request.get("stream"):
            answer.body = body.encode()

    report = examine(lambda server: persona.capable_but(server, failing))
    assert rows(report)["time to first token"] == ("warn", "stream error")
    assert f"then the server's error: {_TOO_LONG}" in rendered(report)


@pytest.mark.parametrize("first", [
    # An event that says it carries no error, with no choices yet (a proxy's first event).
    'data: {"choices": [], "error": null}\n\n',
    'data: {"error": {}, "choices": []}\n\n',
], ids=["null", "empty"])
def test_an_event_naming_no_error_does_not_hide_the_token_after_it(
        examine: Callable[..., DoctorReport], first: str) -> None:
    def streamed(request: dict[str, Any], answer: FakeResponse) -> None:
        if request.get("stream"):
            answer.body = (first + _ROLE + 'data: {"choices": [{"index": 0, "delta": '
                           '{"content": "Hi"}}]}\n\ndata: [DONE]\n\n').encode()

    report = examine(lambda server: persona.capable_but(server, streamed))
    assert rows(report)["time to first token"][0] == "ok"


def test_a_server_busy_for_the_tool_probe_leaves_whether_the_agent_works_unknown(
        examine: Callable[..., DoctorReport]) -> None:
    # Plain chat answered; the request with tools found Ollama's queue full.
    def busy(request: dict[str, Any], answer: FakeResponse) -> None:
        if request.get("tools") and not request.get("stream"):
            answer.status, answer.message = 503, None
            answer.body = json.dumps({"error": {"message": "server busy, please try again.  "
                                                           "maximum pending requests exceeded"}}
                                     ).encode()

    report = examine(lambda server: persona.capable_but(server, busy))
    assert not report.works and not report.known
    assert "is not known: the server was too busy to answer" in report.verdict
    assert "cannot work" not in report.verdict
    assert advice(report).startswith("the server is busy; run `tiermem doctor` again later")
