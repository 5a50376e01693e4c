""""Berlin is great." only calls Berlin something, as one calls a person: a word no list
knows as a first name is no "he" by it. Read as one, "He no longer works at Globex"
stored "Berlin no longer works at Globex", or left Tom's job held beside it."""

from __future__ import annotations

import pytest
from offline_helpers import chat, core_after, core_of

from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.text.pronoun_subjects import with_pronouns_named


@pytest.mark.parametrize("called", ["Berlin is great.", "Berlin is so beautiful!",
                                    "Lisbon was lovely too."])
def test_a_place_called_something_is_no_he(called: str) -> None:
    said = [called, "He no longer works at Globex."]
    assert with_pronouns_named(said, None) == [called]


def test_the_users_job_stays_and_the_reply_asks_who() -> None:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        replies = chat(memory, "I work at Globex. Berlin is great.",
                       "He no longer works at Globex.")
        assert "User works at Globex" in core_of(memory)
        assert not any("Berlin no longer" in fact for fact in core_of(memory))
        assert 'who "He" is' in replies[-1]


def test_the_one_person_named_beside_the_place_is_he() -> None:
    assert core_after("Tom works at Globex. Berlin is great.",
                      "He no longer works at Globex.") == ["Berlin is great"]


@pytest.mark.parametrize(("called", "named"), [
    ("Tom is great.", "Tom no longer works at Globex."),  # a first name
    ("Zoltan is from Hungary.", "Zoltan no longer works at Globex."),  # says more
])
def test_a_person_called_something_is_still_he(called: str, named: str) -> None:
    said = [called, "He no longer works at Globex."]
    assert with_pronouns_named(said, None) == [called, named]
