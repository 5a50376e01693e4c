""""Forget it" beside a remark that a thing of the speaker's is fine as it is ("Forget it,
my PIN is fine") says "never mind": nothing is taken back, and the remark is no new value."""

from __future__ import annotations

import pytest
from offline_helpers import chat, core_after, core_of

from tiermem.memory import HashingEmbedder, HierarchicalMemory


@pytest.mark.parametrize(("held", "said"), [
    # read as the PIN's new value, "User's PIN is fine" ended "User's PIN is 1234"
    ("My PIN is 1234.", "Forget it, my PIN is fine."),
    ("My PIN is 1234.", "Forget that, my PIN stays."),
    ("My address is 5 Glass Street.", "Forget it, my address is correct."),
    ("My sister is Ana.", "Forget it, my sister is fine now."),
    # read as the new state of what the fact held named, or of a secret, "fine" lost it
    ("My job is at Acme.", "Forget it, my job is fine."),
    ("My job is at Acme.", "Forget it, my job is fine now."),
    ("My favourite colour is blue.", "Forget it, my favourite colour is fine."),
    ("My diet is vegan.", "Forget it. My diet is fine."),
    ("My password is hunter.", "Forget it, my password is fine now."),
    ("My wifi password is sunflower.", "Forget it. My wifi password is fine now."),
])
def test_what_is_fine_as_it_is_is_kept(held: str, said: str) -> None:
    assert core_after(held, said) == [f"User's {held.removeprefix('My ').rstrip('.')}"]


def test_it_says_nothing_changed() -> None:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        reply = chat(memory, "My PIN is 1234.", "Forget it, my PIN is fine.")[-1]
    assert "nothing changed" in reply


def test_a_new_value_still_takes_the_last_back() -> None:
    assert core_after("My PIN is 1234.", "Forget it, my PIN is 4321.") == ["User's PIN is 4321"]


@pytest.mark.parametrize(("held", "said", "now"), [
    # kept as a "never mind", the sister stayed sick and the server down
    ("My sister is sick.", "Forget it, my sister is fine now.", "User's sister is fine"),
    ("My server is down.", "Forget that, my server is fine now.", "User's server is fine"),
    ("My knee is injured.", "Forget about it, my knee is alright now.",
     "User's knee is alright now"),
])
def test_fine_after_a_state_held_is_its_new_state(held: str, said: str, now: str) -> None:
    assert core_after(held, said) == [now]


@pytest.mark.parametrize("said", [
    "Forget it. My PIN is fine.", "Forget that. My PIN is correct.",
    # stored beside it, "User's PIN is fine" said nothing of the PIN
    "Never mind, my PIN is fine.", "Never mind. My PIN is fine.", "No worries, my PIN is fine.",
])
def test_a_never_mind_beside_fine_changes_nothing(said: str) -> None:
    # read apart, "Forget it." took back "My PIN is 1234" and "fine" was stored
    assert core_after("My PIN is 1234.", said) == ["User's PIN is 1234"]


@pytest.mark.parametrize("said", ["Forget it. My server is fine now.",
                                  "Never mind, my server is fine now."])
def test_fine_in_two_sentences_after_a_state_is_its_new_state(said: str) -> None:
    assert core_after("My server is down.", said) == ["User's server is fine"]


def test_never_mind_beside_fine_keeps_what_names_the_thing() -> None:
    # read as a new state, "fine" ended "at Acme"
    assert core_after("My job is at Acme.", "Never mind, my job is fine.") == [
        "User's job is at Acme"]


def test_fine_as_held_already_changes_nothing() -> None:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        reply = chat(memory, "My mood is fine.", "Forget it, my mood is fine now.")[-1]
        assert sorted(core_of(memory)) == ["User's mood is fine"]
    assert "nothing changed" in reply
