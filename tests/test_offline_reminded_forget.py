"""The offline policy on requests to forget worded as a thing to keep in mind ("Remember
to forget my PIN", "Keep my PIN out of memory"): each forgets as "Forget my PIN." does."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from offline_helpers import chat as _chat
from offline_helpers import core_of as _core

from tiermem.agent.offline import KEPT_NOTE, REMINDER_NOTE
from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.text.reminded_requests import as_forget_request


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        yield m


def _forgot(said: str) -> tuple[str, dict[str, str]]:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        reply = _chat(m, "My PIN is 1234.", said)[-1]
        return reply, _core(m)


@pytest.mark.parametrize("said", [
    "Remember to forget my PIN.", "Don't forget to delete my PIN.", "Remember: forget my PIN.",
    "Don't forget my PIN, delete it.", "Remember not to keep my PIN.",
    "Keep my PIN out of memory.", "Please make sure you forget my PIN.",
    "Make sure to delete my PIN.", "Remember, forget my PIN.", "Never forget to delete my PIN.",
    "Make sure you don't keep my PIN.", "Keep my PIN off the record.",
    "Oh, and remember to forget my PIN!",
])
def test_a_request_to_forget_worded_as_a_reminder_forgets(said: str) -> None:
    # read as a reminder or a statement, the PIN stayed, and some stored the request too
    assert _forgot(said) == _forgot("Forget my PIN.")
    assert _forgot(said)[1] == {}


@pytest.mark.parametrize("said", ["Keep forgetting my PIN?", "Did you forget my PIN?",
                                  "Remember to forget my PIN?", "Don't forget my PIN.",
                                  "Keep my PIN.", "Remember my PIN is 1234."])
def test_questions_and_keep_requests_forget_nothing(memory: HierarchicalMemory,
                                                    said: str) -> None:
    _chat(memory, "My PIN is 1234.", said)
    assert list(_core(memory)) == ["User's PIN is 1234"]


def test_a_keep_request_still_says_so(memory: HierarchicalMemory) -> None:
    assert _chat(memory, "My PIN is 1234.", "Don't forget my PIN.")[-1] == KEPT_NOTE


@pytest.mark.parametrize("said", ["Don't forget to buy milk.", "Remember to delete my old emails.",
                                  "Remember to delete my PIN from the spreadsheet."])
def test_a_reminder_of_a_task_is_still_one(memory: HierarchicalMemory, said: str) -> None:
    assert _chat(memory, "My PIN is 1234.", said)[-1] == REMINDER_NOTE
    assert list(_core(memory)) == ["User's PIN is 1234"]


@pytest.mark.parametrize(("said", "held", "told"), [
    ("Remember to forget my PIN.", [], "Forget my PIN."),
    ("Don't forget to delete my sister.", ["User's sister lives in Berlin"], "Delete my sister."),
    ("Don't forget to delete my sister.", [], "Don't forget to delete my sister."),
    ("Keep my dog out of the kitchen.", [], "Keep my dog out of the kitchen."),
    ("Make sure to lock the door.", [], "Make sure to lock the door."),
    ("Remember not to share my PIN.", [], "Remember not to share my PIN."),
])
def test_said_as_the_request(said: str, held: list[str], told: str) -> None:
    assert as_forget_request(said, held) == told


@pytest.mark.parametrize(("fact", "said"), [
    ("My address is 5 Oak Road.", "Don't forget to delete my address."),
    ("My sister is Ana.", "Remember to delete my sister."),
    ("My phone number is 555-1234.", "Make sure to erase my phone number."),
])
def test_deleting_a_thing_held_is_no_reminder(fact: str, said: str) -> None:
    # once retired, the thing was no longer held, and the reply told of a reminder too
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        reply = _chat(m, fact, said)[-1]
        assert _core(m) == {}
    assert REMINDER_NOTE not in reply
    assert "core -> archival" in reply


@pytest.mark.parametrize("said", ["Reminder: forget my PIN.", "Reminder: delete my PIN.",
                                  "Remember my PIN, no wait, forget it.",
                                  "Keep my PIN - wait, on second thought, delete it."])
def test_a_reminder_or_a_change_of_mind_forgets(said: str) -> None:
    # "Reminder:" stored "Reminder: forget User's PIN" beside the PIN; "no wait" kept it
    assert _forgot(said) == _forgot("Forget my PIN.")
    assert _forgot(said)[1] == {}


@pytest.mark.parametrize("said", ["Remember to forget about work this weekend.",
                                  "Don't forget to forget the past.", "Remember to forget my ex.",
                                  "Make sure you forget nothing."])
def test_forgetting_a_thing_not_held_is_no_request(said: str) -> None:
    # each was read as a request to forget, answered "Nothing in core memory matched that"
    assert as_forget_request(said, ["User's PIN is 1234"]) == said


def test_forgetting_it_forgets_what_is_held() -> None:
    assert as_forget_request("Remember to forget it.", ["User's PIN is 1234"]) == "Forget it."
    assert as_forget_request("Remember to forget it.", []) == "Remember to forget it."


@pytest.mark.parametrize("said", ["Note to self: forget the PIN.", "Note to self - delete my PIN."])
def test_a_note_to_self_to_forget_forgets(said: str) -> None:
    # stored "forget the PIN" beside the PIN, which stayed
    assert _forgot(said)[1] == {}


@pytest.mark.parametrize("said", ["Keep my PIN, forget my address.",
                                  "Keep my PIN but forget my address.",
                                  "Keep my PIN and delete my address, please."])
def test_keeping_one_thing_and_forgetting_another_forgets_the_other(
        memory: HierarchicalMemory, said: str) -> None:
    # the sentence was stored as a fact and the address kept
    _chat(memory, "My PIN is 1234.", "My address is 5 Oak Road.", said)
    assert list(_core(memory)) == ["User's PIN is 1234"]


@pytest.mark.parametrize("said", ["Keep my head, forget my troubles.",
                                  "Keep my PIN, forget the rest."])
def test_keeping_one_thing_and_no_other_named_is_no_request(said: str) -> None:
    assert as_forget_request(said, ["User's PIN is 1234"]) == said
