"""A bare "Forget that." after a message that states its fact only with the ones before it
(a correction, a "too") takes that fact back: "Sorry, I meant Portland, not Seattle." then
"Forget that." holds Seattle again, unless the memory forgot it since, as after a move."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from offline_helpers import core_of, said

from tiermem.memory import HashingEmbedder, HierarchicalMemory

SEATTLE = "User lives in Seattle"


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        yield m


@pytest.mark.parametrize(("steps", "held", "taken_back"), [
    (["I live in Seattle.", "Sorry, I meant Portland, not Seattle."],
     {SEATTLE: "durable"}, "User lives in Portland"),
    (["I live in Lisbon.", "I moved to Porto.", "Sorry, I meant Braga, not Porto."],
     {"User moved to Porto": "durable"}, "User moved to Braga"),
    (["I'm allergic to peanuts.", "My son is allergic too."],
     {"User is allergic to peanuts": "durable"}, "User's son is allergic to peanuts"),
])
def test_forget_that_takes_back_what_the_last_message_stated_in_context(
        memory: HierarchicalMemory, steps: list[str], held: dict[str, str],
        taken_back: str) -> None:
    reply = said(memory, *steps, "Forget that.")
    assert core_of(memory) == held
    assert taken_back in reply and "Nothing in core memory matched" not in reply


def test_a_slip_forgotten_since_is_not_held_again(memory: HierarchicalMemory) -> None:
    said(memory, "I live in Seattle.", "Sorry, I meant Portland, not Seattle.",
         f"/forget {SEATTLE}", "Forget that.")
    assert core_of(memory) == {}
    assert memory.forgotten_norms.blocks(SEATTLE)


@pytest.mark.parametrize(("steps", "held"), [
    (["I live in Seattle.", "Sorry, I meant Portland, not Seattle."], {SEATTLE: "durable"}),
    (["I live in Lisbon.", "I moved to Porto."], {"User lives in Lisbon": "durable"}),
])
def test_forget_that_said_twice_puts_back_nothing_it_took(
        memory: HierarchicalMemory, steps: list[str], held: dict[str, str]) -> None:
    said(memory, *steps, "Forget that.", "Forget that.")
    assert core_of(memory) == held
