"""The offline policy on a "Forget that." in the message after a change: taking back "I
moved to Porto" holds again the home it replaced, as it does within one message."""

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


@pytest.mark.parametrize(("said", "kept"), [
    (["I live in Lisbon.", "I moved to Porto.", "Forget that."],
     {"User lives in Lisbon": "durable"}),
    # the home the move replaced, not one replaced before it
    (["I live in Lisbon.", "I live in Braga.", "I moved to Porto.", "Forget it."],
     {"User lives in Braga": "durable"}),
    (["I'm vegan.", "I live in Lisbon.", "I moved to Porto.", "Forget that."],
     {"User is vegan": "durable", "User lives in Lisbon": "durable"}),
    (["My phone number is 555-0101.", "My phone number is actually 555-0199.",
      "Forget that."], {"User's phone number is 555-0101": "durable"}),
])
def test_a_change_forgotten_in_the_next_message_leaves_what_it_changed(
        memory: HierarchicalMemory, said: list[str], kept: dict[str, str]) -> None:
    _chat(memory, *said)
    assert _core(memory) == kept


def test_a_fact_that_changed_nothing_puts_nothing_back(memory: HierarchicalMemory) -> None:
    _chat(memory, "I live in Lisbon.", "I'm vegan.", "Forget that.")
    assert _core(memory) == {"User lives in Lisbon": "durable"}


def test_a_home_ended_since_is_not_put_back(memory: HierarchicalMemory) -> None:
    # "Forget that." of a message that told nothing forgets nothing, and puts nothing back.
    _chat(memory, "I live in Lisbon.", "I moved to Porto.", "Okay.", "Forget that.")
    assert _core(memory) == {"User moved to Porto": "durable"}
