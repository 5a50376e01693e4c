""""I'm not anymore, but my wife is" after "I'm vegan." ends "User is vegan" and holds the
wife's share: left bare, the denial matched nothing, the user's fact stayed and her share
was lost (or the reply said nothing changed)."""

from __future__ import annotations

import pytest
from offline_helpers import chat, core_after

from tiermem.memory import HashingEmbedder, HierarchicalMemory


def test_a_bare_denial_ends_what_was_said_before_it() -> None:
    assert core_after("I'm vegan.", "I'm not anymore.") == []


def test_whoever_takes_it_over_is_held() -> None:
    assert core_after("I'm vegan.", "I'm not anymore, but my wife is.") == [
        "User's wife is vegan"]
    assert core_after("I am on call.", "I'm not anymore, but Sam is.") == ["Sam is on call"]


def test_the_sentence_before_in_the_same_message_says_what_is_denied() -> None:
    assert core_after("I am on call.", "Priya is on call. I'm not anymore, but Sam is.") == [
        "Priya is on call", "Sam is on call"]


def test_the_reply_does_not_say_nothing_changed() -> None:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        reply = chat(memory, "I'm vegan.", "I'm not anymore, but my wife is.")[-1]
    assert "nothing changed" not in reply


def test_with_nothing_said_before_it_stays_as_said() -> None:
    assert core_after("I'm not anymore.") == []


#: What was held, a bare denial after what a thing of the user's is, and the core after it.
_OF_A_THING_OF_THE_USERS = [
    ("My name is Maya.", "I'm not anymore.", ["User's name is Maya"]),
    ("My manager is Priya.", "I'm not anymore.", ["User's manager is Priya"]),
    ("I'm vegan. My email is maya@example.com.", "I'm not anymore.",
     ["User is vegan", "User's email is maya@example.com"]),
    ("I'm vegan.", "My wife is vegan. I'm not anymore.", ["User's wife is vegan"]),
]


@pytest.mark.parametrize(("held", "said", "now"), _OF_A_THING_OF_THE_USERS)
def test_what_a_thing_of_the_users_is_is_not_what_the_user_was(held: str, said: str,
                                                                now: list[str]) -> None:
    # filled from "My name is Maya", "I'm not anymore" erased the name held
    assert core_after(held, said) == now
