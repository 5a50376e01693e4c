"""The offline policy on a bare "Forget that.": it points back at the fact just told."""

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


@pytest.mark.parametrize("said", ["Forget that.", "Please forget that.", "Forget it",
                                  "Oh, just forget about it, please."])
def test_a_bare_forget_that_forgets_the_fact_just_told(memory: HierarchicalMemory,
                                                       said: str) -> None:
    replies = _chat(memory, "I live in Lisbon.", "I'm vegan.", said)
    assert _core(memory) == {"User lives in Lisbon": "durable"}
    assert "Nothing in core memory matched" not in replies[-1]


def test_of_several_facts_just_told_it_forgets_none_and_asks(
        memory: HierarchicalMemory) -> None:
    replies = _chat(memory, "I'm vegan and I live in Berlin.", "Forget that.")
    assert set(_core(memory)) == {"User is vegan", "User lives in Berlin"}
    assert "User is vegan; User lives in Berlin" in replies[-1]
    assert "say which one to forget" in replies[-1]


def test_a_second_forget_that_forgets_nothing_more(memory: HierarchicalMemory) -> None:
    # The last message then is the first request, which told nothing: the fact before the
    # one forgotten stays.
    replies = _chat(memory, "I'm vegan.", "I live in Berlin.", "Forget that.", "Forget that.")
    assert _core(memory) == {"User is vegan": "durable"}
    assert "Nothing in core memory matched" in replies[-1]


def test_after_a_question_it_forgets_nothing(memory: HierarchicalMemory) -> None:
    _chat(memory, "I'm vegan.", "What is my name?", "Forget it.")
    assert _core(memory) == {"User is vegan": "durable"}


@pytest.mark.parametrize(("said", "kept"), [
    # "that" is the sentence before it in the same message, not the message before.
    (["I live in Lisbon.", "I'm vegan. Forget that."], {"User lives in Lisbon": "durable"}),
    (["I'm vegan.", "I live in Lisbon. Forget that."], {"User is vegan": "durable"}),
    (["I live in Lisbon.", "What is my name? Forget that."],
     {"User lives in Lisbon": "durable"}),
    (["I live in Lisbon.", "I'm vegan.", "I'm vegan. Forget that."],
     {"User lives in Lisbon": "durable"}),
    (["I'm vegan.", "I live in Lisbon.", "I'm not vegan anymore. Forget that."],
     {"User lives in Lisbon": "durable"}),
    # A sentence that tells nothing leaves the last message the one pointed at.
    (["I live in Lisbon.", "I'm vegan.", "Okay. Forget that."],
     {"User lives in Lisbon": "durable"}),
])
def test_a_forget_that_after_a_sentence_of_its_own_message_forgets_only_that(
        memory: HierarchicalMemory, said: list[str], kept: dict[str, str]) -> None:
    _chat(memory, *said)
    assert _core(memory) == kept


@pytest.mark.parametrize(("said", "kept"), [
    (["I live in Lisbon. I moved to Porto. Forget that."], {"User lives in Lisbon": "durable"}),
    (["I live in Lisbon.", "I moved to Porto. Forget that."],
     {"User lives in Lisbon": "durable"}),
    (["I'm vegan.", "I live in Lisbon. I moved to Porto. Forget that."],
     {"User is vegan": "durable", "User lives in Lisbon": "durable"}),
    (["I live in Lisbon.", "I live in Lisbon. I moved to Porto. Forget that."],
     {"User lives in Lisbon": "durable"}),
])
def test_a_change_forgotten_in_its_own_message_leaves_what_it_changed(
        memory: HierarchicalMemory, said: list[str], kept: dict[str, str]) -> None:
    replies = _chat(memory, *said)
    assert _core(memory) == kept
    assert "superseded" not in replies[-1]
