"""A size in bytes ("The disk is 500GB") and a state said in words ("... empty now") say
different things of a disk, so neither ends the other; a new size ends a size, and a level
("low") still ends a reading of usage."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from offline_helpers import chat, core_of

from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.text.identifiers import count_beside_state


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        yield m


@pytest.mark.parametrize(("said", "now"), [
    (["The disk is 500GB.", "The disk is empty now."],
     ["The disk is 500GB", "The disk is empty"]),
    (["The disk is empty.", "The disk is 500GB now."],
     ["The disk is empty", "The disk is 500GB"]),
    (["The disk is 500GB.", "The disk is slow now."],
     ["The disk is 500GB", "The disk is slow"]),
    (["The disk is 500GB.", "The disk is 1TB now."], ["The disk is 1TB"]),
    (["The disk usage is 400GB.", "The disk usage is low now."], ["The disk usage is low"]),
    (["The queue is 500 jobs.", "The queue is empty now."], ["The queue is empty"]),
])
def test_a_size_and_a_state_both_hold(memory: HierarchicalMemory, said: list[str],
                                      now: list[str]) -> None:
    chat(memory, *said)
    assert list(core_of(memory)) == now


def test_a_size_is_no_state() -> None:
    assert count_beside_state("empty", "500GB")
    assert count_beside_state("2 TiB", "full")
    assert not count_beside_state("1TB", "500GB")
