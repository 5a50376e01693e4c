"""The offline policy on a "Forget that." in the message after a change, when an earlier
message was itself forgotten: the replay of the earlier messages takes that back too, so
a fact the user forgot is not held again."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from offline_helpers import chat, core_of

from tiermem.memory import HashingEmbedder, HierarchicalMemory


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        yield m


@pytest.mark.parametrize(("said", "kept"), [
    (["I live in Lisbon.", "Forget that.", "I moved to Porto.", "Forget that."], {}),
    (["I live in Lisbon.", "I live in Braga.", "Forget that.", "I moved to Porto.",
      "Forget that."], {"User lives in Lisbon": "durable"}),
])
def test_a_fact_forgotten_earlier_stays_forgotten(memory: HierarchicalMemory,
                                                 said: list[str], kept: dict[str, str]) -> None:
    chat(memory, *said)
    assert core_of(memory) == kept


def test_a_change_forgotten_still_puts_back_what_it_changed(
        memory: HierarchicalMemory) -> None:
    chat(memory, "I'm vegan.", "Forget that.", "I live in Lisbon.", "I moved to Porto.",
         "Forget that.")
    assert core_of(memory) == {"User lives in Lisbon": "durable"}
