"""``tiermem doctor`` when the plain chat fails: a slow, loading or missing model."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
import server_personalities as persona
from fake_openai import FakeOpenAIServer, FakeResponse

from tiermem.agent.command_hints import hint_for
from tiermem.agent.doctor import DoctorReport, run_doctor
from tiermem.agent.doctor_tool_rows import RATE_LIMITED
from tiermem.agent.server_setup import OLLAMA_BUSY_HINT


def refusing(server: FakeOpenAIServer, status: int, body: dict[str, Any]) -> None:
    server.responder = lambda request: FakeResponse(
        status=status, body=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"})


def advice(report: DoctorReport) -> str:
    return "\n".join(report.advice)


def test_a_chat_answered_after_the_timeout_says_to_pass_a_longer_one(
        server: FakeOpenAIServer) -> None:
    def slow(body: dict[str, Any], held: FakeResponse) -> None:
        held.delay = math.inf  # answered only when the server closes

    persona.capable_but(server, slow)
    # Long enough for every probe that is answered, even on a busy machine; the held one
    # gets no answer however long it waits.
    report = run_doctor(server.base_url, server.model, timeout=5)
    assert report.verdict == ("the memory agent cannot work: a plain chat request failed (no "
                              "answer within the timeout)")
    said = advice(report)
    assert "did not answer a short chat request within 5 s" in said
    assert "with a larger --timeout" in said and "the chat waits 300 s" in said


def test_a_chat_whose_connection_closed_unanswered_says_to_read_the_server_s_log(
        server: FakeOpenAIServer) -> None:
    server.responder = lambda request: FakeResponse(dropped=True)
    report = run_doctor(server.base_url, server.model)
    assert not report.works and report.findings.plain_chat_error.startswith("no answer (")
    assert report.advice == [
        "the server listed its models but gave a short chat request no answer: it may have "
        "crashed loading or running the model (out of memory, say); its log says why. Run the "
        "doctor again once that is fixed"]


def test_a_chat_answer_cut_off_part_way_is_no_answer_not_a_wrong_url(
        server: FakeOpenAIServer) -> None:
    # 400 bytes announced, 26 sent, then the connection closed.
    server.responder = lambda request: FakeResponse(
        body=b'{"id": "chatcmpl-1", "choi', headers={"Content-Type": "application/json"},
        declared_length=400)
    report = run_doctor(server.base_url, server.model)
    assert not report.works
    assert report.findings.plain_chat_error == (
        "no answer (the connection closed after 26 of the 400 bytes announced)")
    assert "its log says why" in advice(report) and "/v1" not in advice(report)


def test_a_refusal_cut_short_is_no_answer_not_the_words_it_got_to(
        server: FakeOpenAIServer) -> None:
    # A 500 whose message stops mid-sentence, as its connection closed: JSON all the same.
    said = json.dumps({"error": {"message": "model requires more system memory (12.0 GiB) "
                                            "than is"}}).encode()
    server.responder = lambda request: FakeResponse(
        status=500, body=said, headers={"Content-Type": "application/json"},
        declared_length=400)
    report = run_doctor(server.base_url, server.model)
    assert not report.works and report.findings.server_fault == ""
    assert report.known and report.verdict.startswith("the memory agent cannot work")
    assert report.findings.plain_chat_error == (
        f"no answer (the connection closed after {len(said)} of the 400 bytes announced)")
    assert "its log says why" in advice(report) and "smaller model" not in advice(report)


def test_a_model_still_loading_says_to_wait(server: FakeOpenAIServer) -> None:
    # llama-server's answer to every request while it loads the model.
    refusing(server, 503, {"error": {"code": 503, "message": "Loading model",
                                     "type": "unavailable_error"}})
    report = run_doctor(server.base_url, server.model)
    assert not report.works and "HTTP 503: Loading model" in report.verdict
    # llama.cpp's own fix, as the chat gives it.
    assert advice(report) == ("run `tiermem doctor` again once the server has loaded the model "
                              "(its log says when)")


def test_a_model_the_server_failed_to_load_is_not_said_to_be_loading(
        server: FakeOpenAIServer) -> None:
    refusing(server, 503, {"error": {"code": 503, "type": "unavailable_error", "message":
                                     "Error loading model: failed to open the file"}})
    report = run_doctor(server.base_url, server.model)
    assert not report.works and "failed to open the file" in report.verdict
    # The chat's fault and fix, worded for the doctor.
    assert report.findings.server_fault == "could not load its model"
    assert advice(report) == ("check the model file path the server was started with "
                              "(llama-server -m, say) and its log, restart it, then run "
                              "`tiermem doctor` again")


def test_a_busy_server_s_503_is_advised_as_busy_not_as_loading(
        server: FakeOpenAIServer) -> None:
    # Ollama's answer once its queue of pending requests is full.
    refusing(server, 503, {"error": {"message": "server busy, please try again.  maximum "
                                                "pending requests exceeded"}})
    report = run_doctor(server.base_url, server.model)
    assert not report.works and report.findings.server_fault.startswith("is busy")
    # No setup fault: not known, rather than "cannot work".
    assert report.verdict == (f"whether the memory agent works with {server.model} is not "
                              f"known: the server was too busy to answer, which is no fault "
                              f"of its setup")
    assert report.to_dict()["known"] is False and report.to_dict()["works"] is False
    # The chat's own advice, worded for the doctor.
    assert report.advice == [hint_for(OLLAMA_BUSY_HINT, "doctor")]
    assert advice(report).startswith("the server is busy; run `tiermem doctor` again later, "
                                     "once fewer requests run on it")
    assert "loads the model" not in advice(report) and "Wait until" not in advice(report)


def test_a_busy_server_that_does_not_list_the_model_is_not_said_free_of_fault(
        server: FakeOpenAIServer) -> None:
    refusing(server, 503, {"error": {"message": "server busy, please try again.  maximum "
                                                "pending requests exceeded"}})
    report = run_doctor(server.base_url, "qwen3:4b")
    assert report.verdict == ("whether the memory agent works with qwen3:4b is not known: the "
                              "server was too busy to answer, and it does not list qwen3:4b")
    assert "no fault" not in report.verdict and report.to_dict()["known"] is False
    assert f"the server lists {server.model}; pass --model with one of them" in report.advice


def test_another_503_is_advised_as_a_busy_or_overloaded_server(
        server: FakeOpenAIServer) -> None:
    refusing(server, 503, {"error": {"message": "Service Unavailable"}})
    report = run_doctor(server.base_url, server.model)
    assert not report.works and report.findings.server_fault == ""
    assert advice(report).startswith("the server is busy or overloaded (HTTP 503): run the "
                                     "doctor again shortly")
    # Only Ollama's own words for its full queue name its settings.
    assert "OLLAMA" not in advice(report)
    assert "proxy in front of it" in advice(report)


def test_a_model_the_server_does_not_have_says_to_pull_it(server: FakeOpenAIServer) -> None:
    # Ollama's answer for a model it has not pulled.
    refusing(server, 404, {"error": {"message": 'model "qwen2.5:7b" not found, try pulling it '
                                                "first", "type": "api_error", "param": None,
                                     "code": None}})
    report = run_doctor(server.base_url, "qwen2.5:7b")
    assert not report.works and "not found, try pulling it first" in report.verdict
    # Ollama's own fix, as the chat gives it, with the models the server has: "pass
    # --model" said once.
    assert report.advice == [
        "pull model 'qwen2.5:7b' (`ollama pull qwen2.5:7b`), or pass --model a name `ollama "
        "list` shows, then run `tiermem doctor` again; the server lists fake-model"]


def test_a_litellm_proxy_s_try_pulling_known_by_its_headers_names_the_model_behind_it(
        server: FakeOpenAIServer) -> None:
    # The Ollama behind a LiteLLM proxy lacks the model the proxy maps --model to; only the
    # proxy's headers tell the error is handed on.
    body = {"error": {"message": "model 'qwen2.5:7b' not found, try pulling it first",
                      "type": None, "param": None, "code": None}}
    server.responder = lambda request: FakeResponse(
        status=404, body=json.dumps(body).encode(),
        headers={"Content-Type": "application/json", "x-litellm-call-id": "2a8d6603"})
    report = run_doctor(server.base_url, "qwen3:4b")
    assert not report.works and "qwen3:4b" not in advice(report)
    assert advice(report).startswith(
        "pull model 'qwen2.5:7b' on the Ollama behind the proxy (`ollama pull qwen2.5:7b` "
        "there)")


def test_ollama_s_own_error_shape_from_another_port_gets_the_advice_for_any_server(
        server: FakeOpenAIServer) -> None:
    # The error as its text alone, with no type: Ollama's own API shape, but a proxy or
    # another server words it alike, and this one is not at Ollama's port.
    refusing(server, 404, {"error": "model 'qwen2.5:7b' not found"})
    report = run_doctor(server.base_url, "qwen2.5:7b")
    assert report.findings.server_fault == ""
    assert report.advice == [
        "the server has no model named 'qwen2.5:7b': load it in the server, or pass --model "
        "with a model the server has (fake-model)"]


def test_a_404_that_names_no_model_is_a_wrong_url(server: FakeOpenAIServer) -> None:
    refusing(server, 404, {"detail": "Not Found"})
    report = run_doctor(server.base_url, server.model)
    assert not report.works
    assert "it ends in /v1" in advice(report) and "pull" not in advice(report)


_QUOTA = "You exceeded your current quota, please check your plan and billing details."


@pytest.mark.parametrize("body", [
    {"error": {"message": _QUOTA, "type": "insufficient_quota", "code": "insufficient_quota"}},
    # As a LiteLLM proxy hands OpenAI's refusal on: quoted in its message.
    {"error": {"message": "litellm.RateLimitError: OpenAIException - Error code: 429 - "
                          "{'error': {'message': '" + _QUOTA + "', 'type': "
                          "'insufficient_quota', 'code': 'insufficient_quota'}}",
               "type": None, "param": None, "code": "429"}}])
def test_a_quota_used_up_is_advised_as_the_chat_hints_it(
        server: FakeOpenAIServer, body: dict[str, Any]) -> None:
    refusing(server, 429, body)
    report = run_doctor(server.base_url, server.model)
    assert not report.works and advice(report).startswith(
        "the account's quota is used up (HTTP 429): waiting does not lift it: add credit")
    assert advice(report).endswith("then run `tiermem doctor` again")


def test_a_proxy_s_budget_spent_is_advised_as_the_chat_hints_it(
        server: FakeOpenAIServer) -> None:
    refusing(server, 429, {"error": {"message": "Budget has been exceeded! Key=k Current cost: "
                                                "2.0, Max budget: 1.0",
                                     "type": "budget_exceeded", "param": None, "code": "429"}})
    report = run_doctor(server.base_url, server.model)
    assert not report.works and advice(report).startswith(
        "the proxy's spending budget is used up (HTTP 429): waiting a minute does not lift it")
    assert advice(report).endswith("then run `tiermem doctor` again")


def test_a_rate_limit_is_advised_to_run_the_doctor_again_later(
        server: FakeOpenAIServer) -> None:
    refusing(server, 429, {"error": {"message": "Rate limit reached for requests",
                                     "type": "requests", "code": "rate_limit_exceeded"}})
    report = run_doctor(server.base_url, server.model)
    assert report.advice == [RATE_LIMITED] and "is not known" in report.verdict


def test_a_rate_limit_on_the_tool_probe_is_no_fault_of_the_tool_setup(
        server: FakeOpenAIServer) -> None:
    # The plain chat answered, then a proxy's limit per minute refused the probe with tools.
    def limited(body: dict[str, Any], held: FakeResponse) -> None:
        if body.get("tools"):
            held.status, held.message = 429, None
            held.body = json.dumps({"error": {"message": "Rate limit reached"}}).encode()

    persona.capable_but(server, limited)
    report = run_doctor(server.base_url, server.model)
    assert report.verdict == (f"whether the memory agent works with {server.model} is not "
                              f"known: the server was too busy to answer, which is no fault "
                              f"of its setup")
    assert report.advice == [RATE_LIMITED]


def refusing_with_page(server: FakeOpenAIServer, status: int, title: str,
                       headers: dict[str, str]) -> None:
    page = f"<html><head><title>{title}</title></head><body><h1>{title}</h1></body></html>"
    server.responder = lambda request: FakeResponse(
        status=status, body=page.encode(), headers={"Content-Type": "text/html", **headers})


@pytest.mark.parametrize(("status", "title", "server_name", "advised"), [
    (429, "429 Too Many Requests", "nginx/1.25.3", RATE_LIMITED),
    (403, "Attention Required! | Cloudflare", "cloudflare",
     "a proxy or firewall in front of the server refused the request with its own web page "
     "(HTTP 403)"),
    (503, "503 Service Temporarily Unavailable", "nginx",
     "the server is busy or overloaded (HTTP 503)"),
])
def test_a_proxy_s_refusal_page_shows_who_sent_it_and_the_wait_it_asks(
        server: FakeOpenAIServer, status: int, title: str, server_name: str,
        advised: str) -> None:
    refusing_with_page(server, status, title, {"Server": server_name, "Retry-After": "30"})
    report = run_doctor(server.base_url, server.model)
    row = next(row for row in report.rows if row.check == "plain chat")
    assert row.detail == (f"HTTP {status}: a web page titled {title!r} from {server_name!r} "
                          f"(Retry-After: 30)")
    # A refusal in front of the API, not a wrong base URL.
    assert advice(report).startswith(advised) and "API root" not in advice(report)


def test_a_web_ui_s_page_refusing_the_post_still_says_the_url_is_wrong(
        server: FakeOpenAIServer) -> None:
    refusing_with_page(server, 405, "405 Method Not Allowed", {"Server": "nginx"})
    assert "API root (it ends in /v1)" in advice(run_doctor(server.base_url, server.model))


@pytest.mark.parametrize(("page", "content_type", "shown"), [
    # A script's text and a comment are no title; entities read as the characters they are.
    (b"<html><head><!-- <title>old</title> --><script>document.title = '<title>x</title>'"
     b"</script><title>Access denied &amp; logged &ndash; ref 7</title></head></html>",
     "text/html", "Access denied & logged \u2013 ref 7"),
    # A page in the charset its Content-Type names, not UTF-8.
    ("<html><head><title>Acc\u00e8s refus\u00e9</title></head></html>".encode("latin-1"),
     "text/html; charset=iso-8859-1", "Acc\u00e8s refus\u00e9"),
])
def test_a_refusal_page_s_title_reads_as_its_browser_shows_it(
        server: FakeOpenAIServer, page: bytes, content_type: str, shown: str) -> None:
    server.responder = lambda request: FakeResponse(
        status=403, body=page, headers={"Content-Type": content_type, "Server": "Apache"})
    row = next(row for row in run_doctor(server.base_url, server.model).rows
               if row.check == "plain chat")
    assert row.detail == f"HTTP 403: a web page titled {shown!r} from 'Apache'"


@pytest.mark.parametrize("status", [200, 404])
def test_a_web_ui_s_page_is_named_by_its_title_not_quoted_as_markup(
        server: FakeOpenAIServer, status: int) -> None:
    refusing_with_page(server, status, "Open WebUI", {"Server": "nginx"})
    report = run_doctor(server.base_url, server.model)
    row = next(row for row in report.rows if row.check == "plain chat")
    assert row.detail == (f"HTTP {status}: the answer is not a chat completion: a web page "
                          f"titled 'Open WebUI' from 'nginx'")
    assert "API root (it ends in /v1)" in advice(report)


def test_a_key_the_api_rejects_is_advised_as_the_chat_says_it(server: FakeOpenAIServer) -> None:
    refusing(server, 401, {"error": {"message": "Incorrect API key provided: sk-abc***.",
                                     "type": "invalid_request_error",
                                     "code": "invalid_api_key"}})
    assert run_doctor(server.base_url, server.model, "sk-abc").advice == [
        "the server rejected the API key (HTTP 401): set OPENAI_API_KEY to a key it accepts "
        "(the doctor and the chat both send it), then run the doctor again"]


@pytest.mark.parametrize("status", [401, 403])
def test_a_model_a_proxy_s_key_may_not_use_is_advised_with_the_models_it_lists(
        server: FakeOpenAIServer, status: int) -> None:
    # LiteLLM sends this refusal as a 401 or a 403, by version: the key is good either way.
    refusing(server, status, {"error": {
        "message": "key not allowed to access model. This key can only access "
                   "models=['gpt-4o']. Tried to access fake-model",
        "type": "key_model_access_denied", "param": "model", "code": str(status)}})
    server.routes[("GET", "/v1/models")] = {"object": "list", "data": [
        {"id": "gpt-4o", "object": "model"}, {"id": server.model, "object": "model"}]}
    assert run_doctor(server.base_url, server.model, "sk-abc").advice == [
        f"the API key may not use model 'fake-model' (HTTP {status}): pass --model with a "
        f"model it may use (gpt-4o), or set OPENAI_API_KEY to a key allowed this model"]


@pytest.mark.parametrize(("body", "headers", "wait"), [
    ([{"error": {"code": 429, "status": "RESOURCE_EXHAUSTED",
                 "message": "You exceeded your current quota. Please retry in 2h47m56.5s."}}],
     {}, "2 h 47 min"),
    ({"error": {"message": "Too many requests"}}, {"Retry-After": "10000"}, "2 h 46 min"),
])
def test_a_429_asking_a_wait_of_hours_is_not_advised_as_a_minute_s_rate_limit(
        server: FakeOpenAIServer, body: Any, headers: dict[str, str], wait: str) -> None:
    server.responder = lambda request: FakeResponse(
        status=429, body=json.dumps(body).encode(),
        headers={"Content-Type": "application/json", **headers})
    assert run_doctor(server.base_url, server.model).advice == [
        f"the server asked to wait {wait} before a request is sent again (HTTP 429): a quota "
        f"for the day (or the hour) is used up, it seems: run `tiermem doctor` again in "
        f"{wait}, or use another key or --base-url"]


@pytest.mark.parametrize(("status", "title", "advised"), [
    (502, "502 Bad Gateway", "a proxy or gateway in front of the model server got no answer "
                             "from it (HTTP 502): check that the model server is running"),
    (504, "504 Gateway Time-out", "a proxy or gateway in front of the model server stopped "
                                  "waiting for its answer (HTTP 504): if it is yours, raise "
                                  "its read timeout"),
    (500, "500 Internal Server Error", "the server failed a short chat request (HTTP 500): its "
                                       "log says why"),
])
def test_a_server_failure_page_is_advised_as_the_chat_says_it(
        server: FakeOpenAIServer, status: int, title: str, advised: str) -> None:
    refusing_with_page(server, status, title, {"Server": "nginx"})
    report = run_doctor(server.base_url, server.model)
    assert len(report.advice) == 1 and report.advice[0].startswith(advised)


def test_an_error_sent_as_a_list_of_one_shows_its_message(server: FakeOpenAIServer) -> None:
    # Gemini's OpenAI-compatible endpoint sends its error as a list of one.
    server.responder = lambda request: FakeResponse(status=400, body=json.dumps([{"error": {
        "code": 400, "message": "API key not valid. Please pass a valid API key.",
        "status": "INVALID_ARGUMENT"}}]).encode(), headers={"Content-Type": "application/json"})
    row = next(row for row in run_doctor(server.base_url, server.model).rows
               if row.check == "plain chat")
    assert row.detail == "HTTP 400: API key not valid. Please pass a valid API key."


def test_google_s_400_for_a_key_it_does_not_know_is_advised_as_a_rejected_key(
        server: FakeOpenAIServer) -> None:
    refusing(server, 400, [{"error": {  # type: ignore[arg-type]
        "code": 400, "message": "API key not valid. Please pass a valid API key.",
        "status": "INVALID_ARGUMENT"}}])
    assert run_doctor(server.base_url, server.model, "AIza-abc").advice == [
        "the server rejected the API key (HTTP 400): set OPENAI_API_KEY to a key it accepts "
        "(the doctor and the chat both send it), then run the doctor again"]
