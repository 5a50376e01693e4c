"""The LLM client layer: the OpenAI-compatible client over a real loopback server,
its configuration, and the scripted test double."""

from __future__ import annotations

import importlib
import json
import pickle
import socket
from typing import Any

import pytest
from fake_openai import FakeOpenAIServer, FakeResponse, fake_embedding

from tiermem.agent.config import (
    OPENAI_API_BASE_URL,
    PLACEHOLDER_API_KEY,
    LLMConfig,
    default_context_window,
    normalize_base_url,
    resolve_llm_config,
)
from tiermem.agent.errors import (
    LLMConfigError,
    ProviderError,
    ScriptExhaustedError,
    ScriptUnusedError,
)
from tiermem.agent.llm import Completion, LLMClient, ToolCall, Usage
from tiermem.agent.openai_client import OpenAIClient
from tiermem.agent.scripted import ScriptedModel, call, calls, raw_call, reply

MESSAGES: list[dict[str, Any]] = [
    {"role": "system", "content": "You are a memory agent."},
    {"role": "user", "content": "I like green tea."},
]
TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "core_memory_append",
            "description": "Add a fact to core memory.",
            "parameters": {
                "type": "object",
                "properties": {"text": {"type": "string"}},
                "required": ["text"],
            },
        },
    }
]


@pytest.fixture
def sleeps() -> list[float]:
    return []


def make_client(server: FakeOpenAIServer, sleeps: list[float], **kwargs: Any) -> OpenAIClient:
    kwargs.setdefault("max_retries", 3)
    return OpenAIClient("fake-model", base_url=server.base_url, sleep=sleeps.append, **kwargs)


def closed_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


# --- responses ------------------------------------------------------------------------


def test_plain_reply(server: FakeOpenAIServer, sleeps: list[float]) -> None:
    server.enqueue_reply("Noted: you like green tea.")
    completion = make_client(server, sleeps).complete(MESSAGES, TOOLS)
    assert completion.content == "Noted: you like green tea."
    assert completion.tool_calls == []
    assert completion.finish_reason == "stop"
    assert completion.model == "fake-model"


def test_single_tool_call(server: FakeOpenAIServer, sleeps: list[float]) -> None:
    [call_id] = server.enqueue_tool_calls([("core_memory_append", '{"text": "likes green tea"}')])
    completion = make_client(server, sleeps).complete(MESSAGES, TOOLS)
    assert completion.content is None
    assert completion.finish_reason == "tool_calls"
    assert completion.tool_calls == [
        ToolCall(id=call_id, name="core_memory_append", arguments='{"text": "likes green tea"}')
    ]


def test_parallel_tool_calls_keep_their_order(
    server: FakeOpenAIServer, sleeps: list[float]
) -> None:
    server.enqueue_tool_calls(
        [
            ("core_memory_append", '{"text": "a"}'),
            ("archival_memory_search", '{"query": "tea"}'),
            ("conversation_search", '{"query": "tea"}'),
        ],
        content="Let me check.",
    )
    completion = make_client(server, sleeps).complete(MESSAGES, TOOLS)
    assert completion.content == "Let me check."
    assert [c.name for c in completion.tool_calls] == [
        "core_memory_append",
        "archival_memory_search",
        "conversation_search",
    ]
    assert len({c.id for c in completion.tool_calls}) == 3


def test_malformed_arguments_come_through_raw(
    server: FakeOpenAIServer, sleeps: list[float]
) -> None:
    server.enqueue_tool_calls([("core_memory_append", '{"text": "unterminated')])
    completion = make_client(server, sleeps).complete(MESSAGES, TOOLS)
    assert completion.tool_calls[0].arguments == '{"text": "unterminated'


def test_unknown_tool_names_come_through(server: FakeOpenAIServer, sleeps: list[float]) -> None:
    server.enqueue_tool_calls([("launch_rockets", "{}")])
    completion = make_client(server, sleeps).complete(MESSAGES, TOOLS)
    assert completion.tool_calls[0].name == "launch_rockets"


def test_usage_is_recorded_per_call_and_in_total(
    server: FakeOpenAIServer, sleeps: list[float]
) -> None:
    server.enqueue_reply("one", usage=(11, 7))
    server.enqueue_reply("two", usage=(5, 1))
    client = make_client(server, sleeps)
    first = client.complete(MESSAGES, TOOLS)
    client.complete(MESSAGES, TOOLS)
    assert first.usage == Usage(prompt_tokens=11, completion_tokens=7, total_tokens=18)
    assert client.total_usage == Usage(prompt_tokens=16, completion_tokens=8, total_tokens=24)


def test_request_carries_our_messages_tools_and_key(server: FakeOpenAIServer) -> None:
    server.enqueue_reply("ok")
    client = OpenAIClient("fake-model", base_url=server.base_url, api_key="sk-local-test")
    client.complete(MESSAGES, TOOLS)
    [request] = server.requests
    assert request["model"] == "fake-model"
    assert request["messages"] == MESSAGES
    assert request["tools"] == TOOLS
    assert server.request_headers[0]["authorization"] == "Bearer sk-local-test"


def test_no_tools_key_when_there_are_no_tools(
    server: FakeOpenAIServer, sleeps: list[float]
) -> None:
    server.enqueue_reply("ok")
    make_client(server, sleeps).complete(MESSAGES, [])
    assert "tools" not in server.requests[0]


def test_huge_tool_argument_round_trips(server: FakeOpenAIServer, sleeps: list[float]) -> None:
    arguments = json.dumps({"text": "x" * 1_000_000})
    server.enqueue_tool_calls([("core_memory_append", arguments)])
    server.enqueue_reply("stored")
    client = make_client(server, sleeps)

    completion = client.complete(MESSAGES, TOOLS)
    assert completion.tool_calls[0].arguments == arguments

    tool_call = completion.tool_calls[0]
    follow_up = [
        *MESSAGES,
        completion.as_message(),
        {"role": "tool", "tool_call_id": tool_call.id, "content": "ok"},
    ]
    assert client.complete(follow_up, TOOLS).content == "stored"
    sent = server.requests[1]["messages"][2]["tool_calls"][0]["function"]["arguments"]
    assert sent == arguments


def test_base_url_without_v1_reaches_the_api(server: FakeOpenAIServer, sleeps: list[float]) -> None:
    server.enqueue_reply("ok")
    client = OpenAIClient(
        "fake-model", base_url=f"http://127.0.0.1:{server.port}", sleep=sleeps.append
    )
    assert client.base_url == server.base_url
    assert client.complete(MESSAGES, TOOLS).content == "ok"


def test_name_and_context_window(server: FakeOpenAIServer) -> None:
    client = OpenAIClient("gpt-4o-mini", base_url=server.base_url)
    assert client.name == f"openai:gpt-4o-mini @ {server.base_url}"
    assert client.context_window == 128_000
    assert (
        OpenAIClient("gpt-4o-mini", base_url=server.base_url, context_window=4096).context_window
        == 4096
    )
    assert isinstance(client, LLMClient)


# --- retries and failures -------------------------------------------------------------


def test_429_then_success_honours_retry_after(
    server: FakeOpenAIServer, sleeps: list[float]
) -> None:
    server.enqueue_error(429, headers={"Retry-After": "2"})
    server.enqueue_reply("ok")
    client = make_client(server, sleeps)
    assert client.complete(MESSAGES, TOOLS).content == "ok"
    assert sleeps == [2.0]
    assert client.last_attempts == 2
    assert len(server.requests) == 2


def test_retry_after_is_capped(server: FakeOpenAIServer, sleeps: list[float]) -> None:
    server.enqueue_error(429, headers={"Retry-After": "3600"})
    server.enqueue_error(503, headers={"retry-after-ms": "1500"})
    server.enqueue_reply("ok")
    make_client(server, sleeps, max_retry_after=30.0).complete(MESSAGES, TOOLS)
    assert sleeps == [30.0, 1.5]


def test_rate_limit_that_persists_gives_up(server: FakeOpenAIServer, sleeps: list[float]) -> None:
    for _ in range(3):
        server.enqueue_error(429, {"error": {"message": "Rate limit reached for requests"}})
    with pytest.raises(ProviderError) as info:
        make_client(server, sleeps, max_retries=2).complete(MESSAGES, TOOLS)
    assert info.value.kind == "rate_limit"
    assert info.value.retryable
    assert "Rate limit reached" in str(info.value)


def test_server_errors_retry_with_backoff_then_give_up(
    server: FakeOpenAIServer, sleeps: list[float]
) -> None:
    for _ in range(4):
        server.enqueue_error(500, {"error": {"message": "model crashed"}})
    with pytest.raises(ProviderError) as info:
        make_client(server, sleeps, max_retries=3).complete(MESSAGES, TOOLS)
    error = info.value
    assert error.kind == "server"
    assert error.status_code == 500
    assert error.attempts == 4
    assert error.retryable
    assert "model crashed" in str(error)
    assert len(server.requests) == 4
    # Exponential from 0.5 s, each scaled by a jitter factor in [0.5, 1).
    assert len(sleeps) == 3
    for delay, full in zip(sleeps, [0.5, 1.0, 2.0], strict=True):
        assert full / 2 <= delay < full


def test_backoff_is_capped(server: FakeOpenAIServer, sleeps: list[float]) -> None:
    # An empty queue answers 500, so every attempt fails.
    with pytest.raises(ProviderError):
        make_client(server, sleeps, max_retries=7).complete(MESSAGES, TOOLS)
    assert len(sleeps) == 7
    assert all(delay < 8.0 for delay in sleeps)
    assert sleeps[-1] >= 4.0


def test_a_local_server_s_timeout_is_reported_without_sending_the_request_again(
        server: FakeOpenAIServer, sleeps: list[float]) -> None:
    # The server is working on the request (it holds it): a second one would queue behind.
    server.enqueue_hold()
    server.enqueue_hold()
    client = make_client(server, sleeps, timeout=0.2, max_retries=3)
    assert not client.retry_timeouts  # a loopback server is not OpenAI's API
    with pytest.raises(ProviderError) as info:
        client.complete(MESSAGES, TOOLS)
    assert len(server.requests) == 1
    assert (info.value.kind, info.value.attempts, sleeps) == ("timeout", 1, [])
    assert "did not answer within 0.2 s (1 attempt)" in str(info.value)
    assert "raise the request timeout (--timeout SECONDS" in str(info.value)


def test_openai_s_api_retries_a_timeout() -> None:
    assert OpenAIClient("gpt-4o-mini", api_key="sk-test").retry_timeouts
    assert not OpenAIClient("qwen", base_url="http://10.0.0.5:8000/v1").retry_timeouts


def _through(client: OpenAIClient, answers: list[str],
             timeouts: list[dict[str, float]] | None = None) -> list[str]:
    """Send ``client``'s requests to ``answers`` in turn (the name of a timeout the SDK's
    HTTP library raises, or a reply's text); the URLs they went to. Each request's
    timeouts, as its transport receives them, go to ``timeouts``."""
    sdk = client._client
    # The SDK's own HTTP library (httpx, or the fork this SDK version uses).
    library = next(c for c in type(sdk._client).__mro__ if c.__name__ == "Client")
    http = importlib.import_module(library.__module__.split(".")[0])
    sent: list[str] = []

    def answer(request: Any) -> Any:
        sent.append(str(request.url))
        if timeouts is not None:
            timeouts.append(request.extensions["timeout"])
        step = answers[len(sent) - 1]
        if not step.endswith("Timeout"):
            return http.Response(200, json={
                "id": "c", "object": "chat.completion", "created": 0, "model": "m",
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": step}}]})
        raise getattr(http, step)("timed out", request=request)

    client._client = sdk.with_options(http_client=http.Client(
        transport=http.MockTransport(answer)))
    return sent


def test_a_connect_timeout_is_sent_again_to_any_server(sleeps: list[float]) -> None:
    # The request never reached the server, so no work of its is repeated.
    client = OpenAIClient("fake-model", base_url="http://127.0.0.1:8080/v1", max_retries=3,
                          sleep=sleeps.append)
    assert not client.retry_timeouts
    sent = _through(client, ["ConnectTimeout", "PoolTimeout", "back"])
    assert client.complete(MESSAGES, TOOLS).content == "back"
    assert len(sent) == 3 and len(sleeps) == 2
    sent = _through(client, ["ConnectTimeout"] * 4)
    with pytest.raises(ProviderError) as info:
        client.complete(MESSAGES, TOOLS)
    assert len(sent) == 4 and (info.value.kind, info.value.attempts) == ("connection", 4)
    assert str(info.value).startswith("could not connect to http://127.0.0.1:8080/v1 within")
    # A timeout waiting for the answer is still final against such a server.
    sent = _through(client, ["ReadTimeout", "back"])
    with pytest.raises(ProviderError, match="did not answer within"):
        client.complete(MESSAGES, TOOLS)
    assert len(sent) == 1


def test_a_connect_timeout_is_short_whatever_the_request_timeout(sleeps: list[float]) -> None:
    # An address nothing answers (a LAN host that is off) must not hold each attempt for
    # the whole 300 s a local model may take to answer.
    client = OpenAIClient("fake-model", base_url="http://192.168.1.50:8080/v1", max_retries=3,
                          sleep=sleeps.append)
    timeouts: list[dict[str, float]] = []
    _through(client, ["ConnectTimeout"] * 4, timeouts)
    with pytest.raises(ProviderError) as info:
        client.complete(MESSAGES, TOOLS)
    assert len(timeouts) == 4 and info.value.attempts == 4
    assert timeouts[0] == {"connect": 10.0, "read": 300.0, "write": 300.0, "pool": 10.0}
    assert str(info.value).startswith(
        "could not connect to http://192.168.1.50:8080/v1 within the 10 s connect timeout "
        "(4 attempts)")
    # A request timeout shorter than that is the connect timeout too.
    short = OpenAIClient("fake-model", base_url="http://192.168.1.50:8080/v1", timeout=3,
                         max_retries=0)
    timeouts.clear()
    _through(short, ["ConnectTimeout"], timeouts)
    with pytest.raises(ProviderError, match=r"within the 3 s connect timeout \(1 attempt\)"):
        short.complete(MESSAGES, TOOLS)
    assert timeouts == [{"connect": 3.0, "read": 3.0, "write": 3.0, "pool": 3.0}]


def test_azure_openai_retries_a_timeout_as_openai_does(sleeps: list[float]) -> None:
    client = OpenAIClient("gpt-4o", base_url="https://tiermem.openai.azure.com/openai/v1",
                          api_key="test-key", max_retries=2, sleep=sleeps.append)
    assert client.retry_timeouts
    sent = _through(client, ["ReadTimeout", "back"])
    assert client.complete(MESSAGES, TOOLS).content == "back"
    assert sent == ["https://tiermem.openai.azure.com/openai/v1/chat/completions"] * 2
    assert not OpenAIClient("qwen", base_url="https://openai.azure.com.example/v1").retry_timeouts
    for host in ("tiermem.cognitiveservices.azure.com", "tiermem.services.ai.azure.com"):
        assert OpenAIClient("gpt-4o", base_url=f"https://{host}/openai/v1",
                            api_key="test-key").retry_timeouts
    assert not OpenAIClient("gpt-4o", base_url="https://cognitiveservices.azure.com.evil/v1",
                            api_key="test-key").retry_timeouts


def test_timeout_is_retried_then_reported(server: FakeOpenAIServer, sleeps: list[float]) -> None:
    # Neither request is ever answered: only the client's own timeout ends each attempt.
    server.enqueue_hold()
    server.enqueue_hold()
    client = make_client(server, sleeps, timeout=0.2, max_retries=1, retry_timeouts=True)
    with pytest.raises(ProviderError) as info:
        client.complete(MESSAGES, TOOLS)
    assert len(server.requests) == 2
    assert info.value.kind == "timeout"
    assert info.value.attempts == 2
    assert "0.2 s" in str(info.value)
    assert len(sleeps) == 1


def test_connection_refused_names_the_url(sleeps: list[float]) -> None:
    url = f"http://127.0.0.1:{closed_port()}/v1"
    client = OpenAIClient("fake-model", base_url=url, max_retries=2, sleep=sleeps.append)
    with pytest.raises(ProviderError) as info:
        client.complete(MESSAGES, TOOLS)
    error = info.value
    assert error.kind == "connection"
    assert error.retryable
    assert error.attempts == 3
    assert len(sleeps) == 2
    assert url in str(error)
    assert "is the server running?" in str(error)
    assert "OPENAI_BASE_URL" in str(error)


def test_an_answer_cut_off_says_the_server_dropped_it(
    server: FakeOpenAIServer, sleeps: list[float]
) -> None:
    for _ in range(2):
        server.enqueue_truncated(b'{"id": "chatcmpl-1", "choi', declared_length=400)
    with pytest.raises(ProviderError) as info:
        make_client(server, sleeps, max_retries=1).complete(MESSAGES, TOOLS)
    error = info.value
    assert error.kind == "connection" and error.retryable
    assert len(server.requests) == 2
    assert "closed the connection before its answer was complete" in str(error)
    assert "check its log" in str(error)
    assert "is the server running?" not in str(error)


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
    with pytest.raises(ProviderError, match=r"TIERMEM_CONTEXT_WINDOW to the window it runs with "
                                            r"\(4096\)"):
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


# --- configuration --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("model", "window"),
    [
        ("gpt-4o-mini", 128_000),
        ("openai/gpt-4o", 128_000),
        ("gpt-4.1-nano", 1_047_576),
        ("gpt-5-mini", 400_000),
        ("o3-mini", 200_000),
        ("o4-mini", 200_000),
        ("o1", 200_000),
        # An open model's window is the server's setting: never guessed from its name.
        ("llama3.1:8b", 8_192),
        ("Qwen2.5-7B-Instruct", 8_192),
        ("qwen2.5:0.5b-instruct", 8_192),
        ("mistral-7b", 8_192),
    ],
)
def test_default_context_window(model: str, window: int) -> None:
    assert default_context_window(model) == window


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("http://127.0.0.1:11434", "http://127.0.0.1:11434/v1"),
        ("http://127.0.0.1:11434/", "http://127.0.0.1:11434/v1"),
        ("http://127.0.0.1:11434/v1", "http://127.0.0.1:11434/v1"),
        ("http://127.0.0.1:11434/v1/", "http://127.0.0.1:11434/v1"),
        ("localhost:8080", "http://localhost:8080/v1"),
        ("https://gateway.example/api/v1", "https://gateway.example/api/v1"),
        ("http://h:1/v1/chat/completions", "http://h:1/v1"),
    ],
)
def test_normalize_base_url(given: str, expected: str) -> None:
    assert normalize_base_url(given) == expected


def test_normalize_base_url_rejects_other_schemes() -> None:
    with pytest.raises(LLMConfigError, match="http"):
        normalize_base_url("ftp://host/v1")


def test_nothing_configured_means_offline() -> None:
    assert resolve_llm_config(env={}) is None
    assert resolve_llm_config(env={"OPENAI_API_KEY": "sk-x"}) is None
    assert resolve_llm_config(env={"TIERMEM_MODEL": " ", "OPENAI_BASE_URL": ""}) is None


def test_local_server_from_environment_needs_no_key() -> None:
    config = resolve_llm_config(
        env={"TIERMEM_MODEL": "llama3.1", "OPENAI_BASE_URL": "http://127.0.0.1:11434"}
    )
    assert config == LLMConfig(
        model="llama3.1", base_url="http://127.0.0.1:11434/v1", api_key=PLACEHOLDER_API_KEY
    )
    assert config.effective_context_window == 8_192


def test_flags_beat_environment() -> None:
    env = {
        "TIERMEM_MODEL": "env-model",
        "OPENAI_BASE_URL": "http://127.0.0.1:1/v1",
        "OPENAI_API_KEY": "env-key",
    }
    config = resolve_llm_config(
        model="flag-model", base_url="http://127.0.0.1:2", api_key="flag-key", env=env
    )
    assert config is not None
    assert (config.model, config.base_url, config.api_key) == (
        "flag-model",
        "http://127.0.0.1:2/v1",
        "flag-key",
    )


def test_environment_is_read_when_env_is_not_given(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TIERMEM_MODEL", "qwen2.5:7b")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:8000/v1")
    config = resolve_llm_config()
    assert config is not None and config.model == "qwen2.5:7b"


def test_base_url_without_model_asks_for_one() -> None:
    with pytest.raises(LLMConfigError) as info:
        resolve_llm_config(base_url="http://127.0.0.1:11434", env={})
    assert "--model" in str(info.value)
    assert "TIERMEM_MODEL" in str(info.value)


def test_openai_without_key_asks_for_one() -> None:
    with pytest.raises(LLMConfigError, match="OPENAI_API_KEY"):
        resolve_llm_config(model="gpt-4o-mini", env={})
    with pytest.raises(LLMConfigError, match="OPENAI_API_KEY"):
        resolve_llm_config(model="gpt-4o-mini", base_url="https://api.openai.com/v1", env={})


def test_openai_with_key() -> None:
    config = resolve_llm_config(env={"TIERMEM_MODEL": "gpt-4o-mini", "OPENAI_API_KEY": "sk-x"})
    assert config is not None
    assert config.base_url == OPENAI_API_BASE_URL
    assert config.api_key == "sk-x"
    assert "sk-x" not in repr(config)


def test_context_window_override() -> None:
    env = {
        "TIERMEM_MODEL": "llama3",
        "OPENAI_BASE_URL": "http://h:1",
        "TIERMEM_CONTEXT_WINDOW": "4096",
    }
    config = resolve_llm_config(env=env)
    assert config is not None and config.effective_context_window == 4096
    config = resolve_llm_config(env=env, context_window=2048)
    assert config is not None and config.effective_context_window == 2048
    with pytest.raises(LLMConfigError, match="TIERMEM_CONTEXT_WINDOW"):
        resolve_llm_config(env={**env, "TIERMEM_CONTEXT_WINDOW": "lots"})


def test_client_from_config(server: FakeOpenAIServer, sleeps: list[float]) -> None:
    config = resolve_llm_config(
        model="fake-model", base_url=server.base_url, env={}, max_retries=0, context_window=1000
    )
    assert config is not None
    server.enqueue_error(500)
    with OpenAIClient.from_config(config, sleep=sleeps.append) as client:
        assert client.context_window == 1000
        with pytest.raises(ProviderError):
            client.complete(MESSAGES, TOOLS)
    assert len(server.requests) == 1


# --- scripted model -------------------------------------------------------------------


def test_scripted_plays_steps_in_order_and_records_copies() -> None:
    model = ScriptedModel([call("core_memory_append", text="likes tea"), reply("noted")])
    messages = [dict(m) for m in MESSAGES]
    first = model.complete(messages, TOOLS)
    messages.append({"role": "user", "content": "changed after the call"})
    second = model.complete(messages, TOOLS)

    assert json.loads(first.tool_calls[0].arguments) == {"text": "likes tea"}
    assert second.content == "noted"
    assert model.calls[0].messages == MESSAGES
    assert len(model.calls[1].messages) == 3
    assert model.calls[0].tool_names == ["core_memory_append"]
    model.assert_finished()
    assert isinstance(model, LLMClient)
    assert (model.name, model.context_window) == ("scripted", 8192)


def test_scripted_exhaustion_says_how_many_steps() -> None:
    model = ScriptedModel([reply("a"), reply("b")])
    model.complete(MESSAGES, TOOLS)
    model.complete(MESSAGES, TOOLS)
    with pytest.raises(ScriptExhaustedError, match="only 2 steps"):
        model.complete(MESSAGES, TOOLS)
    assert len(model.calls) == 3


def test_scripted_unused_steps_are_listed() -> None:
    model = ScriptedModel([reply("used"), call("archival_memory_search", query="tea")])
    model.complete(MESSAGES, TOOLS)
    with pytest.raises(ScriptUnusedError) as info:
        model.assert_finished()
    assert "archival_memory_search" in str(info.value)
    assert "1 of 2" in str(info.value)


def test_scripted_context_manager_checks_on_clean_exit_only() -> None:
    with pytest.raises(ScriptUnusedError), ScriptedModel([reply("never")]):
        pass
    with pytest.raises(KeyError), ScriptedModel([reply("never")]):
        raise KeyError("the real failure")


def test_scripted_exception_step_is_raised() -> None:
    failure = ProviderError("down", kind="server")
    model = ScriptedModel([failure, reply("recovered")])
    with pytest.raises(ProviderError) as info:
        model.complete(MESSAGES, TOOLS)
    assert info.value is failure
    assert model.complete(MESSAGES, TOOLS).content == "recovered"


def test_scripted_callable_step_sees_the_prompt() -> None:
    def echo(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Completion:
        return reply(f"{messages[-1]['content']} / {len(tools)} tools")

    model = ScriptedModel([echo])
    assert model.complete(MESSAGES, TOOLS).content == "I like green tea. / 1 tools"


def test_scripted_helpers() -> None:
    parallel = calls(("a", {"x": 1}), ("b", {}))
    assert [(c.name, json.loads(c.arguments)) for c in parallel.tool_calls] == [
        ("a", {"x": 1}),
        ("b", {}),
    ]
    broken = raw_call("a", '{"x": ')
    assert broken.tool_calls[0].arguments == '{"x": '
    named = call("a", name="argument called name")
    assert json.loads(named.tool_calls[0].arguments) == {"name": "argument called name"}
    ids = [c.id for step in (parallel, broken, named) for c in step.tool_calls]
    assert len(set(ids)) == len(ids)
    assert parallel.as_message()["tool_calls"][1]["function"] == {"name": "b", "arguments": "{}"}
    assert "tool_calls" not in reply("hi").as_message()


def test_provider_error_survives_pickling() -> None:
    error = ProviderError("slow", kind="timeout", status_code=None, attempts=3)
    copy = pickle.loads(pickle.dumps(error))
    assert (copy.kind, copy.retryable, copy.attempts, str(copy)) == ("timeout", True, 3, "slow")
    assert not ProviderError("no", kind="auth").retryable
    overflow = ProviderError("long", kind="context_exceeded", context_window=4096)
    assert pickle.loads(pickle.dumps(overflow)).context_window == 4096


def test_usage_adds() -> None:
    assert Usage(1, 2, 3) + Usage(10, 20, 30) == Usage(11, 22, 33)
