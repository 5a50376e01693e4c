"""The offline policy on sentences about forgetting that ask nothing to be forgotten, or
forget with "this": "Never forget that.", "Oh no, I forgot that.", "Forget this."."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from offline_helpers import chat as _chat
from offline_helpers import core_and_reply
from offline_helpers import core_of as _core

from tiermem.agent.offline import KEPT_NOTE
from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.text.extract import extract_facts


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        yield m


@pytest.mark.parametrize("said", ["Never forget that.", "Never ever forget it!",
                                  "Don't ever forget this.", "Please remember this.",
                                  # each was stored as itself ("Keep that")
                                  "Keep that.", "Hold on to that.", "Hang onto that.",
                                  "Keep it, please.", "Save that.", "Keep hold of this."])
def test_a_bare_request_to_keep_stores_nothing_and_says_so(memory: HierarchicalMemory,
                                                           said: str) -> None:
    replies = _chat(memory, "I'm vegan.", said)
    assert _core(memory) == {"User is vegan": "durable"}
    assert replies[-1] == KEPT_NOTE


@pytest.mark.parametrize("said", ["Keep it down.", "Hold on to that thought.",
                                  "Save it for later.", "Hold on to your hats."])
def test_keeping_it_with_more_said_is_stored(memory: HierarchicalMemory, said: str) -> None:
    _chat(memory, said)
    assert list(_core(memory)) == [said.rstrip(".")]


def test_never_forget_that_x_stores_x() -> None:
    assert [f.text for f in extract_facts("Never forget that my wife is allergic to nuts.")
            ] == ["User's wife is allergic to nuts"]


@pytest.mark.parametrize("said", ["Forget this.", "Oh, forget this, please."])
def test_forget_this_is_forget_that(memory: HierarchicalMemory, said: str) -> None:
    _chat(memory, "I live in Lisbon.", "I'm vegan.", said)
    assert _core(memory) == {"User lives in Lisbon": "durable"}


@pytest.mark.parametrize("said", ["Oh no, I forgot that.", "I totally forgot about it."])
def test_saying_one_forgot_it_is_no_request_and_no_fact(memory: HierarchicalMemory,
                                                        said: str) -> None:
    _chat(memory, "I'm vegan.", said)
    assert _core(memory) == {"User is vegan": "durable"}


def test_what_one_forgot_when_named_is_still_told(memory: HierarchicalMemory) -> None:
    _chat(memory, "I forgot my keys at home.")
    assert _core(memory) == {"User: I forgot my keys at home": "short-lived"}


@pytest.mark.parametrize(("held", "said"), [
    ("My PIN is 1234.", "Don't forget my PIN."), ("My PIN is 1234.", "Keep my PIN."),
    ("My PIN is 1234.", "Please remember my PIN!"),
    ("My sister lives in Berlin.", "Don't forget my sister."),
])
def test_a_request_to_keep_a_thing_held_changes_nothing(memory: HierarchicalMemory, held: str,
                                                        said: str) -> None:
    # read as a statement, it was stored as "User's PIN" or "Keep User's PIN"
    _chat(memory, held)
    before = _core(memory)
    assert _chat(memory, said) == [KEPT_NOTE]
    assert _core(memory) == before


@pytest.mark.parametrize(("held", "said", "stored"), [
    ("My PIN is 1234.", "Don't forget my umbrella tomorrow.", "User's umbrella tomorrow"),
    # a reminder of the thing held, not a request to keep it
    ("My umbrella is red.", "Don't forget my umbrella tomorrow.", "User's umbrella tomorrow"),
])
def test_a_reminder_of_a_thing_is_still_stored(memory: HierarchicalMemory, held: str,
                                               said: str, stored: str) -> None:
    _chat(memory, held, said)
    assert stored in _core(memory)


@pytest.mark.parametrize(("held", "said"), [
    # each was stored as a fact: "Keep that in mind, please", "Keep User's old PIN"
    ("My PIN is 1234.", "Keep that in mind, please."),
    ("My PIN is 1234.", "Keep it secret."),
    ("My PIN is 1234.", "Keep my old PIN."),
    ("My sister's number is 555-0199.", "Keep my sister's number safe."),
])
def test_a_request_to_keep_what_is_held_changes_nothing(held: str, said: str) -> None:
    core, reply = core_and_reply(held, said)
    assert core == sorted(fact.text for fact in extract_facts(held))
    assert reply == KEPT_NOTE


def test_a_detail_of_someone_s_held_by_no_fact_is_kept_by_none() -> None:
    # "Keep User's sister's number safe" was stored
    core, reply = core_and_reply("My boss is Ann.", "Keep my sister's number safe.")
    assert core == ["User's boss is Ann"]
    assert "I hold nothing about your sister's number" in reply


def test_keeping_someone_safe_is_still_a_wish() -> None:
    assert core_and_reply("Keep my kids safe.")[0] == ["Keep User's kids safe"]
