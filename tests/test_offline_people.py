"""Facts the offline policy stores of the user beside someone of theirs ("my wife and I")."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from offline_helpers import chat, core_of

from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.text.extract import extract_facts
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


@pytest.mark.parametrize(("said", "stored"), [
    (["My wife is vegan. I am too."], ["User's wife is vegan", "User is vegan"]),
    (["My wife is vegan and I am too."], ["User's wife is vegan", "User is vegan"]),
    (["My wife is vegan.", "Me too."], ["User's wife is vegan"]),
    (["My wife likes jazz and I do too."], ["User's wife likes jazz", "User likes jazz"]),
    (["My wife has a dog, and so do I."], ["User's wife has a dog", "User has a dog"]),
    (["Tom is vegan. Me too!"], ["Tom is vegan", "User is vegan"]),
    # Nothing before it says what is shared, or it is another verb: no fact.
    (["I am too."], []),
    (["My wife is vegan. I do too."], ["User's wife is vegan"]),
])
def test_sharing_what_someone_is_is_stored_in_full(memory: HierarchicalMemory,
                                                   said: list[str], stored: list[str]) -> None:
    chat(memory, *said)
    assert list(core_of(memory)) == stored


def test_an_extracted_share_is_told_in_full() -> None:
    assert [fact.text for fact in extract_facts("My wife is vegan. I'm too.")] == [
        "User's wife is vegan", "User is vegan"]
