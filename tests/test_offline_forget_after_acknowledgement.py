"""The offline policy on "No worries, forget that." or "Thanks, forget that.": an
acknowledgement before a bare request to forget leaves it the same request, as "Okay,
forget that." is."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from offline_helpers import chat as _chat
from offline_helpers import core_of as _core

from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.text.statements import forgets_the_last


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        yield m


@pytest.mark.parametrize("request_", [
    "No worries, forget that.", "Never mind, forget it.", "No problem, forget that.",
    "Nevermind, forget this.",
    # an acknowledgement of the reply before it, as before a statement
    "Perfect, forget that.", "Thanks, forget that.", "Great, thanks, forget it.",
    "Got it, please forget that.", "Cool! Forget it.",
])
def test_an_acknowledged_request_forgets_the_last_message(
        memory: HierarchicalMemory, request_: str) -> None:
    _chat(memory, "I live in Lisbon.", "I'm vegan.", request_)
    assert _core(memory) == {"User lives in Lisbon": "durable"}


def test_an_acknowledged_request_in_the_same_message(memory: HierarchicalMemory) -> None:
    _chat(memory, "I live in Lisbon. I moved to Porto. Never mind, forget that.")
    assert _core(memory) == {"User lives in Lisbon": "durable"}


@pytest.mark.parametrize("sentence", ["Never mind, forget my locker code.", "Never mind.",
                                      "Thanks, never forget that.",
                                      "Great food, forget that place."])
def test_what_names_something_or_asks_nothing_is_no_bare_request(sentence: str) -> None:
    assert not forgets_the_last(sentence)
