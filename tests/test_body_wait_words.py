"""A wait a 429's body asks in words ("Please retry in 5 minutes.", "30 sec", "1 day", "1 hour
and 30 minutes"), not only as Go prints it ("5m0s"), is read; one beyond any real wait (digits
past a float's range, a Retry-After of 1e300) is one of more than a year, which ends the
request at once."""

from __future__ import annotations

import pytest
from fake_openai import FakeOpenAIServer

from tiermem.agent.errors import ProviderError
from tiermem.agent.loading_wait import retry_text
from tiermem.agent.openai_client import OpenAIClient


def limited(message: str) -> dict[str, object]:
    return {"error": {"code": 429, "status": "RESOURCE_EXHAUSTED", "message": message}}


def client(server: FakeOpenAIServer) -> tuple[OpenAIClient, list[float], list[str]]:
    sleeps: list[float] = []
    told: list[str] = []
    return (OpenAIClient("m", base_url=server.base_url, sleep=sleeps.append,
                         wait_notice=told.append), sleeps, told)


@pytest.mark.parametrize(("said", "headers", "wait"), [
    ("Quota exceeded. Please retry in 5 minutes.", {}, "5 min"),
    ("Quota exceeded. Please retry in 2 hours.", {}, "2 h"),
    ("Daily limit reached. Please try again in 3 days.", {}, "3 days"),
    ("Daily limit reached. Please try again in 1 day.", {}, "24 h"),
    ("Quota exceeded. Please try again in 1 hour and 30 minutes.", {}, "1 h 30 min"),
    ("Quota exceeded. Please try again in 2 hours, and 15 minutes.", {}, "2 h 15 min"),
    ("Quota exceeded. Please retry in " + "9" * 400 + "s.", {}, "more than a year"),
    ("Too many requests", {"Retry-After": "1e300"}, "more than a year"),
    ("Too many requests", {"Retry-After": "1" * 400}, "more than a year"),
])
def test_a_long_wait_asked_in_words_or_beyond_range_ends_the_request_naming_it(
        server: FakeOpenAIServer, said: str, headers: dict[str, str], wait: str) -> None:
    server.enqueue_error(429, limited(said), headers=headers)
    server.enqueue_reply("Noted.")  # what a request sent again would get: it is not sent
    llm, sleeps, _ = client(server)
    with pytest.raises(ProviderError) as info:
        llm.complete([{"role": "user", "content": "hi"}], [])
    assert sleeps == [] and len(server.requests) == 1
    assert f"asked to wait {wait} before it is sent again" in str(info.value)
    assert info.value.hint is not None and f"send it again in {wait}," in info.value.hint


@pytest.mark.parametrize(("said", "waited", "asked"), [
    ("Please retry in 20 seconds.", 20.0, "20"),
    ("Please retry in 20 secs.", 20.0, "20"),
    ("Please retry in 1 minute.", 30.0, "60"),  # capped as a Retry-After is
    ("Please try again in 20 s and 5 ms.", 20.005, "20"),
    ("Please try again in 20s, 1 min window of 6000 tokens.", 20.0, "20"),
])
def test_a_short_wait_asked_in_words_is_waited(server: FakeOpenAIServer, said: str,
                                               waited: float, asked: str) -> None:
    server.enqueue_error(429, limited(said))
    server.enqueue_reply("Noted.")
    llm, sleeps, told = client(server)
    assert llm.complete([{"role": "user", "content": "hi"}], []).content == "Noted."
    assert sleeps == [waited]
    assert told == [retry_text(waited, f"the model server answered HTTP 429 and asked to wait "
                                       f"{asked} s")]


@pytest.mark.parametrize("said", ["Please retry in 5 mice.", "Please try again in 5 dollars."])
def test_a_number_before_another_word_asks_no_wait(server: FakeOpenAIServer, said: str) -> None:
    server.enqueue_error(429, limited(said))
    server.enqueue_reply("Noted.")
    llm, sleeps, told = client(server)
    assert llm.complete([{"role": "user", "content": "hi"}], []).content == "Noted."
    assert len(sleeps) == 1 and sleeps[0] <= 1.0 and told == []
