"""The offline policy on a diet said as a change: "I'm vegan." then "I'm vegetarian now."
leaves only the new diet, since one eats of animals by one of them at a time; said
plainly, or with another word ("keto", "pregnant"), both facts stay."""

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


@pytest.mark.parametrize(("said", "left"), [
    (["I'm vegan.", "I'm vegetarian now."], ["User is vegetarian"]),
    (["I'm vegetarian.", "Actually, I'm a pescatarian."], ["User is a pescatarian"]),
    (["I'm a vegetarian.", "These days I'm vegan."], ["User is vegan"]),
])
def test_a_new_diet_said_as_a_change_ends_the_old(memory: HierarchicalMemory,
                                                  said: list[str], left: list[str]) -> None:
    _chat(memory, *said)
    assert list(_core(memory)) == left


@pytest.mark.parametrize(("said", "left"), [
    (["I'm vegan.", "I'm vegetarian."], ["User is vegan", "User is vegetarian"]),
    (["I'm vegan.", "I'm vegetarian too."], ["User is vegan", "User is vegetarian"]),
    (["I'm vegan.", "I'm keto now."], ["User is vegan", "User is keto"]),
    (["My wife is vegan.", "I'm vegetarian now."],
     ["User's wife is vegan", "User is vegetarian"]),
])
def test_what_says_no_other_diet_keeps_both(memory: HierarchicalMemory, said: list[str],
                                            left: list[str]) -> None:
    _chat(memory, *said)
    assert list(_core(memory)) == left
