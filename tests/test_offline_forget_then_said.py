"""The offline policy on "Forget that, I'm X": the bare request, then a new statement."""

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


@pytest.mark.parametrize("said", ["Forget that, I'm vegetarian now.",
                                  "Forget that. I'm vegetarian now.",
                                  "Forget it; I'm vegetarian now.",
                                  "Please forget that, I'm vegetarian."])
def test_a_comma_after_forget_that_reads_as_a_full_stop(memory: HierarchicalMemory,
                                                        said: str) -> None:
    replies = _chat(memory, "I live in Lisbon.", "I'm vegan.", said)
    assert _core(memory) == {"User lives in Lisbon": "durable",
                             "User is vegetarian": "durable"}
    assert "Nothing in core memory matched" not in replies[-1]


def test_forget_that_my_fact_still_names_what_to_forget(memory: HierarchicalMemory) -> None:
    _chat(memory, "I live in Lisbon.", "I'm vegan.", "Forget that I live in Lisbon.")
    assert _core(memory) == {"User is vegan": "durable"}
