"""The offline policy on a request to forget someone by name ("Forget Tom and Jerry"):
every fact about each goes, and the request itself is never stored."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from offline_helpers import chat as _chat
from offline_helpers import core_of as _core

from tiermem.memory import HashingEmbedder, HierarchicalMemory

_TOLD = ("My friend Tom lives in Oslo.", "My friend Jerry plays chess.", "I work at Globex.")


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        yield m


@pytest.mark.parametrize("said", ["Forget Tom and Jerry.", "Please forget about Tom and Jerry.",
                                  "Forget all about Tom and Jerry."])
def test_forgetting_friends_by_name_retires_their_facts(memory: HierarchicalMemory,
                                                        said: str) -> None:
    # Read as no request, the friends stayed and "Forget Tom and Jerry" became a fact.
    _chat(memory, *_TOLD, said)
    assert _core(memory) == {"User works at Globex": "durable"}


@pytest.mark.parametrize(("said", "kept"), [
    ("Forget Jerry.", "User's friend Tom lives in Oslo"),
    ("Forget everything about Tom.", "User's friend Jerry plays chess"),
])
def test_forgetting_one_friend_keeps_the_other(memory: HierarchicalMemory, said: str,
                                               kept: str) -> None:
    _chat(memory, *_TOLD, said)
    assert set(_core(memory)) == {kept, "User works at Globex"}


@pytest.mark.parametrize("said", ["Forget where I work.", "Forget Bob."])
def test_a_request_to_forget_is_never_stored(memory: HierarchicalMemory, said: str) -> None:
    # Whether or not a fact matches what it names, the request is no fact of the user's.
    _chat(memory, *_TOLD, said)
    assert not any("orget" in fact for fact in _core(memory))
