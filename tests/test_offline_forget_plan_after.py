"""The offline policy on a request to forget followed by what the speaker will do with what
goes ("Forget my password, I'll reset it"): nothing of it is stored, as a quote without
the thing it points back at would say nothing."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from offline_helpers import chat as _chat
from offline_helpers import core_of as _core

from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.text.forget_requests import beside_the_request, each_named_apart


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        yield m


@pytest.mark.parametrize(("told", "said"), [
    ("My password is hunter2.", "Forget my password, I'll reset it"),
    ("My sister is Ana.", "Forget my sister, I'll call her later."),
    ("My password is hunter2.", "Forget my password, I will send you a new one."),
    ("My password is hunter2.", "Forget my password; I will send you a new one."),
    ("My sister is Ana.", "Forget my sister. I'll call her later."),
    ("My PIN is 4321.", "Forget my PIN, I'll change it in 2 days."),
])
def test_the_plan_is_not_stored(memory: HierarchicalMemory, told: str, said: str) -> None:
    _chat(memory, "I'm vegan.", told, said)
    assert _core(memory) == {"User is vegan": "durable"}
    assert beside_the_request(said) == ""


def test_a_plan_of_news_beside_it_is_still_stored(memory: HierarchicalMemory) -> None:
    _chat(memory, "My gym is FitCo.", "Forget my gym, I'll be in Berlin next week.")
    assert _core(memory) == {"User: I'll be in Berlin next week": "short-lived"}
    assert each_named_apart(["Forget the meeting, I live in Lisbon now."]) == [
        "Forget the meeting.", "I live in Lisbon now."]


@pytest.mark.parametrize("said", [
    "Forget my phone number, I'll text you from the new one, 555-0199.",
    "Please forget my phone number, I'll text you from the new one: 555-0199",
    "Forget my phone number; I'll text you from the new one, 555-0199.",
    "Forget my phone number. I'll text you from the new one: 555-0199",
    "Forget my phone number, I'll change it to 555-0199.",
])
def test_a_plan_with_a_new_value_keeps_the_value(memory: HierarchicalMemory,
                                                  said: str) -> None:
    _chat(memory, "I'm vegan.", "My phone number is 555-0100.", said)
    assert _core(memory) == {"User is vegan": "durable",
                             "User's phone number is 555-0199": "durable"}


@pytest.mark.parametrize("told", [(), ("My phone number is 555-0100.",)])
@pytest.mark.parametrize("said", ["Forget my phone number, I'll text you from 555-0199.",
                                  "Forget my phone number. I'll text you from 555-0199."])
def test_a_number_to_be_reached_from_is_the_new_one(memory: HierarchicalMemory,
                                                    told: tuple[str, ...], said: str) -> None:
    _chat(memory, "I'm vegan.", *told, said)
    assert _core(memory) == {"User is vegan": "durable",
                             "User's phone number is 555-0199": "durable"}


def test_only_a_number_or_email_of_what_goes_is_a_new_one() -> None:
    assert each_named_apart(["Forget my email, I'll write from bob@example.com."]) == [
        "Forget my email.", "My email is bob@example.com."]
    for said in ["Forget my address, I'll text you from 555-0199.",
                 "Forget my phone number, I'll call you at 5pm."]:
        assert each_named_apart([said]) == [said]  # no new value is made of it
