"""A statement that says the one before it was wrong replaces it, and loses nothing new."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from offline_helpers import chat, core_of

from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.text.statements import Statement, read_statement


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        yield m


@pytest.mark.parametrize(("sentence", "expected"), [
    ("No, my son is Eva.", Statement("My son is Eva.", "no")),
    ("Nope - my son is Eva.", Statement("My son is Eva.", "nope")),
    ("I meant my son is Eva.", Statement("My son is Eva.", "i meant")),
    ("No, I meant I live in Porto.", Statement("I live in Porto.", "no, i meant")),
    # No statement of the speaker's follows: nothing is said to be wrong.
    ("No one told me.", Statement("No one told me.")),
    ("I meant it.", Statement("I meant it.")),
    ("I meant to call you.", Statement("I meant to call you.")),
])
def test_no_and_i_meant_open_a_correction(sentence: str, expected: Statement) -> None:
    assert read_statement(sentence) == expected


@pytest.mark.parametrize("cue", ["No, ", "Sorry, ", "Actually, ", "I meant ", "Oops, "])
@pytest.mark.parametrize(("first", "then", "left"), [
    ("My son is Ana.", "my son is Eva.", "User's son is Eva"),
    ("My brother is Tom.", "my brother is Sam.", "User's brother is Sam"),
    ("My friend is Tom.", "my friend is Sam.", "User's friend is Sam"),
    ("My cousin is Ana.", "my cousin is Eva.", "User's cousin is Eva"),
    ("My son's name is Ana.", "my son's name is Eva.", "User's son's name is Eva"),
])
def test_a_second_name_said_as_a_correction_replaces_the_first(
        memory: HierarchicalMemory, cue: str, first: str, then: str, left: str) -> None:
    chat(memory, first, cue + then)
    assert list(core_of(memory)) == [left]
