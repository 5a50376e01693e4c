"""What the chat and the doctor advise when a server asks a wait longer than the minute a
client waits: a quota for the day only when it asks hours; a limit on requests or tokens
when it asks a minute or so more; a busy server or its maintenance for a 503. Both say it
alike."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fake_openai import FakeOpenAIServer, FakeResponse

from tiermem.agent.command_hints import hint_for
from tiermem.agent.doctor import run_doctor
from tiermem.agent.errors import ProviderError
from tiermem.agent.openai_client import OpenAIClient

# Groq's 429 for its limit of tokens per minute, as it words it, with the wait it asks.
GROQ_TPM = {"error": {
    "message": "Rate limit reached for model `llama-3.3-70b-versatile` in organization "
               "`org_01abc` on tokens per minute (TPM): Limit 6000, Used 5990, Requested "
               "7100. Please try again in 1m11.9s. Visit https://console.groq.com/docs/"
               "rate-limits for more information.",
    "type": "tokens", "code": "rate_limit_exceeded"}}
# Groq's limit of tokens a day, as a LiteLLM proxy hands it on: the wait in its words only.
GROQ_TPD = {"error": {
    "message": "litellm.RateLimitError: RateLimitError: GroqException - Rate limit reached for "
               "model `llama-3.3-70b-versatile` in organization `org_01abc` service tier "
               "`on_demand` on tokens per day (TPD): Limit 100000, Used 99100, Requested 1500. "
               "Please try again in 4m48s. Need more tokens? Upgrade to Dev Tier today",
    "type": None, "param": None, "code": "429"}}
GEMINI_DAY = [{"error": {"code": 429, "status": "RESOURCE_EXHAUSTED",
                         "message": "You exceeded your current quota. Please retry in "
                                    "2h47m56.5s."}}]

PER_MINUTE = "a limit on requests or tokens is reached, it seems"
DAY = "a quota for the day (or the hour) is used up, it seems"
BUSY = "the server is busy or down for maintenance, it seems"

CASES = [
    (429, {"error": {"message": "Too many requests"}}, {"Retry-After": "61"}, "1 min 1 s",
     PER_MINUTE),
    (429, GROQ_TPM, {"Retry-After": "72"}, "1 min 12 s", PER_MINUTE),
    (429, GROQ_TPD, {}, "4 min 48 s", PER_MINUTE),
    (429, GEMINI_DAY, {}, "2 h 47 min", DAY),
    (503, {"error": {"message": "Service Unavailable"}}, {"Retry-After": "600"}, "10 min",
     BUSY),
]


def refusing(server: FakeOpenAIServer, status: int, body: Any, headers: dict[str, str]) -> None:
    server.responder = lambda request: FakeResponse(
        status=status, body=json.dumps(body).encode(),
        headers={"Content-Type": "application/json", **headers})


def chat_error(server: FakeOpenAIServer) -> ProviderError:
    sleeps: list[float] = []
    llm = OpenAIClient("m", base_url=server.base_url, sleep=sleeps.append)
    with pytest.raises(ProviderError) as info:
        llm.complete([{"role": "user", "content": "hi"}], [])
    assert sleeps == [] and len(server.requests) == 1  # ended at once
    return info.value


@pytest.mark.parametrize(("status", "body", "headers", "wait", "why"), CASES)
def test_a_long_wait_is_advised_by_what_asked_it_and_how_long(
        server: FakeOpenAIServer, status: int, body: Any, headers: dict[str, str], wait: str,
        why: str) -> None:
    refusing(server, status, body, headers)
    error = chat_error(server)
    assert error.hint is not None and error.hint.startswith(f"{why}: send it again in {wait}")
    for other in {PER_MINUTE, DAY, BUSY} - {why}:
        assert other not in error.hint


@pytest.mark.parametrize(("status", "body", "headers", "wait", "why"), CASES)
def test_the_doctor_advises_a_long_wait_as_the_chat_hints_it(
        server: FakeOpenAIServer, status: int, body: Any, headers: dict[str, str], wait: str,
        why: str) -> None:
    refusing(server, status, body, headers)
    hint = chat_error(server).hint
    assert hint is not None
    assert run_doctor(server.base_url, server.model).advice == [
        f"the server asked to wait {wait} before a request is sent again (HTTP {status}): "
        + hint_for(hint, "doctor")]
