"""The offline policy on a fact said after an acknowledgement: "No worries, I live in
Berlin." tells where the user lives, not the acknowledgement."""

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


@pytest.mark.parametrize(("said", "fact"), [
    ("No worries, I live in Berlin.", "User lives in Berlin"),
    ("Never mind, I'm vegan.", "User is vegan"),
    ("Nevermind: I'm vegan.", "User is vegan"),
    ("No problem, my son is Tom.", "User's son is Tom"),
])
def test_the_fact_after_an_acknowledgement_is_stored_without_it(
        memory: HierarchicalMemory, said: str, fact: str) -> None:
    _chat(memory, said)
    assert list(_core(memory)) == [fact]


def test_a_move_after_an_acknowledgement_replaces_the_home(memory: HierarchicalMemory) -> None:
    _chat(memory, "I live in Lisbon.", "No worries, I live in Berlin now.")
    assert list(_core(memory)) == ["User lives in Berlin"]


@pytest.mark.parametrize("said", ["No worries.", "Never mind!"])
def test_the_acknowledgement_alone_is_still_no_fact(memory: HierarchicalMemory,
                                                    said: str) -> None:
    _chat(memory, said)
    assert _core(memory) == {}
