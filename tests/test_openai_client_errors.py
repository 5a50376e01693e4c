"""The OpenAI-compatible client's answers that fail at once: refused keys, bad requests,
a context overflow, and answers that are no completion (a web page, a stray body)."""

from __future__ import annotations

import json
import pickle

import pytest
from fake_openai import FakeOpenAIServer, FakeResponse, fake_embedding
from openai_helpers import MESSAGES, TOOLS, make_client

from tiermem.agent.errors import LLMConfigError, ProviderError
from tiermem.agent.openai_client import OpenAIClient


def test_401_is_auth_and_not_retried(server: FakeOpenAIServer, sleeps: list[float]) -> None:
    server.enqueue_error(401, {"error": {"message": "Incorrect API key provided"}})
    with pytest.raises(ProviderError) as info:
        make_client(server, sleeps).complete(MESSAGES, TOOLS)
    error = info.value
    assert error.kind == "auth"
    assert not error.retryable
    assert error.status_code == 401
    assert "OPENAI_API_KEY" in str(error)
    assert "Incorrect API key" in str(error)
    assert len(server.requests) == 1
    assert sleeps == []


def test_a_proxy_s_401_for_a_model_the_key_may_not_use_says_so_not_that_the_key_is_wrong(
        server: FakeOpenAIServer, sleeps: list[float]) -> None:
    # A LiteLLM proxy's refusal, sent as a 401 by some versions: the key is good.
    server.enqueue_error(401, {"error": {
        "message": "key not allowed to access model. This key can only access "
                   "models=['gpt-4o']. Tried to access fake-model",
        "type": "key_model_access_denied", "param": "model", "code": "401"}})
    with pytest.raises(ProviderError) as info:
        make_client(server, sleeps).complete(MESSAGES, TOOLS)
    assert str(info.value).startswith(
        f"{server.base_url} refused access to model 'fake-model' (HTTP 401): check that the "
        f"API key (OPENAI_API_KEY) may use this model; the server said: key not allowed")
    assert info.value.kind == "auth" and not info.value.retryable and sleeps == []


GOOGLE_BAD_KEY = [{"error": {
    "code": 400, "message": "API key not valid. Please pass a valid API key.",
    "status": "INVALID_ARGUMENT",
    "details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_INVALID",
                 "domain": "googleapis.com"}]}}]


@pytest.mark.parametrize(("body", "said"), [
    # Gemini's key it does not know, a 400 sent as a list of one.
    (GOOGLE_BAD_KEY, "rejected the API key (HTTP 400): check OPENAI_API_KEY; the server said: "
                     "API key not valid. Please pass a valid API key."),
    # Another 400 sent so: its words are quoted too.
    ([{"error": {"code": 400, "message": "Unknown name \"foo\": Cannot find field.",
                 "status": "INVALID_ARGUMENT"}}],
     "the server refused the request: Unknown name \"foo\": Cannot find field. (HTTP 400"),
])
def test_an_error_sent_as_a_list_of_one_is_read_for_its_words(
        server: FakeOpenAIServer, sleeps: list[float], body: list[object], said: str) -> None:
    server.enqueue_error(400, json.dumps(body).encode(),
                         headers={"Content-Type": "application/json"})
    with pytest.raises(ProviderError) as info:
        make_client(server, sleeps).complete(MESSAGES, TOOLS)
    assert said in str(info.value) and not info.value.retryable and sleeps == []


@pytest.mark.parametrize("status", [400, 404, 422])
def test_client_errors_are_not_retried(
    server: FakeOpenAIServer, sleeps: list[float], status: int
) -> None:
    server.enqueue_error(status)
    with pytest.raises(ProviderError) as info:
        make_client(server, sleeps).complete(MESSAGES, TOOLS)
    assert info.value.kind == "bad_request"
    assert not info.value.retryable
    assert len(server.requests) == 1
    assert sleeps == []


def test_404_points_at_the_model_name(server: FakeOpenAIServer, sleeps: list[float]) -> None:
    server.enqueue_error(404, {"error": {"message": "model 'nope' not found"}})
    with pytest.raises(ProviderError) as info:
        make_client(server, sleeps).complete(MESSAGES, TOOLS)
    assert "TIERMEM_MODEL" in str(info.value)
    assert "'fake-model'" in str(info.value)


def test_context_length_error_names_the_context_window_setting(
    server: FakeOpenAIServer, sleeps: list[float]
) -> None:
    server.enqueue_error(
        400, {"error": {"message": "This model's maximum context length is 4096 tokens"}}
    )
    with pytest.raises(ProviderError, match="--context-window or TIERMEM_CONTEXT_WINDOW"):
        make_client(server, sleeps).complete(MESSAGES, TOOLS)


def test_llama_servers_context_size_error_is_recognised(
    server: FakeOpenAIServer, sleeps: list[float]
) -> None:
    """llama-server words it "exceeds the available context size" (recorded from b1-0c1e570)."""
    server.enqueue_error(400, {"error": {
        "code": 400, "type": "exceed_context_size_error", "n_prompt_tokens": 7038, "n_ctx": 4096,
        "message": "request (7038 tokens) exceeds the available context size (4096 tokens), "
                   "try increasing it"}})
    with pytest.raises(ProviderError, match=r"TIERMEM_CONTEXT_WINDOW is larger, set it to the "
                                            r"window it runs with \(4096\)"):
        make_client(server, sleeps).complete(MESSAGES, TOOLS)


@pytest.mark.parametrize("body", [b"<html>gateway</html>", b'{"unexpected": true}'])
def test_non_completion_response_is_bad_response(
    server: FakeOpenAIServer, sleeps: list[float], body: bytes
) -> None:
    server.enqueue_raw(200, body)
    with pytest.raises(ProviderError) as info:
        make_client(server, sleeps).complete(MESSAGES, TOOLS)
    assert info.value.kind == "bad_response"
    assert len(server.requests) == 1


@pytest.mark.parametrize(("path", "check"), [
    ("/ui", "`tiermem doctor --base-url http://127.0.0.1:{port}/v1`"),
    ("/v1", "`tiermem doctor --base-url URL`"),
])
def test_a_web_page_for_an_answer_points_at_the_url_not_the_model(
    server: FakeOpenAIServer, sleeps: list[float], path: str, check: str
) -> None:
    page = FakeResponse(body=b"<!doctype html><html><body>Open WebUI</body></html>",
                        headers={"Content-Type": "text/html; charset=utf-8"})
    if path == "/v1":
        server.enqueue(page)
    else:
        server.routes[("POST", f"{path}/chat/completions")] = page
    client = OpenAIClient("fake-model", base_url=f"http://127.0.0.1:{server.port}{path}",
                          max_retries=2, sleep=sleeps.append)
    with pytest.raises(ProviderError) as info:
        client.complete(MESSAGES, TOOLS)
    error = info.value
    asked = len(server.requests) + server.other_requests.count(("POST", f"{path}/chat/completions"))
    assert error.kind == "bad_response" and asked == 1 and sleeps == []
    assert "answered with a web page (HTML)" in str(error)
    assert error.hint is not None and error.hint.startswith("check the URL, not the model: ")
    assert check.format(port=server.port) in error.hint and "/v1" in error.hint
    assert "tool calling" not in error.hint
    assert pickle.loads(pickle.dumps(error)).hint == error.hint


@pytest.mark.parametrize(("status", "title"), [
    (403, "Attention Required! | Cloudflare"), (401, "401 Authorization Required"),
    (407, "407 Proxy Authentication Required")])
def test_a_proxy_s_page_refusing_the_request_points_at_its_access_rules_not_the_key(
        server: FakeOpenAIServer, sleeps: list[float], status: int, title: str) -> None:
    server.enqueue_error(status, f"<html><head><title>{title}</title></head></html>".encode(),
                         headers={"Content-Type": "text/html", "Server": "cloudflare"})
    with pytest.raises(ProviderError) as info:
        make_client(server, sleeps).complete(MESSAGES, TOOLS)
    error = info.value
    assert str(error) == (f"a proxy or firewall in front of {server.base_url} refused the "
                          f"request (HTTP {status}); it answered with a web page titled "
                          f"{title!r}, not the API's JSON")
    assert error.hint is not None and error.hint.startswith("check the access rules of the proxy")
    assert (error.kind, error.retryable, sleeps) == ("auth", False, [])


@pytest.mark.parametrize("status", [404, 405])
def test_a_web_page_refusing_the_request_points_at_the_url(
    server: FakeOpenAIServer, sleeps: list[float], status: int
) -> None:
    # A web UI's router answers a POST to a path it lacks with its own HTML error page.
    server.routes[("POST", "/ui/chat/completions")] = FakeResponse(
        status=status, body=b"<html><body>Method Not Allowed</body></html>",
        headers={"Content-Type": "text/html"})
    client = OpenAIClient("fake-model", base_url=f"http://127.0.0.1:{server.port}/ui",
                          max_retries=2, sleep=sleeps.append)
    with pytest.raises(ProviderError) as info:
        client.complete(MESSAGES, TOOLS)
    error = info.value
    assert (error.kind, error.status_code, error.retryable) == ("bad_response", status, False)
    assert f"answered with HTTP {status} and a web page (HTML)" in str(error)
    assert error.hint is not None and error.hint.startswith("check the URL, not the model: ")
    assert f"`tiermem doctor --base-url http://127.0.0.1:{server.port}/v1`" in error.hint
    assert sleeps == []


def test_an_api_s_json_404_still_names_the_model(server: FakeOpenAIServer,
                                                 sleeps: list[float]) -> None:
    server.enqueue_error(404, {"error": {"message": "model 'fake-model' not found"}})
    with pytest.raises(ProviderError, match="has no model 'fake-model'") as info:
        make_client(server, sleeps).complete(MESSAGES, TOOLS)
    assert info.value.hint is None


def test_empty_queue_answers_500_with_a_clear_message(server: FakeOpenAIServer) -> None:
    client = OpenAIClient("fake-model", base_url=server.base_url, max_retries=0)
    with pytest.raises(ProviderError, match="no response is queued"):
        client.complete(MESSAGES, TOOLS)


def test_fake_server_embeddings_are_deterministic(server: FakeOpenAIServer) -> None:
    import openai

    sdk = openai.OpenAI(base_url=server.base_url, api_key="x", max_retries=0)
    result = sdk.embeddings.create(model="fake-embed", input=["tea", "coffee"])
    assert [item.embedding for item in result.data] == [
        pytest.approx(fake_embedding("tea")),
        pytest.approx(fake_embedding("coffee")),
    ]
    assert server.embedding_requests[0]["input"] == ["tea", "coffee"]


def test_provider_error_survives_pickling() -> None:
    error = ProviderError("slow", kind="timeout", status_code=None, attempts=3)
    copy = pickle.loads(pickle.dumps(error))
    assert (copy.kind, copy.retryable, copy.attempts, str(copy)) == ("timeout", True, 3, "slow")
    assert not ProviderError("no", kind="auth").retryable
    overflow = ProviderError("long", kind="context_exceeded", context_window=4096)
    assert pickle.loads(pickle.dumps(overflow)).context_window == 4096


@pytest.mark.parametrize(("content_type", "body", "said", "hinted"), [
    ("text/event-stream", b'data: {"choices": [{"delta": {"content": "hi"}}]}\n\n',
     "answered with an event stream", "stream: false"),
    ("text/plain; charset=utf-8", b"OK", "answered with text/plain; charset=utf-8 ('OK')",
     "check the URL, not the model"),
])
def test_an_event_stream_or_plain_text_answer_is_named_not_blamed_on_the_model(
    server: FakeOpenAIServer, sleeps: list[float], content_type: str, body: bytes,
    said: str, hinted: str,
) -> None:
    server.enqueue(FakeResponse(body=body, headers={"Content-Type": content_type}))
    with pytest.raises(ProviderError) as info:
        make_client(server, sleeps).complete(MESSAGES, TOOLS)
    error = info.value
    assert error.kind == "bad_response" and not error.retryable and sleeps == []
    assert said in str(error) and "Expecting value" not in str(error)
    assert error.hint is not None and hinted in error.hint
    assert "tool calling" not in error.hint


@pytest.mark.parametrize(("arguments", "message"), [
    ({"model": None}, "model must be the model's name as text, got NoneType"),
    ({"base_url": 8080}, "base_url must be a URL as text"),
    ({"max_retries": "3"}, "max_retries must be a whole number, got str '3'"),
    ({"context_window": "8k"}, "context_window must be a whole number of tokens"),
    ({"context_window": 8192.0}, "context_window must be a whole number of tokens"),
    ({"max_tokens": "100"}, "max_tokens must be a whole number of tokens"),
    ({"timeout": "30"}, "timeout must be a number of seconds"),
    ({"encoding": 5}, "encoding must be an encoding's name as text"),
    ({"text_tool_calls": None}, "text_tool_calls must be 'auto' or 'off'"),
])
def test_an_argument_of_the_wrong_type_is_named(arguments: dict[str, object],
                                                message: str) -> None:
    given = {"model": "m", "base_url": "http://127.0.0.1:9/v1", **arguments}
    with pytest.raises(LLMConfigError, match=message):
        OpenAIClient(**given)  # type: ignore[arg-type]


def test_a_key_of_the_wrong_type_is_not_echoed() -> None:
    with pytest.raises(LLMConfigError, match="api_key must be text, or None") as raised:
        OpenAIClient("m", base_url="http://127.0.0.1:9/v1", api_key=b"sk-secret-123")  # type: ignore[arg-type]
    assert "secret" not in str(raised.value)
