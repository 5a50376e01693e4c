"""The offline policy on "Forget what I said about Tom": the facts about Tom go, as after
"Forget Tom"; what was said is no thing of its own to match."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from offline_helpers import chat as _chat
from offline_helpers import core_of as _core

from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.text.statements import read_statement


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        yield m


@pytest.mark.parametrize("said", ["Forget what I said about Tom.", "Forget Tom.",
                                  "Please forget everything I told you about Tom.",
                                  "Forget what you know about Tom"])
def test_the_facts_about_tom_go(memory: HierarchicalMemory, said: str) -> None:
    _chat(memory, "Tom works at Acme. Tom's wife is Ana. I'm vegan.", said)
    assert _core(memory) == {"User is vegan": "durable"}


def test_it_denies_only_what_it_names() -> None:
    assert read_statement("Forget what I said about my sister.").denied == frozenset(
        {"sister"})



@pytest.mark.parametrize("messages", [
    ("My gym is FitCo.", "Forget what I said."),
    ("My gym is FitCo.", "Forget what I just said, please."),
    ("My gym is FitCo. Forget what I said.",),
])
def test_what_i_said_with_nothing_named_is_what_was_said_last(memory: HierarchicalMemory,
                                                              messages: tuple[str, ...]) -> None:
    _chat(memory, "I'm vegan.", *messages)
    assert _core(memory) == {"User is vegan": "durable"}
