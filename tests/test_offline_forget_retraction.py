"""A bare "Forget that." in the message after a retraction ("I no longer work at Globex")
takes the retraction back: the job is held again. It answered "Nothing in core memory
matched" and changed nothing, as the retraction had told no fact of its own to forget."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from offline_helpers import chat, core_of, said

from tiermem.memory import HashingEmbedder, HierarchicalMemory


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        yield m


@pytest.mark.parametrize(("steps", "held"), [
    (["I work at Globex.", "I no longer work at Globex."], {"User works at Globex": "durable"}),
    (["I live in Porto.", "I'm vegan.", "I'm not vegan anymore."],
     {"User lives in Porto": "durable", "User is vegan": "durable"}),
])
def test_forget_that_after_a_retraction_holds_again_what_it_ended(
        memory: HierarchicalMemory, steps: list[str], held: dict[str, str]) -> None:
    replies = chat(memory, *steps, "Forget that.")
    assert core_of(memory) == held
    assert "archival -> core" in replies[-1]
    assert "Nothing in core memory matched" not in replies[-1]


@pytest.mark.parametrize("steps", [
    # A request to forget is no retraction a "Forget that." undoes.
    ["My gym is FitLife.", "Forget my gym."],
    ["My gym is FitLife.", "Please delete my gym."],
    # Said with the retraction, it asks to forget what was retracted.
    ["I work at Globex.", "I no longer work at Globex. Forget that."],
])
def test_what_the_user_asked_to_forget_is_not_held_again(
        memory: HierarchicalMemory, steps: list[str]) -> None:
    chat(memory, *steps, "Forget that.")
    assert core_of(memory) == {}


def test_a_retracted_fact_forgotten_since_is_not_held_again(
        memory: HierarchicalMemory) -> None:
    said(memory, "I work at Globex.", "I no longer work at Globex.",
         "/forget User works at Globex", "Forget that.")
    assert core_of(memory) == {}
    assert memory.forgotten_norms.blocks("User works at Globex")


@pytest.mark.parametrize(("steps", "erased"), [
    (["I work at Globex.", "I no longer work at Globex."], "User works at Globex"),
    (["I live in Lisbon.", "I moved to Porto."], "User lives in Lisbon"),
    (["I live in Seattle.", "Sorry, I meant Portland, not Seattle."], "User lives in Seattle"),
])
def test_a_fact_erased_since_is_not_held_again(
        memory: HierarchicalMemory, steps: list[str], erased: str) -> None:
    # The erasure leaves no mark of the fact, only the user's messages that told it.
    chat(memory, *steps)
    assert memory.forget(erased, erase=True).outcome == "matched"
    chat(memory, "Forget that.")
    assert erased not in core_of(memory)
    assert memory.core.find_same(erased) is None
