"""The offline policy on "Forget that." taking back a move: a home the user had already
asked to forget is not what the move replaced, so it is not brought back."""

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


@pytest.mark.parametrize("said", [
    ["I live in Lisbon.", "Forget that.", "I moved to Porto.", "Forget that."],
    ["I live in Lisbon.", "Forget it.", "I moved to Porto.", "Forget that."],
])
def test_a_home_forgotten_before_the_move_stays_forgotten(
        memory: HierarchicalMemory, said: list[str]) -> None:
    _chat(memory, *said)
    assert _core(memory) == {}


def test_a_forget_of_another_fact_still_lets_the_home_come_back(
        memory: HierarchicalMemory) -> None:
    _chat(memory, "I live in Lisbon.", "I'm vegan.", "Forget that.", "I moved to Porto.",
          "Forget that.")
    assert _core(memory) == {"User lives in Lisbon": "durable"}
