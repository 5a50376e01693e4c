"""The offline policy on a fact said after thanks or praise of the reply before: "Thanks, I
live in Berlin." tells where the user lives, as "No worries, ..." does, and is not quoted
whole; such a word with no punctuation after it opens a statement ("Great food here")."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from offline_helpers import chat as _chat
from offline_helpers import core_of as _core

from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.text.openings import strip_markers


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        yield m


@pytest.mark.parametrize(("said", "fact"), [
    ("Thanks, I live in Berlin.", "User lives in Berlin"),
    ("Great, I live in Berlin.", "User lives in Berlin"),
    ("Thank you! My son is Tom.", "User's son is Tom"),
    ("Perfect, thanks, I'm vegan.", "User is vegan"),
])
def test_the_fact_after_thanks_is_stored_without_it(memory: HierarchicalMemory, said: str,
                                                    fact: str) -> None:
    _chat(memory, said)
    assert list(_core(memory)) == [fact]


def test_a_move_after_thanks_replaces_the_home(memory: HierarchicalMemory) -> None:
    _chat(memory, "I live in Lisbon.", "Great, I live in Berlin now.")
    assert list(_core(memory)) == ["User lives in Berlin"]


@pytest.mark.parametrize("said", ["Thanks.", "Great!", "Got it!"])
def test_thanks_alone_is_no_fact(memory: HierarchicalMemory, said: str) -> None:
    _chat(memory, said)
    assert _core(memory) == {}


@pytest.mark.parametrize(("said", "left"), [
    ("Great food at Luigi's", "Great food at Luigi's"),
    ("Cool weather today", "Cool weather today"),
    ("Got it, the deploy is at 5pm", "the deploy is at 5pm"),
])
def test_only_an_acknowledgement_set_apart_is_skipped(said: str, left: str) -> None:
    assert strip_markers(said) == left
