"""A service refusing requests from the country or region they come from (OpenAI's 403
"unsupported_country_region_territory", Gemini's 400 "User location is not supported"): no key
nor model changes that, so the chat and the doctor both say where to look instead."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fake_openai import FakeOpenAIServer, FakeResponse

from tiermem.agent.command_hints import hint_for
from tiermem.agent.doctor import run_doctor
from tiermem.agent.errors import ProviderError
from tiermem.agent.openai_client import OpenAIClient
from tiermem.agent.server_errors import PLACE_HINT

OPENAI = {"error": {"code": "unsupported_country_region_territory",
                    "message": "Country, region, or territory not supported", "param": None,
                    "type": "request_forbidden"}}
# As a gateway hands it on, its request id added.
RELAYED = {"error": {"message": "Country, region, or territory not supported (request id: "
                                "2024072510422562564674066306279)", "type": "request_forbidden",
                     "param": "", "code": "unsupported_country_region_territory"}}
GEMINI = [{"error": {"code": 400, "message": "User location is not supported for the API use.",
                     "status": "FAILED_PRECONDITION"}}]
# A LiteLLM proxy's 403 with OpenAI's words after its own.
LITELLM = {"error": {"message": "litellm.PermissionDeniedError: OpenAIException - Country, "
                                "region, or territory not supported", "type": None,
                     "param": None, "code": "403"}}
# OpenRouter's 400 quoting Google AI Studio's refusal whole, as its "raw".
OPENROUTER = {"error": {"message": "Provider returned error", "code": 400, "metadata": {
    "raw": "{\n  \"error\": {\n    \"code\": 400,\n    \"message\": \"User location is not "
           "supported for the API use.\",\n    \"status\": \"FAILED_PRECONDITION\"\n  }\n}\n",
    "provider_name": "Google AI Studio"}}}
# Google's error whole as the message, as a gateway hands it on.
QUOTED = {"error": {"message": "{\n  \"error\": {\n    \"code\": 400,\n    \"message\": \"User "
                               "location is not supported for the API use.\",\n    \"status\": "
                               "\"FAILED_PRECONDITION\"\n  }\n}\n", "code": 400,
                    "status": "Bad Request"}}
CASES = [(403, OPENAI), (403, RELAYED), (400, GEMINI), (403, LITELLM), (400, OPENROUTER),
         (400, QUOTED)]


def refusing(server: FakeOpenAIServer, status: int, body: Any) -> None:
    server.responder = lambda request: FakeResponse(
        status=status, body=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"})


@pytest.mark.parametrize(("status", "body"), CASES)
def test_the_chat_says_the_country_or_region_was_refused_not_the_key_nor_the_model(
        server: FakeOpenAIServer, status: int, body: Any) -> None:
    refusing(server, status, body)
    llm = OpenAIClient("gpt-4o", base_url=server.base_url, sleep=lambda seconds: None)
    with pytest.raises(ProviderError) as info:
        llm.complete([{"role": "user", "content": "hi"}], [])
    said = str(info.value)
    assert said.startswith(f"{server.base_url} refused requests from this country or region "
                           f"(HTTP {status})")
    assert "may use this model" not in said and "sending it again" not in said
    assert info.value.hint == PLACE_HINT and len(server.requests) == 1


@pytest.mark.parametrize(("status", "body"), CASES)
def test_the_doctor_advises_a_refused_country_or_region_as_the_chat_hints_it(
        server: FakeOpenAIServer, status: int, body: Any) -> None:
    refusing(server, status, body)
    assert run_doctor(server.base_url, server.model, "sk-abc").advice == [
        f"the server refused requests from this country or region (HTTP {status}): "
        + hint_for(PLACE_HINT, "doctor")]


def test_another_403_is_still_a_model_the_key_may_not_use(server: FakeOpenAIServer) -> None:
    refusing(server, 403, {"error": {"message": "You are not allowed to sample from this model",
                                     "type": "invalid_request_error"}})
    advice = run_doctor(server.base_url, server.model, "sk-abc").advice
    assert advice[0].startswith("the API key may not use model 'fake-model' (HTTP 403)")

