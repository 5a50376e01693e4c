"""The offline policy on a shared clause after a statement that points at a person: told
of the one sharing it, "me", "my" or "her" would point at someone else ("My wife loves me.
I do too." is no "I love me"), so the clause is dropped and the statement kept."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from offline_helpers import chat as _chat
from offline_helpers import core_of as _core

from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.text.ellipses import with_ellipses_filled
from tiermem.memory.text.sentences import split_sentences


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        yield m


def test_the_user_is_not_said_to_love_themselves(memory: HierarchicalMemory) -> None:
    _chat(memory, "My wife loves me. I do too.")
    assert list(_core(memory)) == ["User: My wife loves me"]


@pytest.mark.parametrize(("said", "kept"), [
    ("My wife loves me. I do too.", "My wife loves me."),
    ("My wife loves me, and I do too.", "My wife loves me"),
    ("My wife is proud of me. I am too.", "My wife is proud of me."),
    ("My wife has my car. So do I.", "My wife has my car."),
    ("My wife loves her job. I do too.", "My wife loves her job."),
    ("I love my job. My wife does too.", "I love my job."),
])
def test_a_clause_whose_words_would_point_elsewhere_is_dropped(said: str, kept: str) -> None:
    assert with_ellipses_filled(split_sentences(said)) == [kept]


@pytest.mark.parametrize(("said", "told"), [
    ("My wife is vegan. I am too.", "I am vegan"),
    ("I like coffee. My wife does too.", "My wife likes coffee"),
    # "me" said by the user is the user, whoever else loves them
    ("Tom loves me. My wife does too.", "My wife loves me"),
])
def test_a_clause_without_such_words_is_still_told_in_full(said: str, told: str) -> None:
    assert with_ellipses_filled(split_sentences(said))[-1] == told
