"""The offline policy on a "too" that says only part of what it shares: "My son is
allergic too" and "Shellfish too" after "I'm allergic to peanuts"."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from offline_helpers import chat as _chat
from offline_helpers import core_of as _core

from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.text.ellipses import with_ellipses_filled


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        yield m


@pytest.mark.parametrize(("said", "stored"), [
    (["I'm allergic to peanuts.", "My son is allergic too."],
     ["User is allergic to peanuts", "User's son is allergic to peanuts"]),
    (["I'm allergic to peanuts. My son is allergic too."],
     ["User is allergic to peanuts", "User's son is allergic to peanuts"]),
    (["I'm allergic to peanuts.", "shellfish too."],
     ["User is allergic to peanuts", "User is allergic to shellfish"]),
    (["I'm allergic to peanuts. And eggs as well."],
     ["User is allergic to peanuts", "User is allergic to eggs"]),
    (["I like jazz.", "And blues too."], ["User likes jazz", "User likes blues"]),
    # the statement before, itself filled from the one before it
    (["I'm allergic to peanuts.", "My son is allergic too.", "And shellfish too."],
     ["User is allergic to peanuts", "User's son is allergic to peanuts",
      "User's son is allergic to shellfish"]),
    # a name keeps its capital
    (["I like Muse.", "Blur too."], ["User likes Muse", "User likes Blur"]),
])
def test_what_a_too_leaves_out_is_taken_from_the_statement_before(
        memory: HierarchicalMemory, said: list[str], stored: list[str]) -> None:
    _chat(memory, *said)
    assert list(_core(memory)) == stored


@pytest.mark.parametrize("sentences", [
    # the adjective is another one
    ["I'm allergic to peanuts.", "My son is afraid too."],
])
def test_a_too_the_statement_before_does_not_complete_is_left_as_said(
        sentences: list[str]) -> None:
    assert with_ellipses_filled(sentences) == sentences


@pytest.mark.parametrize("sentences", [
    # a home beside another may be a second one or a move: nothing says which
    ["I live in Lisbon.", "Porto too."],
    # after a question, nothing stated says what is shared
    ["What am I allergic to?", "Shellfish too."],
])
def test_a_word_alone_the_statement_before_does_not_complete_is_dropped(
        sentences: list[str]) -> None:
    # stored as said, "Porto too" would read as a fact
    assert with_ellipses_filled(sentences) == sentences[:1]


def test_me_too_opening_a_message_is_still_dropped(memory: HierarchicalMemory) -> None:
    _chat(memory, "My wife is vegan.", "Me too.")
    assert list(_core(memory)) == ["User's wife is vegan"]
