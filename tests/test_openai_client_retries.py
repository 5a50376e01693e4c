"""The OpenAI-compatible client's retries: rate limits, server errors, timeouts and
connections that fail, with the backoff between attempts."""

from __future__ import annotations

import importlib
from typing import Any

import pytest
from fake_openai import FakeOpenAIServer
from openai_helpers import MESSAGES, TOOLS, closed_port, make_client

from tiermem.agent.errors import ProviderError
from tiermem.agent.openai_client import OpenAIClient


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
    server.enqueue_error(429, headers={"Retry-After": "45"})
    server.enqueue_error(503, headers={"retry-after-ms": "1500"})
    server.enqueue_reply("ok")
    make_client(server, sleeps, max_retry_after=30.0).complete(MESSAGES, TOOLS)
    assert sleeps == [30.0, 1.5]


@pytest.mark.parametrize(("headers", "wait"), [
    # A proxy's default of nothing beside the server's wish: the wish is kept.
    ({"retry-after-ms": "0", "Retry-After": "20"}, 20.0),
    ({"Retry-After": "0", "retry-after-ms": "2500"}, 2.5),
    # Both asking a wait: the longer, so neither is sent sooner than it asks.
    ({"retry-after-ms": "1500", "Retry-After": "2"}, 2.0),
    ({"retry-after-ms": "0", "Retry-After": "0"}, None),
])
def test_both_retry_after_headers_ask_the_longer_wait(
    server: FakeOpenAIServer, sleeps: list[float], headers: dict[str, str],
    wait: float | None,
) -> None:
    server.enqueue_error(429, headers=headers)
    server.enqueue_reply("ok")
    make_client(server, sleeps).complete(MESSAGES, TOOLS)
    assert sleeps == [wait] if wait is not None else len(sleeps) == 1 and sleeps[0] <= 2.0


def test_rate_limit_that_persists_gives_up(server: FakeOpenAIServer, sleeps: list[float]) -> None:
    for _ in range(3):
        server.enqueue_error(429, {"error": {"message": "Rate limit reached for requests"}})
    with pytest.raises(ProviderError) as info:
        make_client(server, sleeps, max_retries=2).complete(MESSAGES, TOOLS)
    assert info.value.kind == "rate_limit"
    assert info.value.retryable
    assert "Rate limit reached" in str(info.value)


@pytest.mark.parametrize("field", ["code", "type"])
def test_a_quota_used_up_is_not_sent_again_nor_told_to_wait(
        server: FakeOpenAIServer, sleeps: list[float], field: str) -> None:
    # OpenAI's 429 for an account out of credit: no wait lifts it, so none is spent on it.
    hint = refused_at_once(server, sleeps, {"error": {
        "message": "You exceeded your current quota, please check your plan and billing "
                   "details.", field: "insufficient_quota"}}, "the account's quota is used up")
    assert "add credit" in hint


def refused_at_once(server: FakeOpenAIServer, sleeps: list[float], body: dict[str, Any],
                    said: str) -> str:
    """The hint of the error a request ends with when ``server`` refuses it with a 429 of
    ``body`` asking a wait: ``said``, with no attempt more and no advice to wait."""
    server.enqueue_error(429, body, headers={"Retry-After": "20"})
    server.enqueue_reply("ok")
    with pytest.raises(ProviderError) as info:
        make_client(server, sleeps).complete(MESSAGES, TOOLS)
    assert sleeps == [] and len(server.requests) == 1 and not info.value.retryable
    assert f"{said} (HTTP 429)" in str(info.value) and "wait a minute" not in str(info.value)
    assert info.value.hint is not None
    return info.value.hint


#: OpenAI's refusal for an account out of credit, as a LiteLLM proxy hands it on: in its text.
_PROXIED_QUOTA = ("litellm.RateLimitError: RateLimitError: OpenAIException - Error code: 429 - "
                  "{'error': {'message': 'You exceeded your current quota, please check your "
                  "plan and billing details.', 'type': 'insufficient_quota', 'param': None, "
                  "'code': 'insufficient_quota'}}")


def test_a_quota_used_up_behind_a_proxy_is_not_sent_again(
        server: FakeOpenAIServer, sleeps: list[float]) -> None:
    server.enqueue_error(429, {"error": {"message": _PROXIED_QUOTA, "type": None,
                                         "param": None, "code": "429"}})
    server.enqueue_reply("ok")
    with pytest.raises(ProviderError) as info:
        make_client(server, sleeps).complete(MESSAGES, TOOLS)
    assert sleeps == [] and len(server.requests) == 1 and not info.value.retryable
    assert "the account's quota is used up (HTTP 429)" in str(info.value)


#: A LiteLLM proxy's refusals once a budget it keeps (a key's, a user's, a deployment's) is
#: spent, as its versions word them.
_BUDGETS_SPENT = [
    {"message": "Budget has been exceeded! Key=team-key Current cost: 12.5, Max budget: 10.0",
     "type": "budget_exceeded", "param": None, "code": "429"},
    {"message": "ExceededBudget: End User=ann over budget. Spend=0.0009, Budget=0.0001",
     "type": "auth_error", "param": "None", "code": "429"},
    {"message": "No deployments available for selected model - crossed budget: Exceeded "
                "budget for deployment model_name: gpt-4o: 1.2 >= 1.0",
     "type": None, "param": None, "code": "429"},
]


@pytest.mark.parametrize("error", _BUDGETS_SPENT)
def test_a_proxy_s_budget_spent_is_not_sent_again_nor_told_to_wait(
        server: FakeOpenAIServer, sleeps: list[float], error: dict[str, Any]) -> None:
    hint = refused_at_once(server, sleeps, {"error": error},
                           "the proxy's spending budget is used up")
    assert "waiting a minute does not lift it" in hint


def test_a_limit_per_minute_worded_as_a_quota_exceeded_is_waited_out(
        server: FakeOpenAIServer, sleeps: list[float]) -> None:
    # Gemini's limit per minute says "exceeded your current quota" too, but lifts in seconds.
    server.enqueue_error(429, {"error": {
        "code": 429, "status": "RESOURCE_EXHAUSTED",
        "message": "You exceeded your current quota, please check your plan and billing "
                   "details. * Quota exceeded for metric: generativelanguage.googleapis.com/"
                   "generate_content_free_tier_requests, limit: 15"}},
        headers={"Retry-After": "12"})
    server.enqueue_reply("ok")
    assert make_client(server, sleeps).complete(MESSAGES, TOOLS).content == "ok"
    assert sleeps == [12.0]


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
