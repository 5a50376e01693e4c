"""The offline policy on "I always forget that X": the speaker tells of themselves, so
nothing held is forgotten, and "I forget that every time" is no request and no fact."""

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


def test_a_fact_the_user_says_they_forget_is_kept(memory: HierarchicalMemory) -> None:
    _chat(memory, "My locker code is 1234.", "I always forget that my locker code is 1234.")
    assert "User's locker code is 1234" in _core(memory)


@pytest.mark.parametrize("said", ["I forget that every time.", "Oh, I always forget it."])
def test_forgetting_only_pointed_at_stores_nothing_and_claims_no_request(
        memory: HierarchicalMemory, said: str) -> None:
    replies = _chat(memory, "I'm vegan.", said)
    assert _core(memory) == {"User is vegan": "durable"}
    assert "Nothing in core memory matched" not in replies[-1]


@pytest.mark.parametrize("request_", ["Please forget that my locker code is 1234.",
                                      "I want you to forget that my locker code is 1234."])
def test_a_request_to_forget_is_still_one(request_: str) -> None:
    assert read_statement(request_).change == "retraction"
