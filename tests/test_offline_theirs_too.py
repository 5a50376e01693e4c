""""My wife too." after a statement says that she shares it, or that the user's statement
holds of her too: nothing tells which, and read alone it is a fragment, so it stores
nothing (recall keeps it), as "Tom too." stores nothing."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from offline_helpers import chat, core_of

from tiermem.memory import HashingEmbedder, HierarchicalMemory


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        yield m


@pytest.mark.parametrize("before", ["I'm allergic to peanuts.", "I love jazz."])
@pytest.mark.parametrize("sharing", ["My wife too.", "My son as well.", "And my brother too.",
                                     "My wife also."])
def test_someone_of_the_users_alone_stores_nothing(memory: HierarchicalMemory, before: str,
                                                   sharing: str) -> None:
    chat(memory, before)
    held = core_of(memory)
    chat(memory, sharing)
    assert core_of(memory) == held


def test_the_same_in_one_message(memory: HierarchicalMemory) -> None:
    chat(memory, "I'm allergic to peanuts. My wife too.")
    assert core_of(memory) == {"User is allergic to peanuts": "durable"}


def test_someone_said_to_be_so_too_is_still_told_in_full(memory: HierarchicalMemory) -> None:
    chat(memory, "I'm allergic to peanuts.", "My son is allergic too.")
    assert "User's son is allergic to peanuts" in core_of(memory)
