"""A 429 (or Groq's 413) for one request larger than the account's limit of tokens a minute
(OpenAI's and Groq's "Request too large for ... on tokens per min"): no wait lets it pass, so
it is not sent again, and its hint says to send smaller requests, not to wait a minute nor to
raise a proxy's limit on the size of a body."""

from __future__ import annotations

import json

import pytest
from fake_openai import FakeOpenAIServer, FakeResponse

from tiermem.agent.command_hints import hint_for
from tiermem.agent.doctor import run_doctor
from tiermem.agent.errors import ProviderError
from tiermem.agent.openai_client import OpenAIClient
from tiermem.agent.sdk_errors import OVER_THE_LIMIT, OVER_THE_LIMIT_HINT

# As OpenAI and Groq word it.
OPENAI = ("Request too large for gpt-4o in organization org-78asdf87 on tokens per min (TPM): "
          "Limit 30000, Requested 31538. The input or output tokens must be reduced in order to "
          "run successfully. Visit https://platform.openai.com/account/rate-limits to learn "
          "more.")
GROQ = ("Request too large for model `llama-3.1-8b-instant` in organization `org_1` service "
        "tier `on_demand` on tokens per minute (TPM): Limit 6000, Requested 6294, please reduce "
        "your message size and try again. Visit https://console.groq.com/docs/rate-limits for "
        "more information.")
# A LiteLLM proxy handing OpenAI's on, its 3.5 model's name dotted.
LITELLM = ("litellm.RateLimitError: RateLimitError: OpenAIException - Error code: 429 - "
           "{'error': {'message': '" + OPENAI.replace("gpt-4o", "gpt-3.5-turbo") + "'}}")


def refused(server: FakeOpenAIServer, message: str,
            status: int = 429) -> tuple[list[float], ProviderError]:
    for _ in range(4):
        server.enqueue_error(status, {"error": {"message": message, "type": "tokens",
                                                "code": "rate_limit_exceeded"}})
    sleeps: list[float] = []
    llm = OpenAIClient("gpt-4o", base_url=server.base_url, sleep=sleeps.append)
    with pytest.raises(ProviderError) as info:
        llm.complete([{"role": "user", "content": "hi"}], [])
    return sleeps, info.value


# Groq sends its own as a 413, no body too large for a proxy's limit.
@pytest.mark.parametrize(("message", "status"), [(OPENAI, 429), (GROQ, 429), (LITELLM, 429),
                                                 (GROQ, 413)])
def test_a_request_over_the_limit_a_minute_is_not_sent_again_nor_waited_for(
        server: FakeOpenAIServer, message: str, status: int) -> None:
    sleeps, error = refused(server, message, status)
    assert sleeps == [] and len(server.requests) == 1 and not error.retryable
    assert f"larger than the tokens a minute the account may send (HTTP {status})" in str(error)
    assert "client_max_body_size" not in (error.hint or "")
    assert "wait a minute" not in str(error)
    assert error.hint is not None and "smaller --context-window" in error.hint


def test_a_rate_limit_per_minute_is_still_waited_for(server: FakeOpenAIServer) -> None:
    sleeps, error = refused(server, "Rate limit reached for gpt-4o in organization org-1 on "
                                    "tokens per min (TPM): Limit 30000, Used 29000, Requested "
                                    "2000. Please try again in 2s.")
    assert len(sleeps) == 3 and "wait a minute and try again" in str(error)


@pytest.mark.parametrize("status", [429, 413])
def test_the_doctor_advises_a_request_over_the_limit_as_the_chat_hints_it(
        server: FakeOpenAIServer, status: int) -> None:
    body = json.dumps({"error": {"message": GROQ, "type": "tokens",
                                 "code": "rate_limit_exceeded"}}).encode()
    server.responder = lambda request: FakeResponse(
        status=status, body=body, headers={"Content-Type": "application/json"})
    assert run_doctor(server.base_url, server.model).advice == [
        f"the request is {OVER_THE_LIMIT} (HTTP {status}): "
        + hint_for(OVER_THE_LIMIT_HINT, "doctor")]
