"""OpenRouter's 429 for the day's requests to free models used up ("Rate limit exceeded:
free-models-per-day"): no wait of a minute lifts it, so it is not sent again, and the chat
and the doctor both say when it is lifted and what to do instead."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fake_openai import FakeOpenAIServer, FakeResponse

from tiermem.agent.command_hints import hint_for
from tiermem.agent.doctor import run_doctor
from tiermem.agent.errors import ProviderError
from tiermem.agent.openai_client import OpenAIClient
from tiermem.agent.sdk_errors import FREE_DAY_HINT

BODIES = [
    {"error": {"message": "Rate limit exceeded: free-models-per-day. Add 10 credits to unlock "
                          "1000 free model requests per day", "code": 429,
               "metadata": {"headers": {"X-RateLimit-Limit": "50", "X-RateLimit-Remaining": "0",
                                        "X-RateLimit-Reset": "1746316800000"},
                            "provider_name": None}}},
    {"error": {"message": "Rate limit exceeded: free-models-per-day-high-balance. ",
               "type": "rate_limit_error", "code": "429"}},
]


@pytest.mark.parametrize("body", BODIES)
def test_the_day_s_free_requests_used_up_are_not_waited_for_and_the_doctor_agrees(
        server: FakeOpenAIServer, body: Any) -> None:
    answer = FakeResponse(status=429, body=json.dumps(body).encode(),
                          headers={"Content-Type": "application/json"})
    server.responder = lambda request: answer
    sleeps: list[float] = []
    llm = OpenAIClient("meta-llama/llama-3.3-70b-instruct:free", base_url=server.base_url,
                       sleep=sleeps.append)
    with pytest.raises(ProviderError) as info:
        llm.complete([{"role": "user", "content": "hi"}], [])
    assert sleeps == [] and len(server.requests) == 1
    assert str(info.value).startswith(
        f"{server.base_url} refused the request: the day's requests to free models are used "
        f"up (HTTP 429)")
    assert "wait a minute" not in str(info.value) and info.value.hint == FREE_DAY_HINT
    assert run_doctor(server.base_url, server.model).advice == [
        "the day's requests to free models are used up (HTTP 429): "
        + hint_for(FREE_DAY_HINT, "doctor")]
