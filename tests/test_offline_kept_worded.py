"""The offline policy on requests to keep a thing worded otherwise than "Keep my PIN"
("Keep my PIN safe", "Make sure you remember my PIN"), of a thing held or not, and on
"Remember not to share my PIN"."""

from __future__ import annotations

import pytest
from offline_helpers import chat as _chat
from offline_helpers import core_of as _core

from tiermem.agent.offline import KEPT_NOTE, REMINDER_NOTE
from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.text.keep_requests import as_keep_request


def _after_pin(said: str) -> tuple[str, list[str]]:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        reply = _chat(memory, "My PIN is 1234.", said)[-1]
        return reply, sorted(_core(memory))


@pytest.mark.parametrize("said", ["Keep my PIN safe.", "Keep my PIN secret.",
                                  "Remember not to forget my PIN.", "Make sure to keep my PIN.",
                                  "Make sure you remember my PIN.",
                                  "Remember to keep my PIN safe, please.",
                                  # how it is kept, or a word beside it that leaves it the
                                  # PIN held: stored "Keep User's PIN forever", "Keep User's
                                  # PIN code", "User's PIN forever" beside the PIN
                                  "Keep my PIN forever.", "Keep my PIN handy.",
                                  "Keep my PIN on file.", "Keep my PIN in mind.",
                                  "Remember my PIN forever.", "Keep my PIN code.",
                                  "Keep my new PIN.", "Keep my PIN number safe.",
                                  "Remember my new PIN.",
                                  # stored "Hold on to User's PIN" beside the PIN
                                  "Hold on to my PIN.", "Hang onto my PIN.",
                                  "Keep hold of my PIN, please.", "Hold on to my PIN safe."])
def test_keeping_a_thing_held_changes_nothing_and_says_so(said: str) -> None:
    # each was stored as itself ("Keep User's PIN safe", "not to forget User's PIN")
    assert _after_pin(said) == (KEPT_NOTE, ["User's PIN is 1234"])


@pytest.mark.parametrize("said", ["Keep my address.", "Keep my address, please.",
                                  # stored "Keep User's address handy"
                                  "Keep my address handy.",
                                  # stored "Hold on to User's address"
                                  "Hold on to my address.", "Please hang on to my address."])
def test_keeping_a_thing_not_held_keeps_nothing_and_says_so(said: str) -> None:
    # stored "Keep User's address"
    reply, core = _after_pin(said)
    assert core == ["User's PIN is 1234"]
    assert "nothing about your address" in reply


@pytest.mark.parametrize("said", ["Keep my seat.", "Keep my answers brief.", "Keep my dog inside.",
                                  "Keep my PIN 4321.", "Keep my new car.", "Keep my word.",
                                  "Hold on to my hand.", "Hold on to my seat."])
def test_keeping_what_is_no_detail_is_not_answered_as_nothing_held(said: str) -> None:
    # each was answered "I hold nothing about your seat (answers brief, PIN forever)"
    reply, core = _after_pin(said)
    assert "hold nothing" not in reply
    assert len(core) == 2


@pytest.mark.parametrize("said", ["Remember not to share my PIN.",
                                  "Make sure you don't share my PIN with anyone."])
def test_not_to_share_is_stored_as_the_users_wish(said: str) -> None:
    # stored "not to share User's PIN"
    assert _after_pin(said)[1] == ["User doesn't want User's PIN shared", "User's PIN is 1234"]


@pytest.mark.parametrize("said", ["Remember to keep my receipts.", "Remember to save my work."])
def test_a_task_to_keep_a_thing_not_held_is_still_a_reminder(said: str) -> None:
    assert _after_pin(said) == (REMINDER_NOTE, ["User's PIN is 1234"])


@pytest.mark.parametrize("said", ["Keep my kids safe.", "Remember to buy milk.",
                                  "Remember not to share the cake."])
def test_other_wishes_are_left_as_said(said: str) -> None:
    assert as_keep_request(said, ["User's PIN is 1234"]) == said


@pytest.mark.parametrize("said", ["Keep my PIN - wait.", "Keep my PIN, no wait.",
                                  "Remember my PIN, wait.",
                                  # "no wait." said as a sentence of its own was stored
                                  "Keep my PIN; no wait.", "Keep my PIN... no wait."])
def test_keeping_a_thing_held_then_waiting_changes_nothing(said: str) -> None:
    # stored "Keep User's PIN - wait", "Keep User's PIN, no wait"
    assert _after_pin(said) == (KEPT_NOTE, ["User's PIN is 1234"])


@pytest.mark.parametrize("said", ["Remember my PIN, no, wait, it's 4321.",
                                  "Keep my PIN - no wait, it is 4321."])
def test_what_a_thing_kept_is_said_to_be_after_waiting_replaces_it(said: str) -> None:
    # stored "User's PIN, no, wait, it's 4321" beside the PIN 1234
    assert _after_pin(said)[1] == ["User's PIN is 4321"]


@pytest.mark.parametrize("said", ["Don't share my PIN.", "Never share my PIN.",
                                  "Please don't share my PIN with anyone.",
                                  "Don't ever share my address."])
def test_do_not_share_is_stored_as_the_users_wish(said: str) -> None:
    # stored "Don't share User's PIN", "Never share User's PIN"
    thing = "address" if "address" in said else "PIN"
    assert f"User doesn't want User's {thing} shared" in _after_pin(said)[1]


@pytest.mark.parametrize("said", ["Don't share my screen.", "Never share my toys.",
                                  "Don't share my PIN yet."])
def test_do_not_share_what_is_no_detail_is_left_as_said(said: str) -> None:
    assert as_keep_request(said, ["User's PIN is 1234"]) == said


@pytest.mark.parametrize("said", ["Remember my address.", "Don't forget my address.",
                                  "Never forget my address, please."])
def test_remembering_a_detail_not_held_keeps_nothing_and_says_so(said: str) -> None:
    # stored "User's address"
    reply, core = _after_pin(said)
    assert core == ["User's PIN is 1234"]
    assert "nothing about your address" in reply


def test_a_question_is_left_as_asked() -> None:
    assert as_keep_request("Remember my address?") == "Remember my address?"


@pytest.mark.parametrize("said", ["Keep my sister safe.", "Keep my sister safe and sound."])
def test_keeping_someone_held_safe_is_a_wish_as_of_someone_not_held(said: str) -> None:
    # answered "nothing changed", where "Keep my brother safe" of no brother held and
    # "Keep my kids safe" are stored as said
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        reply = _chat(memory, "My sister is Ana.", said)[-1]
        assert sorted(_core(memory)) == [f"Keep User's {said[8:-1]}", "User's sister is Ana"]
    assert reply != KEPT_NOTE
    assert as_keep_request(said, ["User's sister is Ana"]) == said


def test_keeping_what_is_held_of_someone_secret_changes_nothing() -> None:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        reply = _chat(memory, "My sister is Ana.", "Keep my sister secret.")[-1]
        assert sorted(_core(memory)) == ["User's sister is Ana"]
    assert reply == KEPT_NOTE


@pytest.mark.parametrize(("said", "thing"), [("my PIN", "PIN"), ("My email!", "email"),
                                             ("my home address.", "home address"),
                                             ("My PIN, please.", "PIN")])
def test_a_secret_or_detail_named_alone_is_stored_as_no_fact(said: str, thing: str) -> None:
    # Each was stored as a fact with no value ("User's PIN"), beside the PIN told or for one
    # never told; now it is asked for, as "Keep my PIN." of nothing held is.
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        reply = _chat(memory, said)[-1]
        assert not _core(memory)
        assert f"I hold nothing about your {thing}, so nothing was kept" in reply, reply
    assert _after_pin(said.replace("email", "PIN").replace("home address", "PIN"))[1] == \
        ["User's PIN is 1234"]


@pytest.mark.parametrize("said", ["my brother", "My PIN is 4321.", "Don't forget my umbrella."])
def test_what_is_no_secret_or_detail_alone_is_still_stored(said: str) -> None:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        _chat(memory, said)
        assert len(_core(memory)) == 1


@pytest.mark.parametrize(("held", "said", "named"), [
    # "Keep User's sister's number" was stored beside the user's own number
    ("My number is 555-1234.", "Keep my sister's number safe.", "your sister's number"),
    ("My number is 555-1234.", "Keep my sister's number.", "your sister's number"),
    ("My number is 555-1234.", "my sister's number", "your sister's number"),
    ("My name is Tom.", "Keep my sister's name safe.", "your sister's name"),
])
def test_someones_detail_is_not_the_users_own_held(held: str, said: str, named: str) -> None:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        reply = _chat(memory, held, said)[-1]
        assert sorted(_core(memory)) == [f"User's {held[3:-1]}"]
    assert f"nothing about {named}" in reply


def test_someones_detail_held_is_kept_as_it_is() -> None:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        reply = _chat(memory, "My sister's number is 555-0199.",
                      "Keep my sister's number safe.")[-1]
        assert sorted(_core(memory)) == ["User's sister's number is 555-0199"]
    assert reply == KEPT_NOTE
