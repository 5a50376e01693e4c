"""What a turn reports when a local model server refuses it for how it was started or for
the model it lacks: the agent against the loopback server, with each server's own body."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from fake_openai import FakeOpenAIServer, FakeResponse

from tiermem.agent.chat_output import UNANSWERED, provider_hint
from tiermem.agent.command_hints import hint_for
from tiermem.agent.errors import ProviderError
from tiermem.agent.loop import Agent
from tiermem.agent.openai_client import OpenAIClient
from tiermem.memory import HashingEmbedder, HierarchicalMemory

SAID = "I like green tea"


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        yield m


def failed_turn(server: FakeOpenAIServer, memory: HierarchicalMemory,
                sleeps: list[float]) -> ProviderError:
    """The error of one turn, checked to have left the user's message as unanswered."""
    llm = OpenAIClient("qwen3:4b", base_url=server.base_url, max_retries=3,
                       sleep=sleeps.append)
    with pytest.raises(ProviderError) as info:
        Agent(memory, llm).step(SAID)
    rows = [row for row in memory.snapshot()["tables"]["messages"] if row["content"] == SAID]
    assert [row["status"] for row in rows] == ["unanswered"]
    return info.value


def error_body(message: str, **fields: Any) -> dict[str, Any]:
    return {"error": {"message": message, **fields}}


@pytest.mark.parametrize(("status", "body", "said", "hinted"), [
    # llama-server without --jinja, and a build from before its tool calls.
    (500, error_body("tools param requires --jinja flag", code=500, type="server_error"),
     "llama-server runs without --jinja", "restart llama-server with --jinja"),
    (500, {"code": 500, "message": "Unsupported param: tools", "type": "server_error"},
     "this llama-server build has no tool calls", "update llama.cpp, then restart"),
    # vLLM without a tool-call parser.
    (400, {"object": "error", "type": "BadRequestError", "code": 400,
           "message": '"auto" tool choice requires --enable-auto-tool-choice and '
                      '--tool-call-parser to be set'},
     "vLLM runs without --enable-auto-tool-choice", "--tool-call-parser for the model"),
    # Ollama, for a model whose template has no tool calls.
    (400, error_body("registry.ollama.ai/library/gemma3:4b does not support tools",
                     type="api_error"),
     "refuses tool calls for model 'qwen3:4b'", "pass --model a model that makes them"),
    # Ollama, for a model it has not pulled.
    (404, error_body('model "qwen3:4b" not found, try pulling it first', type="api_error"),
     "has no model 'qwen3:4b' (HTTP 404)", "pull model 'qwen3:4b' (`ollama pull qwen3:4b`)"),
    # LM Studio, with no model loaded, under either status it has used.
    (400, {"error": "No models loaded. Please load a model in the developer page or use the "
                    "`lms load` command."},
     "has no model loaded (HTTP 400)", "load a model (`lms load NAME`"),
    (404, error_body("No models loaded. Please load a model in the developer page or use the "
                     "`lms load` command.", code="model_not_found"),
     "has no model loaded (HTTP 404)", "load a model (`lms load NAME`"),
])
def test_a_server_not_started_for_tool_calls_or_without_the_model_is_asked_once_and_says_why(
        server: FakeOpenAIServer, memory: HierarchicalMemory, sleeps: list[float],
        status: int, body: dict[str, Any], said: str, hinted: str) -> None:
    for _ in range(4):
        server.enqueue_error(status, body)
    error = failed_turn(server, memory, sleeps)
    assert len(server.requests) == 1 and sleeps == []
    assert (error.kind, error.retryable, error.status_code) == ("bad_request", False, status)
    assert said in str(error) and "the server is having problems" not in str(error)
    assert "no /chat/completions endpoint" not in str(error)
    hint = provider_hint(error)
    assert hint.startswith(f"{UNANSWERED}; ") and hinted in hint
    assert "send it again when the model's server has recovered" not in hint
    assert "change what the error names" not in hint


def ollama_at(port: int, server: FakeOpenAIServer, model: str = "qwen3:4b") -> OpenAIClient:
    """A client whose base URL is at ``port`` of this machine, answered by ``server``."""
    llm = OpenAIClient(model, base_url=f"http://localhost:{port}/v1", max_retries=0)
    llm._client.base_url = server.base_url
    return llm


@pytest.mark.parametrize("body", [
    {"error": "model 'qwen3:4b' not found"},
    error_body("model 'qwen3:4b' not found", type="not_found_error", param=None, code=None),
])
def test_ollama_s_own_error_shape_at_its_port_says_to_pull_the_model(
        server: FakeOpenAIServer, memory: HierarchicalMemory, body: dict[str, Any]) -> None:
    server.enqueue_error(404, body)
    with pytest.raises(ProviderError) as info:
        Agent(memory, ollama_at(11434, server)).step(SAID)
    assert "has no model 'qwen3:4b' (HTTP 404)" in str(info.value)
    assert "pull model 'qwen3:4b' (`ollama pull qwen3:4b`)" in provider_hint(info.value)


@pytest.mark.parametrize("body", [
    # Ollama's own words, typed or as text alone, at another port (OLLAMA_HOST, a container's
    # port, a reverse proxy), or a server's worded alike: the pull, if it is Ollama.
    {"error": "model 'qwen3:4b' not found"},
    error_body("model 'qwen3:4b' not found", type="not_found_error", param=None, code=None),
])
def test_ollama_s_words_elsewhere_than_its_port_give_the_pull_if_the_server_is_ollama(
        server: FakeOpenAIServer, memory: HierarchicalMemory, body: dict[str, Any]) -> None:
    server.enqueue_error(404, body)
    with pytest.raises(ProviderError) as info:
        Agent(memory, ollama_at(8080, server)).step(SAID)
    said = str(info.value)
    assert "has no model 'qwen3:4b' or no /chat/completions endpoint (HTTP 404)" in said
    assert "/models (if the server is Ollama, `ollama pull qwen3:4b` fetches it)" in said


def test_the_pull_elsewhere_names_the_model_the_server_says_it_lacks(
        server: FakeOpenAIServer, memory: HierarchicalMemory) -> None:
    # A proxy maps --model to the name Ollama behind it lacks, and hands on Ollama's words.
    server.enqueue_error(404, error_body("model 'qwen2.5:7b' not found",
                                         type="not_found_error"))
    with pytest.raises(ProviderError) as info:
        Agent(memory, ollama_at(4000, server)).step(SAID)
    said = str(info.value)
    assert "`ollama pull qwen2.5:7b` fetches it" in said and "ollama pull qwen3:4b" not in said


@pytest.mark.parametrize(("code", "headers"), [
    # A LiteLLM proxy handing on Ollama's words: its headers, or its error's code, the status
    # as text (Ollama's is null), tell it apart.
    (None, {"x-litellm-call-id": "2a8d6603", "x-litellm-version": "1.83.14"}),
    ("404", None),
])
def test_a_litellm_proxy_s_404_in_ollama_s_words_gets_no_ollama_pull(
        server: FakeOpenAIServer, memory: HierarchicalMemory, code: str | None,
        headers: dict[str, str] | None) -> None:
    server.enqueue_error(404, error_body("model 'qwen2.5:7b' not found", type="not_found_error",
                                         param=None, code=code), headers=headers)
    with pytest.raises(ProviderError) as info:
        Agent(memory, ollama_at(4000, server)).step(SAID)
    said = str(info.value)
    assert "ollama pull" not in said and "if the server is Ollama" not in said
    assert ("(the error is a LiteLLM proxy's: check its model list, and that the server behind "
            "it has model 'qwen2.5:7b')") in said


@pytest.mark.parametrize(("code", "headers", "message"), [
    # LiteLLM handing on an older Ollama's "try pulling it first" for the model it maps
    # --model to: its headers, its code the status as text, or its exception's name tell it.
    (None, {"x-litellm-call-id": "2a8d6603"}, "model 'qwen2.5:7b' not found, try pulling it first"),
    ("404", None, "model 'qwen2.5:7b' not found, try pulling it first"),
    (None, None, "litellm.NotFoundError: NotFoundError: OllamaException - model 'qwen2.5:7b' "
                 "not found, try pulling it first"),
])
@pytest.mark.parametrize("port", [4000, 11434])
def test_a_litellm_proxy_s_try_pulling_names_the_model_behind_it_not_model(
        server: FakeOpenAIServer, memory: HierarchicalMemory, code: str | None,
        headers: dict[str, str] | None, message: str, port: int) -> None:
    server.enqueue_error(404, error_body(message, type=None, param=None, code=code),
                         headers=headers)
    with pytest.raises(ProviderError) as info:
        Agent(memory, ollama_at(port, server)).step(SAID)
    assert "the server behind this LiteLLM proxy lacks 'qwen2.5:7b'" in str(info.value)
    assert info.value.hint is not None and "qwen3:4b" not in info.value.hint
    assert "`ollama pull qwen2.5:7b` there" in info.value.hint


@pytest.mark.parametrize(("name", "pull"), [
    ("qwen; rm -rf ~", "`ollama pull 'qwen; rm -rf ~'`"),
    ("it's $(id)", """`ollama pull 'it'"'"'s $(id)'`"""),
    ("hf.co/org/Model-GGUF:Q4_K_M", "`ollama pull hf.co/org/Model-GGUF:Q4_K_M`"),
])
def test_the_pull_quotes_a_name_the_server_gives_for_the_shell(
        server: FakeOpenAIServer, memory: HierarchicalMemory, name: str, pull: str) -> None:
    server.enqueue_error(404, error_body(f"model '{name}' not found", type="not_found_error"))
    with pytest.raises(ProviderError) as info:
        Agent(memory, ollama_at(4000, server)).step(SAID)
    assert f"(if the server is Ollama, {pull} fetches it)" in str(info.value)


def test_the_pull_at_ollama_s_port_quotes_the_model_for_the_shell(
        server: FakeOpenAIServer, memory: HierarchicalMemory) -> None:
    server.enqueue_error(404, {"error": "model 'my model' not found"})
    with pytest.raises(ProviderError) as info:
        Agent(memory, ollama_at(11434, server, "my model")).step(SAID)
    assert "pull model 'my model' (`ollama pull 'my model'`)" in provider_hint(info.value)


@pytest.mark.parametrize("body", [
    # Another server's typed error, not in Ollama's words.
    error_body("model qwen3:4b not found", type="not_found_error"),
    error_body("model 'qwen3:4b' not found", type="invalid_request_error"),
    # OpenAI's own, and vLLM's.
    error_body("The model `qwen3:4b` does not exist or you do not have access to it.",
               type="invalid_request_error", code="model_not_found"),
    {"object": "error", "message": "The model `qwen3:4b` does not exist.",
     "type": "NotFoundError", "code": 404},
])
def test_a_missing_model_elsewhere_than_ollama_s_port_gives_no_ollama_advice(
        server: FakeOpenAIServer, memory: HierarchicalMemory, body: dict[str, Any]) -> None:
    server.enqueue_error(404, body)
    with pytest.raises(ProviderError) as info:
        Agent(memory, ollama_at(8000, server)).step(SAID)
    said = f"{info.value} {provider_hint(info.value)}"
    assert "ollama" not in said
    assert "has no model 'qwen3:4b' or no /chat/completions endpoint (HTTP 404)" in said


def test_ollama_s_busy_server_is_asked_again_then_says_it_is_busy_and_what_to_do(
        server: FakeOpenAIServer, memory: HierarchicalMemory, sleeps: list[float]) -> None:
    for _ in range(4):
        server.enqueue_error(503, error_body("server busy, please try again.  maximum pending "
                                             "requests exceeded"))
    error = failed_turn(server, memory, sleeps)
    # The short backoff: the queue empties as the requests before it end.
    assert len(server.requests) == 4 and len(sleeps) == 3 and max(sleeps) <= 2.0
    assert (error.kind, error.retryable, error.may_pass) == ("server", True, True)
    assert ("is busy: it refuses requests beyond those it runs and queues (HTTP 503, "
            "4 attempts)") in str(error)
    assert "having problems" not in str(error)
    hint = provider_hint(error)
    assert hint.startswith(f"{UNANSWERED}; the server is busy; send it again later, once fewer "
                           f"requests run on it")
    assert "OLLAMA_NUM_PARALLEL" in hint and "OLLAMA_MAX_QUEUE" in hint


@pytest.mark.parametrize("said", ["Server busy: too many concurrent requests", "server busy"])
def test_another_server_s_busy_503_is_busy_without_ollama_s_settings(
        server: FakeOpenAIServer, memory: HierarchicalMemory, sleeps: list[float],
        said: str) -> None:
    for _ in range(4):
        server.enqueue_error(503, error_body(said))
    error = failed_turn(server, memory, sleeps)
    assert (error.kind, error.retryable, error.may_pass) == ("server", True, True)
    assert "is busy (HTTP 503, 4 attempts)" in str(error)
    hint = provider_hint(error)
    assert hint.startswith(f"{UNANSWERED}; the server is busy; send it again later, once fewer "
                           f"requests run on it")
    assert "OLLAMA" not in hint and "Ollama" not in hint and "runs and queues" not in str(error)


def test_a_server_still_loading_its_model_is_asked_again_then_says_so(
        server: FakeOpenAIServer, memory: HierarchicalMemory, sleeps: list[float]) -> None:
    for _ in range(4):
        server.enqueue_error(503, error_body("Loading model", code=503, type="unavailable_error"))
    error = failed_turn(server, memory, sleeps)
    # Waits a model takes to load, not the short backoff's few seconds in all.
    assert len(server.requests) == 4 and sleeps == [10.0, 20.0, 30.0]
    assert (error.kind, error.retryable, error.attempts) == ("server", True, 4)
    assert "is still loading its model (HTTP 503, 4 attempts)" in str(error)
    assert "having problems" not in str(error)
    assert "once the server has loaded the model" in provider_hint(error)


def test_a_model_that_loads_while_the_turn_waits_answers_it(
        server: FakeOpenAIServer, memory: HierarchicalMemory, sleeps: list[float]) -> None:
    for _ in range(2):
        server.enqueue_error(503, error_body("Loading model", code=503, type="unavailable_error"))
    server.enqueue_reply("Noted.")
    llm = OpenAIClient("qwen3:4b", base_url=server.base_url, max_retries=3,
                       sleep=sleeps.append)
    assert Agent(memory, llm).step(SAID).reply == "Noted."
    assert len(server.requests) == 3 and sleeps == [10.0, 20.0]


def test_a_server_loading_its_model_that_asks_a_wait_is_waited_for_that_long(
        server: FakeOpenAIServer, memory: HierarchicalMemory, sleeps: list[float]) -> None:
    body = json.dumps(error_body("Loading model", code=503, type="unavailable_error")).encode()
    for _ in range(4):
        server.enqueue(FakeResponse(status=503, body=body, headers={
            "Content-Type": "application/json", "Retry-After": "2"}))
    failed_turn(server, memory, sleeps)
    assert len(server.requests) == 4 and sleeps == [2.0, 2.0, 2.0]


@pytest.mark.parametrize("message", [
    "Service unavailable while loading model weights from a remote store",
    "Loading models is disabled on this server",
    "upstream connect error: failed to open connection to upstream",
    "failed to load balance the request: no healthy upstream"])
def test_a_503_that_is_not_a_model_loading_keeps_the_short_backoff(
        server: FakeOpenAIServer, memory: HierarchicalMemory, sleeps: list[float],
        message: str) -> None:
    for _ in range(4):
        server.enqueue_error(503, error_body(message, code=503))
    error = failed_turn(server, memory, sleeps)
    assert len(server.requests) == 4 and len(sleeps) == 3 and max(sleeps) <= 2.0
    assert "still loading its model" not in str(error) and error.retry_wait is None


@pytest.mark.parametrize("message", [
    "Error loading model: failed to open the file", "failed to load model 'qwen3-4b.gguf'"])
def test_a_model_the_server_could_not_load_is_asked_once_and_says_to_check_its_file(
        server: FakeOpenAIServer, memory: HierarchicalMemory, sleeps: list[float],
        message: str) -> None:
    for _ in range(4):
        server.enqueue_error(503, error_body(message, code=503, type="unavailable_error"))
    error = failed_turn(server, memory, sleeps)
    assert len(server.requests) == 1 and sleeps == []
    assert (error.kind, error.retryable, error.may_pass) == ("server", False, False)
    assert "could not load its model (HTTP 503); the server said: " in str(error)
    assert "having problems" not in str(error) and "still loading" not in str(error)
    assert "model file path the server was started with (llama-server -m" in error.hint
    # An eval or a scenario says to run it again, not to send the message again.
    assert hint_for(error.hint, "eval").endswith("restart it, then run the eval again")


def test_openais_service_saying_loading_model_keeps_the_short_backoff(
        server: FakeOpenAIServer, memory: HierarchicalMemory, sleeps: list[float]) -> None:
    for _ in range(4):
        server.enqueue_error(503, error_body("Loading model", code=503))
    llm = OpenAIClient("gpt-4o", base_url="https://api.openai.com/v1", max_retries=3,
                       sleep=sleeps.append)
    llm._client.base_url = server.base_url  # OpenAI's address, answered on loopback
    with pytest.raises(ProviderError) as info:
        Agent(memory, llm).step(SAID)
    assert len(server.requests) == 4 and len(sleeps) == 3 and max(sleeps) <= 2.0
    assert info.value.retryable and info.value.retry_wait is None


NGINX_502 = (b"<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>"
             b"502 Bad Gateway</h1></center>\r\n<hr><center>nginx/1.18.0</center>\r\n</body>\r\n"
             b"</html>\r\n")
NGINX_413 = NGINX_502.replace(b"502 Bad Gateway", b"413 Request Entity Too Large")
WERKZEUG_500 = (b"<!doctype html>\n<html lang=en>\n<title>500 Internal Server Error</title>\n"
                b"<h1>Internal Server Error</h1>\n<p>The server encountered an internal error "
                b"and was unable to complete your request.</p>\n")


@pytest.mark.parametrize(("status", "page", "attempts", "said"), [
    (502, NGINX_502, 4, "the model server, or a proxy or gateway in front of it, is having "
                        "problems; check that the model server is running, and its log; it "
                        "answered with a web page titled '502 Bad Gateway'"),
    # The model server's own framework's page, with no proxy before it.
    (500, WERKZEUG_500, 4, "HTTP 500 (4 attempts): the model server, or a proxy or gateway in "
                           "front of it, is having problems; check that the model server is "
                           "running"),
    (413, NGINX_413, 1, "the server refused the request: 413 Request Entity Too Large"),
])
def test_a_proxy_s_error_page_is_named_by_its_title_not_quoted_as_markup(
        server: FakeOpenAIServer, memory: HierarchicalMemory, sleeps: list[float],
        status: int, page: bytes, attempts: int, said: str) -> None:
    for _ in range(4):
        server.enqueue(FakeResponse(status=status, body=page,
                                    headers={"Content-Type": "text/html"}))
    error = failed_turn(server, memory, sleeps)
    assert len(server.requests) == attempts and len(sleeps) == attempts - 1
    assert said in str(error)
    assert "<" not in str(error) and "nginx" not in str(error)


@pytest.mark.parametrize(("status", "attempts", "said"), [
    (400, 1, "the server refused the request: tools[0].function.name is required"),
    (500, 4, "the server is having problems; check its logs or try again later; the server "
             "said: tools[0].function.name is required"),
])
def test_an_api_error_labelled_as_html_is_read_as_the_server_s_json(
        server: FakeOpenAIServer, memory: HierarchicalMemory, sleeps: list[float],
        status: int, attempts: int, said: str) -> None:
    body = b'{"error": {"message": "tools[0].function.name is required", "type": "x"}}'
    for _ in range(4):
        server.enqueue(FakeResponse(status=status, body=body,
                                    headers={"Content-Type": "text/html; charset=utf-8"}))
    error = failed_turn(server, memory, sleeps)
    assert len(server.requests) == attempts and len(sleeps) == attempts - 1
    assert said in str(error)
    assert "web page" not in str(error) and "proxy" not in str(error)


NGINX_504 = NGINX_502.replace(b"502 Bad Gateway", b"504 Gateway Time-out")


def test_a_proxy_that_stopped_waiting_for_a_local_model_is_not_asked_again(
        server: FakeOpenAIServer, memory: HierarchicalMemory, sleeps: list[float]) -> None:
    for _ in range(4):
        server.enqueue(FakeResponse(status=504, body=NGINX_504,
                                    headers={"Content-Type": "text/html"}))
    error = failed_turn(server, memory, sleeps)
    assert len(server.requests) == 1 and sleeps == []
    assert (error.kind, error.status_code) == ("timeout", 504)
    assert "stopped waiting for its answer" in str(error)
    assert "'504 Gateway Time-out'" in str(error) and "is running" not in str(error)
    assert "raise its read timeout (nginx proxy_read_timeout" in provider_hint(error)


def test_a_gateway_timeout_of_openai_s_api_is_not_the_user_s_proxy_to_set(
        server: FakeOpenAIServer) -> None:
    import openai

    from tiermem.agent.sdk_errors import provider_error

    # OpenAI's 504, as the SDK raises it, read as from OpenAI's address.
    server.enqueue_error(504, error_body("Gateway timeout.", type="server_error"))
    sdk = openai.OpenAI(base_url=server.base_url, api_key="sk-test", max_retries=0)
    with pytest.raises(openai.APIStatusError) as raised:
        sdk.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "hi"}])
    error = provider_error(raised.value, 4, url="https://api.openai.com/v1", model="gpt-4o",
                           timeout=60, connect_timeout=10)
    assert (error.kind, error.status_code) == ("timeout", 504)
    assert error.hint is not None and "try again later" in error.hint
    assert "nginx" not in error.hint and "proxy" not in error.hint


@pytest.mark.parametrize(("body", "said", "ran"), [
    (error_body("llama runner process has terminated: signal: killed", type="api_error"),
     "lost the process running the model: it died, often for lack of memory (HTTP 500)", True),
    ({"error": "llama runner process has terminated: exit status 2"},
     "lost the process running the model", True),
    ({"error": "llama runner process no longer running: -1 "},
     "lost the process running the model", True),
    # The model never started: there is no stop for the log to explain.
    (error_body("model requires more system memory (12.0 GiB) than is available (7.5 GiB)"),
     "has too little free memory to load model 'qwen3:4b' (HTTP 500)", False),
])
def test_a_model_that_died_or_cannot_fit_in_memory_is_asked_once_with_what_to_try(
        server: FakeOpenAIServer, memory: HierarchicalMemory, sleeps: list[float],
        body: dict[str, Any], said: str, ran: bool) -> None:
    for _ in range(4):
        server.enqueue_error(500, body)
    error = failed_turn(server, memory, sleeps)
    assert len(server.requests) == 1 and sleeps == []
    assert (error.kind, error.retryable) == ("server", False)
    assert said in str(error) and "having problems" not in str(error)
    hint = provider_hint(error)
    assert "try a smaller model or quantisation" in hint
    assert ("the server's log says why the model stopped" in hint) is ran


def test_a_proxy_s_413_says_the_request_is_over_its_size_limit(
        server: FakeOpenAIServer, memory: HierarchicalMemory, sleeps: list[float]) -> None:
    server.enqueue(FakeResponse(status=413, body=NGINX_413, headers={"Content-Type": "text/html"}))
    error = failed_turn(server, memory, sleeps)
    assert len(server.requests) == 1 and (error.kind, error.retryable) == ("bad_request", False)
    hint = provider_hint(error)
    assert "raise its body size limit (nginx client_max_body_size" in hint
    assert "smaller --context-window" in hint and "change what the error names" not in hint


def test_a_validation_error_quoting_the_user_s_words_is_not_read_as_the_server_s_setup(
        server: FakeOpenAIServer, memory: HierarchicalMemory, sleeps: list[float]) -> None:
    said = "My old phone does not support tools"
    server.enqueue_error(422, {"detail": [{"type": "string_type", "msg": "Input should be a "
                                           "valid string", "input": said,
                                           "loc": ["body", "messages", 1, "content"]}]})
    llm = OpenAIClient("qwen3:4b", base_url=server.base_url, max_retries=3,
                       sleep=sleeps.append)
    with pytest.raises(ProviderError) as info:
        Agent(memory, llm).step(said)
    assert "its template has none" not in str(info.value)
    assert "pass --model a model that makes them" not in provider_hint(info.value)


@pytest.mark.parametrize(("status", "message", "hinted"), [
    (500, "tools param requires --jinja flag", "restart llama-server with --jinja"),
    (400, '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be '
          'set', "--tool-call-parser for the model"),
    (400, "registry.ollama.ai/library/gemma3:4b does not support tools",
     "pass --model a model that makes them"),
    (400, "No models loaded. Please load a model in the developer page.", "`lms load NAME`"),
    (500, "llama runner process has terminated: signal: killed", "try a smaller model"),
])
def test_a_fault_a_fastapi_server_relays_as_its_detail_text_keeps_its_hint(
        server: FakeOpenAIServer, memory: HierarchicalMemory, sleeps: list[float],
        status: int, message: str, hinted: str) -> None:
    for _ in range(4):
        server.enqueue_error(status, {"detail": message})
    error = failed_turn(server, memory, sleeps)
    assert len(server.requests) == 1 and sleeps == []
    assert hinted in provider_hint(error)


@pytest.mark.parametrize("detail", [
    {"error": "tools param requires --jinja flag"},
    {"message": "tools param requires --jinja flag"},
    {"error": {"message": "tools param requires --jinja flag", "type": "server_error"}},
])
def test_a_fault_a_proxy_relays_as_a_detail_holding_the_server_s_error_keeps_its_hint(
        server: FakeOpenAIServer, memory: HierarchicalMemory, sleeps: list[float],
        detail: dict[str, Any]) -> None:
    for _ in range(4):
        server.enqueue_error(500, {"detail": detail})
    error = failed_turn(server, memory, sleeps)
    assert len(server.requests) == 1 and sleeps == []
    assert "restart llama-server with --jinja" in provider_hint(error)
    assert "the server said: tools param requires --jinja flag" in str(error)


CUDA_BUSY = ("llama runner process has terminated: CUDA error: CUDA-capable device(s) is/are "
             "busy or unavailable")


def test_a_model_whose_gpu_is_busy_is_asked_again_and_the_hint_names_the_gpu(
        server: FakeOpenAIServer, memory: HierarchicalMemory, sleeps: list[float]) -> None:
    for _ in range(4):
        server.enqueue_error(500, error_body(CUDA_BUSY, type="api_error"))
    error = failed_turn(server, memory, sleeps)
    assert len(server.requests) == 4 and len(sleeps) == 3
    assert (error.kind, error.retryable) == ("server", True)
    assert "its GPU is busy or unavailable (HTTP 500, 4 attempts)" in str(error)
    hint = provider_hint(error)
    assert "once the GPU is free" in hint and "smaller model" not in hint


def test_a_model_whose_gpu_was_busy_answers_once_the_gpu_is_free(
        server: FakeOpenAIServer, memory: HierarchicalMemory, sleeps: list[float]) -> None:
    server.enqueue_error(500, {"error": CUDA_BUSY})
    server.enqueue_reply("Noted.")
    llm = OpenAIClient("qwen3:4b", base_url=server.base_url, max_retries=3,
                       sleep=sleeps.append)
    assert Agent(memory, llm).step(SAID).reply == "Noted."
    assert len(server.requests) == 2 and len(sleeps) == 1


def test_a_model_whose_server_sees_no_gpu_is_asked_once_and_not_blamed_on_memory(
        server: FakeOpenAIServer, memory: HierarchicalMemory, sleeps: list[float]) -> None:
    no_gpu = ("llama runner process has terminated: CUDA error: no CUDA-capable device is "
              "detected")
    for _ in range(4):
        server.enqueue_error(500, error_body(no_gpu, type="api_error"))
    error = failed_turn(server, memory, sleeps)
    assert len(server.requests) == 1 and sleeps == []
    assert "the server sees no GPU" in str(error) and "memory" not in str(error)
    hint = provider_hint(error)
    assert "GPU and its driver are visible to the server" in hint and "on CPU" in hint
    assert "smaller model" not in hint and "free memory" not in hint


@pytest.mark.parametrize("message", [
    CUDA_BUSY, "llama runner process has terminated: CUDA error: all CUDA-capable devices are "
               "busy or unavailable",
    "CUDA error: CUDA-capable device is busy or unavailable"])
def test_each_wording_of_a_busy_gpu_is_asked_again(
        server: FakeOpenAIServer, memory: HierarchicalMemory, sleeps: list[float],
        message: str) -> None:
    for _ in range(4):
        server.enqueue_error(500, {"error": message})
    error = failed_turn(server, memory, sleeps)
    assert len(server.requests) == 4 and "its GPU is busy or unavailable" in str(error)


def test_a_device_and_a_busy_service_named_apart_are_not_a_busy_gpu(
        server: FakeOpenAIServer, memory: HierarchicalMemory, sleeps: list[float]) -> None:
    died = ("llama runner process has terminated: out of memory on device 0; the runner is "
            "busy or unavailable")
    for _ in range(4):
        server.enqueue_error(500, {"error": died})
    error = failed_turn(server, memory, sleeps)
    assert len(server.requests) == 1 and sleeps == []  # a model that died: not sent again
    assert "lost the process running the model" in str(error) and "GPU" not in str(error)
