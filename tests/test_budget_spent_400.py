"""A LiteLLM proxy's spending budget used up, sent as a 400 (its "litellm.BadRequestError: ...
Budget has been exceeded!", or type "budget_exceeded"), is hinted as the same budget sent as a
429 is, in the chat and the doctor alike, not as a request sending again cannot help."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fake_openai import FakeOpenAIServer, FakeResponse

from tiermem.agent.command_hints import hint_for
from tiermem.agent.doctor import run_doctor
from tiermem.agent.errors import ProviderError
from tiermem.agent.openai_client import OpenAIClient
from tiermem.agent.sdk_errors import BUDGET_HINT

BODIES = [
    # As a LiteLLM proxy sends it when the budget is that of the proxy in front of it.
    {"error": {"message": "litellm.BadRequestError: OpenAIException - Budget has been exceeded! "
                          "Current cost: 14.2, Max budget: 100. Received Model Group=meta.llama3"
                          "-8b-instruct-v1:0\nAvailable Model Group Fallbacks=None",
               "type": None, "param": None, "code": "400"}},
    {"error": {"message": "Budget has been exceeded! Team=99c74652 Current cost: 2.0, Max "
                          "budget: 1.0", "type": "budget_exceeded", "param": None, "code": "400"}},
]


def refusing(server: FakeOpenAIServer, body: Any) -> None:
    server.responder = lambda request: FakeResponse(
        status=400, body=json.dumps(body).encode(), headers={"Content-Type": "application/json"})


@pytest.mark.parametrize("body", BODIES)
def test_a_budget_spent_sent_as_a_400_gets_the_budget_hint(
        server: FakeOpenAIServer, body: Any) -> None:
    refusing(server, body)
    llm = OpenAIClient("m", base_url=server.base_url, sleep=lambda seconds: None)
    with pytest.raises(ProviderError) as info:
        llm.complete([{"role": "user", "content": "hi"}], [])
    assert str(info.value).startswith(
        f"{server.base_url} refused the request: the proxy's spending budget is used up "
        f"(HTTP 400)")
    assert info.value.hint == BUDGET_HINT and len(server.requests) == 1


@pytest.mark.parametrize("body", BODIES)
def test_the_doctor_advises_a_budget_spent_sent_as_a_400_as_the_chat_hints_it(
        server: FakeOpenAIServer, body: Any) -> None:
    refusing(server, body)
    assert run_doctor(server.base_url, server.model).advice == [
        "the proxy's spending budget is used up (HTTP 400): " + hint_for(BUDGET_HINT, "doctor")]
