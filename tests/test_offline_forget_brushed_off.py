"""The offline policy on a "forget it" that only says "never mind": nothing is taken back."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from offline_helpers import chat as _chat
from offline_helpers import core_of as _core

from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.text.forget_requests import brushes_off


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        yield m


@pytest.mark.parametrize("said", ["Forget it, I'll do it myself.",
                                  "Forget it, I will ask Tom tomorrow.",
                                  "Oh, forget it, let's move on.",
                                  "Forget about it, my wife works at Acme."])
def test_never_mind_keeps_what_was_told_last(memory: HierarchicalMemory, said: str) -> None:
    replies = _chat(memory, "I work at Globex.", "I live in Porto.", said)
    core = _core(memory)
    assert core["User lives in Porto"] == "durable"
    assert core["User works at Globex"] == "durable"
    assert "Porto" not in replies[-1]


@pytest.mark.parametrize("said", ["Forget that, I'm vegetarian now.",
                                  "Forget it; I'm vegetarian now."])
def test_forget_that_with_a_new_fact_still_takes_the_last_back(memory: HierarchicalMemory,
                                                              said: str) -> None:
    _chat(memory, "I live in Lisbon.", "I'm vegan.", said)
    assert _core(memory) == {"User lives in Lisbon": "durable",
                             "User is vegetarian": "durable"}


def test_brushes_off_reads_the_request_and_what_follows() -> None:
    assert brushes_off("Forget it", "I'll do it myself")
    assert brushes_off("Forget about it", "the deploy moved")
    assert not brushes_off("Forget it", "I'm vegetarian now")
    assert not brushes_off("Forget my sister", "I'll call her")
