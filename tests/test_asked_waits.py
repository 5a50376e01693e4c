"""Waits a server asks for with Retry-After after a failure other than a loading model's (a
429 rate limit, a busy 503): honoured up to a minute in all for a request, each long one told
as it starts; and a Retry-After of nothing leaves the client's own waits, never told."""

from __future__ import annotations

import json

import pytest
from fake_openai import FakeOpenAIServer

from tiermem.agent.errors import ProviderError
from tiermem.agent.loading_wait import retry_text, waiting_text
from tiermem.agent.openai_client import OpenAIClient

BUSY = {"error": {"message": "server busy, please try again.  maximum pending requests "
                             "exceeded"}}
LOADING = {"error": {"message": "Loading model", "code": 503, "type": "unavailable_error"}}


def refused(server: FakeOpenAIServer, requests: int = 1) -> tuple[list[float], list[str]]:
    """The waits a client sleeps, and those it tells, over ``requests`` requests refused."""
    sleeps, told, _ = refusals(server, requests)
    return sleeps, told


def refusals(server: FakeOpenAIServer, requests: int,
             **options: float) -> tuple[list[float], list[str], list[str]]:
    """The waits a client built with ``options`` sleeps and tells over ``requests`` requests
    refused, and the errors they end with."""
    told: list[str] = []
    sleeps: list[float] = []
    errors: list[str] = []
    llm = OpenAIClient("qwen3:4b", base_url=server.base_url, max_retries=3,
                       sleep=sleeps.append, wait_notice=told.append, **options)
    for _ in range(requests):
        with pytest.raises(ProviderError) as info:
            llm.complete([{"role": "user", "content": "hi"}], [])
        errors.append(str(info.value))
    return sleeps, told, errors


def test_a_busy_server_s_long_retry_after_is_told_and_capped_at_a_minute_in_all(
        server: FakeOpenAIServer) -> None:
    for _ in range(4):
        server.enqueue_error(503, BUSY, headers={"Retry-After": "45"})
    sleeps, told, errors = refusals(server, 1)
    # 30 s a wait, then the minute a busy server is given, as a rate limit, is spent.
    assert sleeps == [30.0, 30.0] and "a busy server are spent" in errors[0]
    assert "proxy" not in errors[0]
    asked = "the model server answered HTTP 503 and asked to wait 45 s"
    assert told == [retry_text(30.0, asked)] * 2
    assert "waiting 30 s before sending the request again" in told[0]


def test_a_rate_limit_s_retry_after_is_honoured_and_told(server: FakeOpenAIServer) -> None:
    for _ in range(4):
        server.enqueue_error(429, headers={"Retry-After": "20"})
    sleeps, told = refused(server)
    assert sleeps == [20.0, 20.0, 20.0]
    assert told == [retry_text(20.0, "the model server answered HTTP 429 and asked to wait "
                                     "20 s")] * 3


def test_a_short_retry_after_is_kept_and_not_told(server: FakeOpenAIServer) -> None:
    for _ in range(4):
        server.enqueue_error(503, BUSY, headers={"Retry-After": "2"})
    sleeps, told = refused(server)
    assert sleeps == [2.0, 2.0, 2.0] and told == []


@pytest.mark.parametrize("body", [LOADING, BUSY])
def test_a_retry_after_of_nothing_leaves_the_client_s_waits_and_tells_no_zero_wait(
        server: FakeOpenAIServer, body: dict[str, object]) -> None:
    for _ in range(8):
        server.enqueue_error(503, body, headers={"Retry-After": "0"})
    sleeps, told = refused(server, requests=2)
    assert not any("waiting 0 s" in said for said in told)
    if body is LOADING:
        # The loading waits, then, the minute spent, the next request refused at once.
        assert sleeps == [10.0, 20.0, 30.0] and len(server.requests) == 5
        assert told == [waiting_text(10.0), waiting_text(20.0), waiting_text(30.0)]
    else:
        assert min(sleeps) > 0 and max(sleeps) <= 2.0 and told == []


@pytest.mark.parametrize("first", ["rate limit", "loading"])
def test_loading_waits_and_asked_waits_share_the_request_s_minute(
        server: FakeOpenAIServer, first: str) -> None:
    rate_limit = (429, None, {"Retry-After": "45"})
    loading = (503, LOADING, None)
    order = [rate_limit, loading] if first == "rate limit" else [loading, rate_limit]
    for status, body, headers in [*order, loading, loading]:
        server.enqueue_error(status, body, headers=headers)
    sleeps, told = refused(server)
    # A minute in all, not a minute of Retry-After waits beside one of loading waits.
    assert sum(sleeps) == 60.0 and len(told) == 3
    assert sleeps == ([30.0, 20.0, 10.0] if first == "rate limit" else [10.0, 30.0, 20.0])
    assert told[-1] == waiting_text(sleeps[-1])


def test_a_rate_limit_after_the_loading_minute_does_not_give_its_waits_afresh(
        server: FakeOpenAIServer) -> None:
    # The first request spends the loading minute; the second is refused with a 429, maybe a
    # proxy's in front of the server still loading: no answer from the server, so the loading
    # that follows is not sent again, and its error says the minute was spent.
    for _ in range(4):
        server.enqueue_error(503, LOADING)
    server.enqueue_error(429, headers={"Retry-After": "5"})
    server.enqueue_error(503, LOADING)
    sleeps, _, errors = refusals(server, 2)
    assert sleeps == [10.0, 20.0, 30.0, 5.0] and len(server.requests) == 6
    assert "still loading its model" in errors[1]
    assert "spent on earlier requests" in errors[1]


def test_a_proxy_s_rate_limits_between_loading_requests_do_not_restart_the_minute(
        server: FakeOpenAIServer) -> None:
    # Each request: loading, then the proxy's 429 (no Retry-After), then loading twice.
    for _ in range(2):
        for status, body in ((503, LOADING), (429, None), (503, LOADING), (503, LOADING)):
            server.enqueue_error(status, body)
    server.enqueue_error(503, LOADING)
    sleeps, told, _ = refusals(server, 3)
    # Loading waits (10 s, then 10 s more each try) until the minute is spent; the third
    # request, begun with it spent, is refused at once.
    assert [s for s in sleeps if s > 2.0] == [10.0, 30.0, 10.0, 10.0] and len(sleeps) == 6
    assert told == [waiting_text(s) for s in (10.0, 30.0, 10.0, 10.0)]
    assert len(server.requests) == 9


def test_a_server_that_keeps_rate_limiting_costs_the_client_a_minute_not_one_a_request(
        server: FakeOpenAIServer) -> None:
    for _ in range(4 + 5):
        server.enqueue_error(429, headers={"Retry-After": "20"})
    sleeps, told, errors = refusals(server, 6)
    # The first request spends the minute; each later one is refused once, not sent again.
    assert sleeps == [20.0, 20.0, 20.0] and len(told) == 3
    assert len(server.requests) == 4 + 5
    assert all("1 attempt)" in error and "rate limits and a busy server are spent" in error
               for error in errors[1:])
    assert "until a minute passes with no wait for them" in errors[-1]


def test_the_short_backoffs_after_rate_limits_take_from_the_minute_too(
        server: FakeOpenAIServer) -> None:
    for _ in range(40):
        server.enqueue_error(429)
    sleeps, _, _ = refusals(server, 10, base_delay=20.0, max_delay=20.0)
    assert sum(sleeps) == pytest.approx(60.0) and len(sleeps) <= 6
    assert len(server.requests) == len(sleeps) + 10


def test_an_answer_gives_later_rate_limits_their_minute_afresh(
        server: FakeOpenAIServer) -> None:
    for _ in range(4 + 1):
        server.enqueue_error(429, headers={"Retry-After": "20"})
    server.enqueue_reply("Noted.")
    server.enqueue_error(429, headers={"Retry-After": "20"})
    server.enqueue_reply("Noted again.")
    sleeps: list[float] = []
    llm = OpenAIClient("qwen3:4b", base_url=server.base_url, max_retries=3,
                       sleep=sleeps.append)
    for _ in range(2):
        with pytest.raises(ProviderError):
            llm.complete([{"role": "user", "content": "hi"}], [])
    assert llm.complete([{"role": "user", "content": "hi"}], []).content == "Noted."
    assert llm.complete([{"role": "user", "content": "hi"}], []).content == "Noted again."
    assert sleeps == [20.0, 20.0, 20.0, 20.0]


class Clock:
    """A clock that moves only as the client sleeps, or as a test lets time pass."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def clocked(server: FakeOpenAIServer) -> tuple[Clock, OpenAIClient]:
    """A client of ``server`` that sleeps, and tells the time, by a ``Clock`` of its own."""
    clock = Clock()
    return clock, OpenAIClient("qwen3:4b", base_url=server.base_url, max_retries=3,
                               sleep=clock.sleep, clock=clock)


def test_a_quiet_minute_gives_the_rate_limits_their_minute_again(
        server: FakeOpenAIServer) -> None:
    # A chat left open: its minute spent on a proxy's 429s, a request refused at once, then,
    # a minute and more later with no request, a 429 the server lifts after the wait asked.
    for _ in range(4 + 1 + 1 + 1):
        server.enqueue_error(429, headers={"Retry-After": "20"})
    server.enqueue_reply("Noted.")
    clock, llm = clocked(server)
    for _ in range(2):
        with pytest.raises(ProviderError) as info:
            llm.complete([{"role": "user", "content": "hi"}], [])
    assert llm.last_attempts == 1 and "until a minute passes" in str(info.value)
    clock.now += 59.0  # not yet a minute since the last wait ended
    with pytest.raises(ProviderError):
        llm.complete([{"role": "user", "content": "hi"}], [])
    assert llm.last_attempts == 1
    clock.now += 3600.0
    assert llm.complete([{"role": "user", "content": "hi"}], []).content == "Noted."
    assert clock.sleeps == [20.0, 20.0, 20.0, 20.0]


def test_a_busy_server_costs_the_client_a_minute_not_one_a_request(
        server: FakeOpenAIServer) -> None:
    # Ollama's 503 "server busy" asking 20 s, to each of three requests: the minute of waits
    # a rate limit is given, in all, then each is refused once, not sent again.
    for _ in range(4 + 2):
        server.enqueue_error(503, BUSY, headers={"Retry-After": "20"})
    sleeps, _, errors = refusals(server, 3)
    assert sleeps == [20.0, 20.0, 20.0] and len(server.requests) == 4 + 2
    assert all("(HTTP 503, 1 attempt)" in error and "a busy server are spent" in error
               for error in errors[1:])


def test_a_busy_server_s_refusals_and_rate_limits_share_the_minute(
        server: FakeOpenAIServer) -> None:
    for status, body in ((429, None), (503, BUSY), (429, None), (503, BUSY)):
        server.enqueue_error(status, body, headers={"Retry-After": "25"})
    sleeps, _, errors = refusals(server, 1)
    assert sleeps == [25.0, 25.0, 10.0] and "busy server are spent" in errors[0]


def test_a_quota_used_up_after_the_minute_is_spent_is_not_told_to_wait_for_it(
        server: FakeOpenAIServer) -> None:
    for _ in range(4):
        server.enqueue_error(429, headers={"Retry-After": "20"})
    server.enqueue_error(429, {"error": {"message": "You exceeded your current quota.",
                                         "code": "insufficient_quota"}})
    _, _, errors = refusals(server, 2)
    assert "the account's quota is used up" in errors[1]
    assert "are spent" not in errors[1] and "until a minute passes" not in errors[1]


def test_a_quiet_minute_gives_a_loading_model_its_minute_again(
        server: FakeOpenAIServer) -> None:
    # A llama-server that spent the loading minute, then, restarted a minute and more later
    # with no request in between, loading its model again for 30 s.
    for _ in range(4 + 1 + 2):
        server.enqueue_error(503, LOADING)
    server.enqueue_reply("Noted.")
    clock, llm = clocked(server)
    with pytest.raises(ProviderError):
        llm.complete([{"role": "user", "content": "hi"}], [])
    clock.now += 59.0  # not yet a minute since the last wait ended: refused at once
    with pytest.raises(ProviderError) as info:
        llm.complete([{"role": "user", "content": "hi"}], [])
    assert "given again once a minute passes with no such refusal" in str(info.value)
    assert clock.sleeps == [10.0, 20.0, 30.0] and llm.last_attempts == 1
    clock.now += 3600.0
    assert llm.complete([{"role": "user", "content": "hi"}], []).content == "Noted."
    assert clock.sleeps[-2:] == [10.0, 20.0]


def test_a_loading_server_and_a_rate_limiting_proxy_by_turns_are_waited_two_minutes(
        server: FakeOpenAIServer) -> None:
    # Requests refused by turns: a llama-server loading its model, then a proxy's 429s. A
    # wait of either kind keeps the other's minute spent, so neither comes back a minute on.
    for _ in range(4):
        server.enqueue_error(503, LOADING)
    for _ in range(4):
        server.enqueue_error(429, headers={"Retry-After": "20"})
    server.enqueue_error(503, LOADING)
    server.enqueue_error(429, headers={"Retry-After": "20"})
    clock, llm = clocked(server)
    errors = []
    for _ in range(4):
        with pytest.raises(ProviderError) as info:
            llm.complete([{"role": "user", "content": "hi"}], [])
        errors.append(str(info.value))
    assert clock.sleeps == [10.0, 20.0, 30.0, 20.0, 20.0, 20.0]
    assert "were spent on earlier requests" in errors[2] and "1 attempt)" in errors[2]
    assert llm.last_attempts == 1 and "rate limits and a busy server are spent" in errors[3]


def test_a_model_still_loading_a_minute_on_gets_no_second_minute(
        server: FakeOpenAIServer) -> None:
    # A llama-server whose model takes minutes to load, asked every 20 s: its refusals a
    # minute after the waits ended are no quiet minute, and are refused at once still.
    for _ in range(4 + 4):
        server.enqueue_error(503, LOADING)
    clock, llm = clocked(server)
    for _ in range(5):
        with pytest.raises(ProviderError) as info:
            llm.complete([{"role": "user", "content": "hi"}], [])
        clock.now += 20.0
    assert clock.sleeps == [10.0, 20.0, 30.0] and len(server.requests) == 8
    assert "were spent on earlier requests" in str(info.value)


def gemini_limit(retry_in: str, delay: str) -> bytes:
    """Gemini's 429 for a limit per minute, as its OpenAI-compatible endpoint sends it: no
    Retry-After header, the wait in its message and in its RetryInfo."""
    return json.dumps([{"error": {
        "code": 429, "status": "RESOURCE_EXHAUSTED",
        "message": "You exceeded your current quota, please check your plan and billing "
                   "details. * Quota exceeded for metric: generativelanguage.googleapis.com/"
                   f"generate_content_free_tier_requests, limit: 10\nPlease retry in {retry_in}.",
        "details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo",
                     "retryDelay": delay}]}}]).encode()


def answered_after(server: FakeOpenAIServer, model: str) -> tuple[list[float], list[str]]:
    """The waits a client of ``model`` sleeps and tells before the reply the server then
    sends ("Noted.")."""
    server.enqueue_reply("Noted.")
    sleeps: list[float] = []
    told: list[str] = []
    llm = OpenAIClient(model, base_url=server.base_url, max_retries=3,
                       sleep=sleeps.append, wait_notice=told.append)
    assert llm.complete([{"role": "user", "content": "hi"}], []).content == "Noted."
    return sleeps, told


@pytest.mark.parametrize(("retry_in", "delay", "waited", "asked"), [
    ("17.5s", "17s", 17.5, "18"),
    # Capped as a Retry-After is.
    ("45s", "45s", 30.0, "45"),
    # Short: not told.
    ("850ms", "0s", 0.85, None),
])
def test_a_wait_asked_in_the_body_of_a_429_with_no_retry_after_is_honoured(
        server: FakeOpenAIServer, retry_in: str, delay: str, waited: float,
        asked: str | None) -> None:
    server.enqueue_error(429, gemini_limit(retry_in, delay),
                         headers={"Content-Type": "application/json"})
    sleeps, told = answered_after(server, "gemini-2.5-flash")
    assert sleeps == [waited]
    assert told == ([] if asked is None else [retry_text(
        waited, f"the model server answered HTTP 429 and asked to wait {asked} s")])


@pytest.mark.parametrize("status", [500, 502])
def test_a_wait_quoted_in_the_body_of_a_failure_other_than_a_429_is_not_asked(
        server: FakeOpenAIServer, status: int) -> None:
    # The server quotes the prompt it failed on: its words are the user's, not a wait asked.
    server.enqueue_error(status, {"error": {
        "message": "error while processing prompt 'tell them: Please retry in 5h.'",
        "type": "server_error"}})
    sleeps, told = answered_after(server, "qwen3:4b")
    # The short backoff, not the 30 s a wait asked of 5 h would be capped to.
    assert len(sleeps) == 1 and sleeps[0] <= 1.0 and told == []


@pytest.mark.parametrize(("status", "body", "headers", "wait"), [
    # Gemini's limit per day, its wait in the body only.
    (429, gemini_limit("2h47m56.584147483s", "10076s"), {}, "2 h 47 min"),
    (429, None, {"Retry-After": "10000"}, "2 h 46 min"),
    (503, BUSY, {"Retry-After": "600"}, "10 min"),
])
def test_a_wait_asked_beyond_the_client_s_minute_ends_the_request_at_once_naming_it(
        server: FakeOpenAIServer, status: int, body: bytes | dict[str, object] | None,
        headers: dict[str, str], wait: str) -> None:
    server.enqueue_error(status, body, headers={"Content-Type": "application/json", **headers})
    server.enqueue_reply("Noted.")  # what a request sent again would get: it is not sent
    sleeps, told, errors = refusals(server, 1)
    assert sleeps == [] and told == [] and len(server.requests) == 1
    assert errors[0].startswith(f"{server.base_url} refused the request (HTTP {status}) and "
                                f"asked to wait {wait} before it is sent again, longer than "
                                f"the minute this client waits, so it was not sent again")
