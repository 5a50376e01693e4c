"""A refusal for something spent that no wait gives back ends the request at once with its
hint, and the doctor advises as the chat hints it: a LiteLLM proxy's spending budget used up
sent as a 400 (its "litellm.BadRequestError: ... Budget has been exceeded!", or type
"budget_exceeded") is hinted as the same budget sent as a 429 is, not as a request sending
again cannot help; a 402 (OpenRouter's "Insufficient credits", DeepSeek's "Insufficient
Balance") is the account's credit used up, as a 429 "insufficient_quota" is."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fake_openai import FakeOpenAIServer, FakeResponse

from tiermem.agent.command_hints import hint_for
from tiermem.agent.doctor import run_doctor
from tiermem.agent.errors import ProviderError
from tiermem.agent.openai_client import OpenAIClient
from tiermem.agent.sdk_errors import BUDGET_HINT, QUOTA_HINT

BUDGET = "the proxy's spending budget is used up"
CREDIT = "the account's credit is used up"
CASES = [
    # As a LiteLLM proxy sends it when the budget is that of the proxy in front of it.
    (400, {"error": {"message": "litellm.BadRequestError: OpenAIException - Budget has been "
                                "exceeded! Current cost: 14.2, Max budget: 100. Received Model "
                                "Group=meta.llama3-8b-instruct-v1:0\nAvailable Model Group "
                                "Fallbacks=None", "type": None, "param": None, "code": "400"}},
     BUDGET, BUDGET_HINT),
    (400, {"error": {"message": "Budget has been exceeded! Team=99c74652 Current cost: 2.0, Max "
                                "budget: 1.0", "type": "budget_exceeded", "param": None,
                     "code": "400"}}, BUDGET, BUDGET_HINT),
    (402, {"error": {"message": "Insufficient credits. Add more using "
                                "https://openrouter.ai/settings/credits", "code": 402}},
     CREDIT, QUOTA_HINT),
    (402, {"error": {"message": "Insufficient Balance", "type": "unknown_error", "param": None,
                     "code": "invalid_request_error"}}, CREDIT, QUOTA_HINT),
]


def refusing(server: FakeOpenAIServer, status: int, body: Any) -> None:
    server.responder = lambda request: FakeResponse(
        status=status, body=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"})


@pytest.mark.parametrize(("status", "body", "spent", "hint"), CASES)
def test_a_refusal_for_something_spent_ends_at_once_with_its_hint(
        server: FakeOpenAIServer, status: int, body: Any, spent: str, hint: str) -> None:
    refusing(server, status, body)
    llm = OpenAIClient("m", base_url=server.base_url, sleep=lambda seconds: None)
    with pytest.raises(ProviderError) as info:
        llm.complete([{"role": "user", "content": "hi"}], [])
    assert str(info.value).startswith(
        f"{server.base_url} refused the request: {spent} (HTTP {status})")
    assert info.value.hint == hint and len(server.requests) == 1


@pytest.mark.parametrize(("status", "body", "spent", "hint"), CASES)
def test_the_doctor_advises_something_spent_as_the_chat_hints_it(
        server: FakeOpenAIServer, status: int, body: Any, spent: str, hint: str) -> None:
    refusing(server, status, body)
    assert run_doctor(server.base_url, server.model).advice == [
        f"{spent} (HTTP {status}): " + hint_for(hint, "doctor")]

