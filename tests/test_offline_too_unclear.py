"""A name or a word alone with "too" that the statement before it cannot be told with
("Tom too." after "I like Muse.", "Sam too." after "I work with Tom.") stores no fact,
neither a guess nor the fragment as said, and the reply says why and what to do."""

from __future__ import annotations

import pytest
from offline_helpers import chat, core_after, core_of

from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.text.ellipses import with_ellipses_filled
from tiermem.memory.text.given_names import is_first_name


@pytest.mark.parametrize(("before", "sharing"), [
    ("I like Muse.", "Tom too."),
    ("I work with Tom.", "Sam too."),
    ("I live in Lisbon.", "Porto too."),
    ("I'm allergic to peanuts.", "Shellfish too."),
])
def test_an_unclear_share_stores_nothing_and_says_why(before: str, sharing: str) -> None:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        reply = chat(memory, before, sharing)[1]
        assert sorted(core_of(memory)) == core_after(before)
    assert f'"{sharing}" alone does not say who shares what' in reply
    assert "say it in full" in reply


def test_a_share_alone_opening_the_talk_is_no_fact() -> None:
    assert core_after("Sam too.") == []


def test_a_band_beside_a_band_is_still_liked() -> None:
    assert with_ellipses_filled(["I like Muse.", "Blur too."]) == ["I like Muse.", "I like Blur"]
    assert with_ellipses_filled(["I like Muse.", "Tom too."]) == ["I like Muse."]
    assert is_first_name("Tom") and not is_first_name("Blur")


@pytest.mark.parametrize(("said", "kept"), [
    ("The API is down. Tom too.", "Tom too."),
    ("I'm busy today. Tomorrow too.", "Tomorrow too."),
])
def test_a_share_dropped_beside_a_fact_stored_is_still_told(said: str, kept: str) -> None:
    # the fact beside it is noted, so a reply saying only that hides what was not stored
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        reply = chat(memory, said)[0]
        assert len(core_of(memory)) == 1
    assert f'"{kept}" alone does not say who shares what' in reply


def test_a_share_told_in_full_is_not_said_to_be_dropped() -> None:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        reply = chat(memory, "I'm allergic to peanuts. Tree nuts too.")[0]
        assert "User is allergic to tree nuts" in core_of(memory)
    assert "alone does not say" not in reply


def test_every_share_dropped_is_told() -> None:
    # naming only the first, the reply let "The cache too." go unstored without a word
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        reply = chat(memory, "The API is down. Tom too. Sam too.")[0]
    assert '"Tom too." and "Sam too." alone do not say' in reply
