"""The offline policy on the speaker's denial joined to a new statement of theirs: "I'm not
vegan, I'm vegetarian" after "I'm vegan" ends "User is vegan", where read whole it was
stored beside it, core holding both "User is vegan" and "User is not vegan, ..."."""

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


@pytest.mark.parametrize(("said", "after"), [
    ("I'm not vegan, I'm vegetarian.", ["User is not vegan", "User is vegetarian"]),
    ("I'm not vegan now, I'm vegetarian", ["User is not vegan", "User is vegetarian"]),
    ("I am not vegan, I eat fish now.", ["User is not vegan", "User: I eat fish"]),
])
def test_the_denial_ends_the_fact_it_denies(memory: HierarchicalMemory, said: str,
                                            after: list[str]) -> None:
    _chat(memory, "I'm vegan.", said)
    assert list(_core(memory)) == after


@pytest.mark.parametrize(("before", "said", "after"), [
    # nothing held is denied: the sentence is one fact, as it was
    ("I'm vegan.", "I'm not tired, I'm hungry.",
     ["User is vegan", "User is not tired, User is hungry"]),
    ("My wife is vegan.", "I'm not vegan, I'm vegetarian.",
     ["User's wife is vegan", "User is not vegan, User is vegetarian"]),
])
def test_a_denial_of_nothing_held_stays_whole(memory: HierarchicalMemory, before: str,
                                              said: str, after: list[str]) -> None:
    _chat(memory, before, said)
    assert list(_core(memory)) == after
