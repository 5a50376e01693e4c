"""A name held, asked to be deleted, erased or removed, is forgotten as "Forget Tom" is."""

from __future__ import annotations

import pytest
from offline_helpers import chat, core_after, core_of

from tiermem.memory import HashingEmbedder, HierarchicalMemory


@pytest.mark.parametrize("request_", ["Delete Tom.", "Erase Tom.", "Remove Tom.",
                                      "Please delete Tom!"])
def test_a_name_held_asked_deleted_is_forgotten(request_: str) -> None:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        reply = chat(memory, "My brother is Tom.", request_)[-1]
        assert core_of(memory) == {}
    assert 'I keep "User\'s brother is Tom" in archival' in reply


def test_a_full_name_held_asked_erased_is_forgotten() -> None:
    assert core_after("Ana Lee is my boss.", "Erase Ana Lee.") == []


@pytest.mark.parametrize("request_", ["Delete Ana.", "Remove Tom from the list."])
def test_a_name_not_held_or_deleted_elsewhere_is_a_task(request_: str) -> None:
    assert len(core_after("My brother is Tom.", request_)) == 2
