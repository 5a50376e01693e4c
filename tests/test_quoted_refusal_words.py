"""A 400 that quotes the request (vLLM's validation error holds it as its "input", the user's
words among them) is read by its own words only: a prompt saying "Budget has been exceeded!" or
"User location is not supported" is no budget spent and no region refused."""

from __future__ import annotations

import json

import pytest
from fake_openai import FakeOpenAIServer, FakeResponse

from tiermem.agent.errors import ProviderError
from tiermem.agent.openai_client import OpenAIClient


def validation_error(said: str) -> dict[str, object]:
    return {"object": "error", "type": "BadRequestError", "param": None, "code": 400,
            "message": ("[{'type': 'extra_forbidden', 'loc': ('body', 'foo'), 'msg': 'Extra "
                        "inputs are not permitted', 'input': {'messages': [{'role': 'user', "
                        f"'content': {said!r}}}]}}}}]")}


@pytest.mark.parametrize("said", ["Budget has been exceeded! What does it mean?",
                                  "User location is not supported for the API use. Why?"])
def test_a_400_quoting_the_prompt_is_refused_as_the_request(server: FakeOpenAIServer,
                                                             said: str) -> None:
    body = validation_error(said)
    server.responder = lambda request: FakeResponse(
        status=400, body=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    llm = OpenAIClient("m", base_url=server.base_url, sleep=lambda seconds: None)
    with pytest.raises(ProviderError) as info:
        llm.complete([{"role": "user", "content": said}], [])
    assert str(info.value).startswith("the server refused the request: [{'type': "
                                      "'extra_forbidden'")
    assert "sending it again cannot help" in str(info.value) and info.value.hint is None
