"""The offline policy on requests to forget ("let me forget that ...", "don't forget about
..."): what they retire and what they keep."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from offline_helpers import chat as _chat
from offline_helpers import core_of as _core

from tiermem.memory import HashingEmbedder, HierarchicalMemory


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        yield m


def test_dont_let_me_forget_that_keeps_the_fact_it_names(memory: HierarchicalMemory) -> None:
    # "forget that" inside it asks to keep, not to forget: nothing held is retired, and the
    # fact said again so is kept for good.
    _chat(memory, "My passport expires in May.",
          "Don't let me forget that my passport expires in May.",
          "Don't let me forget that the visa needs two photos.")
    assert _core(memory) == {"User's passport expires in May": "durable",
                             "the visa needs two photos": "durable"}


@pytest.mark.parametrize("said", ["Let me forget that I live in Lisbon.",
                                  "Let me forget about that, I live in Lisbon."])
def test_let_me_forget_that_retires_the_fact(memory: HierarchicalMemory, said: str) -> None:
    # Not read as "don't let me forget that X", which keeps X: it asks to forget, so the
    # fact is retired and the request is not stored as a quote of itself.
    _chat(memory, "I live in Lisbon.", said)
    assert _core(memory) == {}


@pytest.mark.parametrize("said", ["Let us forget about it.", "Let me forget that."])
def test_let_me_forget_with_nothing_matched_stores_no_quote(memory: HierarchicalMemory,
                                                            said: str) -> None:
    _chat(memory, "I live in Lisbon.", said)
    assert _core(memory) == {"User lives in Lisbon": "durable"}


@pytest.mark.parametrize("said", ["They won't let me forget that I live in Lisbon.",
                                  "Do not let us forget that I live in Lisbon."])
def test_a_negated_let_me_forget_that_retires_nothing(memory: HierarchicalMemory,
                                                      said: str) -> None:
    _chat(memory, "I live in Lisbon.", said)
    assert "User lives in Lisbon" in _core(memory)


@pytest.mark.parametrize("said", ["Don't ever let me forget that I live in Lisbon.",
                                  "Don't let me ever forget that I live in Lisbon.",
                                  "Do not ever forget that I live in Lisbon.",
                                  "Don't just forget that I live in Lisbon.",
                                  "Never, ever forget that I live in Lisbon.",
                                  "I cannot forget that I live in Lisbon."])
def test_a_negation_a_word_or_two_before_forget_that_retires_nothing(
        memory: HierarchicalMemory, said: str) -> None:
    # "ever", "just" or "let me" between the negation and "forget that" still ask to
    # keep what follows: the fact must not be retired.
    _chat(memory, "I live in Lisbon.", said)
    assert "User lives in Lisbon" in _core(memory)


@pytest.mark.parametrize("said", ["It's not you, just forget that I live in Lisbon.",
                                  "Don't worry, just forget that I live in Lisbon."])
def test_a_negation_in_another_clause_leaves_forget_that_a_request(
        memory: HierarchicalMemory, said: str) -> None:
    _chat(memory, "I live in Lisbon.", said)
    assert "User lives in Lisbon" not in _core(memory)


@pytest.mark.parametrize("said", ["Don't forget about my peanut allergy.",
                                  "Remember about my peanut allergy.",
                                  "Please don't forget about my peanut allergy."])
def test_dont_forget_about_my_x_keeps_x_as_dont_forget_my_x_does(memory: HierarchicalMemory,
                                                                  said: str) -> None:
    # "about" after "don't forget" asks for a reminder ("... about the meeting"); about
    # the speaker's own it states what is theirs, as "Don't forget my peanut allergy" does,
    # and is neither lost nor met with the reminder note.
    replies = _chat(memory, said, "What am I allergic to?")
    assert _core(memory) == {"User's peanut allergy": "durable"}
    assert "can't set reminders" not in replies[0]
    assert replies[1] == "(offline, quoting memory)\n- From core memory: User's peanut allergy"


def test_dont_forget_about_a_meeting_is_still_a_reminder(memory: HierarchicalMemory) -> None:
    reply = _chat(memory, "Don't forget about the meeting with Acme.")[0]
    assert _core(memory) == {}
    assert "can't set reminders" in reply


@pytest.mark.parametrize("request_text", [
    "Forget that my locker code is 1234.", "My locker code is 1234, forget that.",
    "I'm not allergic to peanuts anymore, forget that."])
def test_a_request_to_forget_what_core_does_not_hold_stores_nothing(
        memory: HierarchicalMemory, request_text: str) -> None:
    reply = _chat(memory, request_text)[0]
    assert list(_core(memory)) == []
    assert reply == "(offline) Nothing in core memory matched that, so nothing changed."


@pytest.mark.parametrize("said", [("My locker code is 1234.", "Forget my locker code."),
                                  ("My locker code is 1234.", "Forget that.")])
def test_a_forget_request_says_the_fact_stays_in_archival_and_how_to_remove_it(
        memory: HierarchicalMemory, said: tuple[str, str]) -> None:
    # Retired, not removed: a user asking to forget private data is told so, with the way
    # to remove it for good, which then works as told.
    reply = _chat(memory, *said)[-1]
    note = [line for line in reply.splitlines() if "archival as a past fact" in line]
    assert note == ['(offline) I keep "User\'s locker code is 1234" in archival as a past '
                    "fact; to remove it for good: /forget User's locker code is 1234 in the "
                    "chat, or tiermem forget."]
    assert memory.forget("User's locker code is 1234").outcome == "matched"
    assert not memory.archival_search("locker code")


def test_a_retraction_that_asks_no_forgetting_adds_no_archival_note(
        memory: HierarchicalMemory) -> None:
    reply = _chat(memory, "I work at Acme.", "I no longer work at Acme.")[-1]
    assert reply == ("Noted.\n- core -> archival (superseded): User works at Acme "
                     "(core 0/2000 tokens)")


def test_a_share_the_joint_fact_put_back_says_again_is_not_called_a_past_fact(
        memory: HierarchicalMemory) -> None:
    # "Forget that." puts "Tom and User work at Globex" back and retires Tom's share held
    # apart, which is as true as before: only the user's job taken back is a past fact.
    reply = _chat(memory, "Tom and I work at Globex.", "I work at Acme now.", "Forget that.")[-1]
    note = [line for line in reply.splitlines() if "in archival as" in line]
    assert note == ['(offline) I keep "User works at Acme" in archival as a past fact; to '
                    "remove it for good: /forget User works at Acme in the chat, or tiermem "
                    "forget."]


def test_a_fact_read_as_an_option_after_slash_forget_is_not_offered_to_it(
        memory: HierarchicalMemory) -> None:
    # "/forget --erase wipes the disk" would erase "wipes the disk", not forget this fact.
    reply = _chat(memory, "--erase wipes the disk.", "Forget that.")[-1]
    note = [line for line in reply.splitlines() if "in archival as" in line]
    assert note == ['(offline) I keep "--erase wipes the disk" in archival as a past fact; to '
                    "remove it for good: tiermem forget - with its whole text on standard "
                    "input."]
