"""A relative's lasting state (a pregnancy, being married, being retired) ends only with
one of its own kind: "My wife is tired now" leaves "pregnant", while passing states
("sick", "better") and a thing's states still end each other."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from offline_helpers import chat, core_of

from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.text.updates import replaces


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        yield m


def test_a_passing_state_leaves_a_pregnancy(memory: HierarchicalMemory) -> None:
    chat(memory, "My wife is pregnant.", "My wife is tired now.")
    assert sorted(core_of(memory)) == ["User's wife is pregnant", "User's wife is tired"]


@pytest.mark.parametrize(("new", "old"), [
    ("User's wife is tired", "User's wife is pregnant"),
    ("User's brother is tired", "User's brother is married"),
    ("User's father is sick", "User's father is retired"),
    ("User's wife is pregnant", "User's wife is vegan"),
    ("User's brother is married", "User's wife is tired"),
])
def test_a_lasting_state_stays_beside_another_kind(new: str, old: str) -> None:
    assert not replaces(new, old, "now")


@pytest.mark.parametrize(("new", "old"), [
    ("User's brother is married", "User's brother is engaged"),
    ("User's father is retired", "User's father is unemployed"),
    ("User's wife is vegetarian", "User's wife is vegan"),
    ("User's son is better", "User's son is sick"),
    ("The server is retired", "The server is overloaded"),
])
def test_states_of_one_kind_end_each_other(new: str, old: str) -> None:
    assert replaces(new, old, "now")
