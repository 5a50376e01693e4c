"""The judge protocol, and a chat model adapted to it."""

from __future__ import annotations

import pytest

from tiermem.agent.errors import ProviderError
from tiermem.agent.judge import ModelJudge
from tiermem.agent.scripted import ScriptedModel, reply
from tiermem.memory.judge import FunctionJudge, Judge


def test_model_judge_sends_one_system_and_one_user_message_without_tools() -> None:
    with ScriptedModel([reply("yes")]) as model:
        judge = ModelJudge(model)
        assert isinstance(judge, Judge)
        assert judge.ask("decide", "is it?") == "yes"
    sent = model.calls[0]
    assert sent.messages == [{"role": "system", "content": "decide"},
                             {"role": "user", "content": "is it?"}]
    assert sent.tools == []


def test_model_judge_lets_provider_errors_through_for_the_caller_to_fail_closed() -> None:
    failure = ProviderError("down", kind="connection", retryable=True)
    with ScriptedModel([failure]) as model, pytest.raises(ProviderError):
        ModelJudge(model).ask("decide", "is it?")


def test_function_judge_records_what_it_was_asked() -> None:
    judge = FunctionJudge(lambda system, user: user.upper())
    assert judge.ask("s", "abc") == "ABC"
    assert judge.asked == [("s", "abc")]
