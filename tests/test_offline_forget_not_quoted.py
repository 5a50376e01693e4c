"""The offline policy never quotes a request to forget as the answer to a question: it is
no evidence of anything, and quoting it would say again what the user asked not to keep."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from offline_helpers import chat

from tiermem.agent.offline_answers import NOTHING_CURRENT
from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.text.forget_requests import asks_to_forget, beside_the_request, not_taken_back


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        yield m


@pytest.mark.parametrize("request_to_forget", ["Forget that I live in Porto.",
                                               "Delete my address.",
                                               "Forget that."])
def test_a_request_to_forget_does_not_answer_where_i_live(memory: HierarchicalMemory,
                                                          request_to_forget: str) -> None:
    reply = chat(memory, "I live in Porto.", request_to_forget, "Where do I live?")[-1]
    assert request_to_forget not in reply
    assert reply == NOTHING_CURRENT


def test_a_request_to_forget_is_no_evidence_about_the_past(memory: HierarchicalMemory) -> None:
    reply = chat(memory, "I live in Porto.", "Forget that I live in Porto.",
                 "Where did I live before?")[-1]
    assert "Forget that" not in reply
    assert "User lives in Porto" in reply  # the past fact itself, labelled superseded


def test_a_request_to_forget_beside_a_statement_keeps_the_statement(
        memory: HierarchicalMemory) -> None:
    reply = chat(memory, "I live in Porto.", "Forget that I live in Porto. I live in Faro.",
                 "Where do I live?")[-1]
    assert "Forget that" not in reply
    assert "Faro" in reply


def test_a_fact_still_held_is_answered(memory: HierarchicalMemory) -> None:
    reply = chat(memory, "I live in Porto.", "Where do I live?")[-1]
    assert "User lives in Porto" in reply


@pytest.mark.parametrize(("statement", "question"), [
    ("People often forget that I'm deaf.", "Am I deaf?"),
    ("Don't let anyone forget that I'm allergic to peanuts.", "Am I allergic to peanuts?"),
])
def test_others_forgetting_is_no_request_and_still_answers(
        memory: HierarchicalMemory, statement: str, question: str) -> None:
    # Only a "forget that" said to the assistant asks to forget; told of others, it states.
    reply = chat(memory, statement, question)[-1]
    assert statement in reply


@pytest.mark.parametrize("sentence", ["I live in Faro, so forget that I said Porto.",
                                      "OK thanks, forget it please", "Forget this."])
def test_a_request_said_to_the_assistant_is_one(sentence: str) -> None:
    assert asks_to_forget(sentence)


@pytest.mark.parametrize("sentence", ["People often forget that I'm deaf.",
                                      "Don't let anyone forget that I'm allergic.",
                                      "Please don't forget that.", "I never forget my keys."])
def test_a_sentence_telling_of_forgetting_is_no_request(sentence: str) -> None:
    assert not asks_to_forget(sentence)


@pytest.mark.parametrize(("messages", "answer"), [
    (("I live in Porto.", "I moved to Faro, so forget that I live in Porto.", "Where do I live?"),
     "I moved to Faro"),
    (("Forget it, the deploy is on Friday.", "When is the deploy?"), "The deploy is on Friday"),
])
def test_a_statement_beside_a_request_in_one_sentence_still_answers(
        memory: HierarchicalMemory, messages: tuple[str, ...], answer: str) -> None:
    reply = chat(memory, *messages)[-1]
    assert answer in reply
    assert "orget" not in reply


def test_what_a_bare_request_points_back_at_is_not_quoted(memory: HierarchicalMemory) -> None:
    reply = chat(memory, "My address is 12 Rua Augusta, forget that.", "What is my address?")[-1]
    assert "Augusta" not in reply


@pytest.mark.parametrize(("sentence", "beside"), [
    ("I moved to Faro, so forget that I live in Porto.", "I moved to Faro"),
    ("Forget that I live in Porto, I live in Faro.", "I live in Faro"),
    ("My flight is at 7pm, forget that, my flight is at 9pm", "My flight is at 9pm"),
    ("My address is 12 Rua Augusta, forget that.", ""),
    ("Forget my sister, she lives in Paris.", ""),
])
def test_beside_the_request(sentence: str, beside: str) -> None:
    assert beside_the_request(sentence) == beside


@pytest.mark.parametrize("message", ["My locker code is 1234. Please forget it.",
                                     "My locker code is 1234; forget that."])
def test_a_statement_taken_back_in_its_own_message_is_not_quoted(
        memory: HierarchicalMemory, message: str) -> None:
    reply = chat(memory, message, "What is my locker code?")[-1]
    assert "1234" not in reply


def test_not_taken_back_keeps_what_no_bare_request_follows() -> None:
    sentences = ["I live in Faro.", "My locker code is 1234.", "Please forget it."]
    assert not_taken_back(sentences) == ["I live in Faro."]
