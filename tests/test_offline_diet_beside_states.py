"""The offline policy on a relative's diet and another state said with "now": only a
diet ends a diet, so "My wife is pregnant now" leaves "User's wife is vegan", where "My
wife is vegetarian now" ends it."""

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


@pytest.mark.parametrize(("before", "said", "both"), [
    ("My wife is vegan.", "My wife is pregnant now.",
     ["User's wife is vegan", "User's wife is pregnant"]),
    ("My wife is pregnant.", "My wife is vegan now.",
     ["User's wife is pregnant", "User's wife is vegan"]),
    ("My dog is vegan.", "My dog is sick now.", ["User's dog is vegan", "User's dog is sick"]),
    # "keto" is no diet of what one eats of animals: it goes with any of them
    ("My wife is vegan.", "My wife is keto now.",
     ["User's wife is vegan", "User's wife is keto"]),
])
def test_another_state_leaves_the_diet(memory: HierarchicalMemory, before: str, said: str,
                                       both: list[str]) -> None:
    _chat(memory, before, said)
    assert list(_core(memory)) == both


@pytest.mark.parametrize(("before", "said", "after"), [
    ("My wife is vegan.", "My wife is vegetarian now.", ["User's wife is vegetarian"]),
    ("My son is sick.", "My son is healthy now.", ["User's son is healthy"]),
])
def test_a_state_of_its_kind_still_ends_it(memory: HierarchicalMemory, before: str,
                                           said: str, after: list[str]) -> None:
    _chat(memory, before, said)
    assert list(_core(memory)) == after
