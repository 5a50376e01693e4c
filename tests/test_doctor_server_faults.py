"""``tiermem doctor`` against a model server set up wrong: the server's own fix (as the chat
gives it, agent/server_setup.py) comes first in the advice, worded for the doctor."""

from __future__ import annotations

import json
from typing import Any

import pytest
import server_personalities as persona
from fake_openai import FakeOpenAIServer, FakeResponse

from tiermem.agent.doctor import run_doctor

VLLM_AUTO = {"object": "error", "type": "BadRequestError", "code": 400,
             "message": '"auto" tool choice requires --enable-auto-tool-choice and '
                        '--tool-call-parser to be set'}
OLLAMA_NO_TOOLS = {"error": {"message": "registry.ollama.ai/library/gemma3:4b does not support "
                                        "tools", "type": "api_error"}}
JINJA = {"error": {"code": 500, "message": "tools param requires --jinja flag",
                   "type": "server_error"}}
NO_MODEL_LOADED = {"error": "No models loaded. Please load a model in the developer page or use "
                            "the `lms load` command."}
RUNNER_KILLED = {"error": {"message": "llama runner process has terminated: signal: killed",
                           "type": "api_error"}}


def refusal(status: int, body: dict[str, Any]) -> FakeResponse:
    return FakeResponse(status=status, body=json.dumps(body).encode(),
                        headers={"Content-Type": "application/json"})


def refusing_tools(server: FakeOpenAIServer, status: int, body: dict[str, Any]) -> None:
    """A capable server, but for every request with tools, refused with ``body``."""
    persona.capable(server)
    answer = server.responder
    assert answer is not None
    server.responder = lambda asked: (refusal(status, body) if asked.get("tools")
                                      else answer(asked))


@pytest.mark.parametrize(("status", "body", "says", "fix"), [
    (400, VLLM_AUTO, "refuses tool calls: vLLM runs without --enable-auto-tool-choice",
     "restart vLLM with --enable-auto-tool-choice and the --tool-call-parser for the model"),
    (400, OLLAMA_NO_TOOLS, "refuses tool calls for model 'fake-model': its template has none",
     "tiermem's memory needs tool calls: pass --model a model that makes them"),
    (500, JINJA, "refuses requests with tools: llama-server runs without --jinja",
     "restart llama-server with --jinja (tool calls need the model's own chat template), then "
     "run `tiermem doctor` again"),
])
def test_a_server_refusing_tools_gives_its_own_fix_not_another_model(
        server: FakeOpenAIServer, status: int, body: dict[str, Any], says: str,
        fix: str) -> None:
    refusing_tools(server, status, body)
    report = run_doctor(server.base_url, server.model)
    assert not report.works
    assert report.verdict == f"the memory agent cannot work with fake-model: the server {says}"
    assert report.advice[0].startswith(fix) and len(report.advice) == 1
    assert (report.findings.server_fault, report.findings.server_hint) == (
        says, report.advice[0])
    # The model never saw the tools: no other model is the fix.
    assert "made no tool call" not in report.verdict


@pytest.mark.parametrize(("status", "body", "fix"), [
    (400, NO_MODEL_LOADED, "load a model (`lms load NAME`, or LM Studio's model picker), then "
                           "run `tiermem doctor` again"),
    # LM Studio has answered it as a 404 too: no model to pull, but one to load.
    (404, {"error": {"message": NO_MODEL_LOADED["error"], "code": "model_not_found"}},
     "load a model (`lms load NAME`, or LM Studio's model picker), then run `tiermem doctor` "
     "again"),
    (500, RUNNER_KILLED, "try a smaller model or quantisation (`ollama pull qwen2.5:3b`, say) or "
                         "a smaller context (Ollama's num_ctx or OLLAMA_CONTEXT_LENGTH), or free "
                         "memory, then run `tiermem doctor` again; the server's log says why "
                         "the model stopped"),
])
def test_a_server_refusing_every_chat_gives_its_own_fix(
        server: FakeOpenAIServer, status: int, body: dict[str, Any], fix: str) -> None:
    server.responder = lambda asked: refusal(status, body)
    report = run_doctor(server.base_url, server.model)
    assert not report.works and report.verdict.startswith(
        f"the memory agent cannot work: a plain chat request failed (HTTP {status}: ")
    assert report.advice == [fix]


def test_a_missing_model_the_server_words_otherwise_keeps_the_doctors_advice(
        server: FakeOpenAIServer) -> None:
    # vLLM's answer for a model it does not serve names no fault the chat knows.
    server.responder = lambda asked: refusal(404, {
        "object": "error", "message": "The model `qwen2.5:7b` does not exist.",
        "type": "NotFoundError", "param": None, "code": 404})
    report = run_doctor(server.base_url, "qwen2.5:7b")
    assert report.findings.server_hint == ""
    assert report.advice == [
        "the server has no model named 'qwen2.5:7b': load it in the server, or pass --model "
        "with a model the server has (fake-model)"]


TEMPLATE_ERROR = {"error": {"message": "Internal error in template", "type": "server_error"}}


def test_a_server_refusing_tools_for_no_known_reason_says_it_refused_them(
        server: FakeOpenAIServer) -> None:
    refusing_tools(server, 500, TEMPLATE_ERROR)
    report = run_doctor(server.base_url, server.model)
    assert not report.works
    # The model never saw the tools: not "it made no tool call", nor another model.
    assert report.verdict == ("the memory agent cannot work with fake-model: the server answers "
                              "plain chat but refused requests with tools (HTTP 500: Internal "
                              "error in template)")
    assert report.findings.tools_refused == "HTTP 500: Internal error in template"
    assert len(report.advice) == 1 and report.advice[0].startswith(
        "the model never saw the tools: the server's log says why it refused them; check its "
        "tool-call setup")


def test_a_server_refusing_only_tool_choice_auto_names_it(server: FakeOpenAIServer) -> None:
    persona.capable(server)
    answer = server.responder
    assert answer is not None
    server.responder = lambda asked: (refusal(400, {"error": {"message": "bad tool_choice"}})
                                      if asked.get("tool_choice") == "auto" else answer(asked))
    report = run_doctor(server.base_url, server.model)
    assert report.verdict == ("the memory agent cannot work with fake-model: the server answers "
                              "plain chat but refused requests with tools and tool_choice "
                              "\"auto\" (HTTP 400: bad tool_choice)")


def test_llama_server_without_jinja_and_a_template_without_tools_says_jinja_once(
        server: FakeOpenAIServer) -> None:
    persona.llama_server_without_tool_template(server)
    answer = server.responder
    assert answer is not None
    server.responder = lambda asked: (refusal(500, JINJA) if asked.get("tools")
                                      else answer(asked))
    report = run_doctor(server.base_url, server.model)
    assert report.advice == [
        "restart llama-server with --jinja (tool calls need the model's own chat template), "
        "then run `tiermem doctor` again",
        "its chat template has no tool support either: restart it with a tool-capable template "
        "too (--chat-template-file)"]


def test_a_missing_model_at_ollama_s_port_is_advised_the_ollama_pull() -> None:
    from tiermem.agent.doctor_checks import Findings, advice_for

    facts = Findings(reachable=True, models=["llama3.1:8b"], plain_chat_status=404,
                     plain_chat_error="HTTP 404: model 'qwen2.5:7b' not found")
    advice = advice_for(facts, "http://localhost:11434/v1", "qwen2.5:7b")[1]
    assert advice[0].startswith("the server has no model named 'qwen2.5:7b': pull it (ollama "
                                "pull qwen2.5:7b) or load it in the server, or pass --model")


def test_a_missing_model_on_an_ollama_at_another_port_is_advised_the_ollama_pull(
        server: FakeOpenAIServer) -> None:
    # Ollama's own answer, as text alone, from one started with OLLAMA_HOST on another port.
    server.responder = lambda asked: refusal(404, {"error": "model 'qwen2.5:7b' not found"})
    server.routes[("GET", "/api/version")] = {"version": "0.5.7"}
    report = run_doctor(server.base_url, "qwen2.5:7b")
    assert report.findings.ollama_api
    assert report.advice[0].startswith("the server has no model named 'qwen2.5:7b': pull it "
                                       "(ollama pull qwen2.5:7b)")


def test_the_doctor_s_pull_quotes_the_model_for_the_shell(server: FakeOpenAIServer) -> None:
    server.responder = lambda asked: refusal(404, {"error": "model 'qwen;reboot' not found"})
    server.routes[("GET", "/api/version")] = {"version": "0.5.7"}
    report = run_doctor(server.base_url, "qwen;reboot")
    assert "pull it (ollama pull 'qwen;reboot') or load it" in report.advice[0]


def test_a_missing_model_on_a_server_without_ollama_s_api_is_not_advised_a_pull(
        server: FakeOpenAIServer) -> None:
    server.responder = lambda asked: refusal(404, {"error": "model 'qwen2.5:7b' not found"})
    report = run_doctor(server.base_url, "qwen2.5:7b")
    assert ("GET", "/api/version") in server.other_requests and not report.findings.ollama_api
    assert "ollama pull" not in "\n".join(report.advice)
