"""Facts the offline policy stores of the user beside someone of theirs ("my wife and I")."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from offline_helpers import chat, core_of

from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.text.retractions import still_held


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        yield m


@pytest.mark.parametrize("said", [
    "My wife and I moved to Porto.",
    "My wife Ana and I moved to Porto.",
])
def test_forgetting_a_joint_move_leaves_no_fact_of_it(memory: HierarchicalMemory,
                                                      said: str) -> None:
    chat(memory, said, f"Forget that {said[:1].lower()}{said[1:]}")
    assert list(core_of(memory)) == []


def test_forgetting_one_item_of_a_list_keeps_the_others(memory: HierarchicalMemory) -> None:
    chat(memory, "I'm allergic to peanuts and shellfish.", "Forget that I'm allergic to shellfish.")
    assert list(core_of(memory)) == ["User is allergic to peanuts"]


@pytest.mark.parametrize("fact", [
    "User's wife and User moved to Porto",
    "User's wife Ana and User moved to Porto",
])
def test_a_subject_of_two_is_no_list_of_items(fact: str) -> None:
    assert still_held(fact, frozenset({"wif", "ana", "porto", "residence"})) is None
