"""The offline policy on "I also ...": the user's own statement said with "also" is stored
told of the user ("User lives in Porto"), beside what is held, not quoted in the first
person as "User: I also live in Porto"."""

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


@pytest.mark.parametrize(("before", "said", "both"), [
    ("I live in Lisbon.", "I also live in Porto.",
     ["User lives in Lisbon", "User lives in Porto"]),
    ("I use emacs.", "I also use vim.", ["User uses emacs", "User uses vim"]),
    ("I work at Globex.", "I also work at Acme.",
     ["User works at Globex", "User works at Acme"]),
])
def test_the_user_s_also_is_told_of_the_user_beside_the_fact(
        memory: HierarchicalMemory, before: str, said: str, both: list[str]) -> None:
    _chat(memory, before, said)
    assert list(_core(memory)) == both


@pytest.mark.parametrize(("said", "text"), [
    ("I also live in Porto.", "I live in Porto."),
    ("I also have a cat", "I have a cat"),
    # a fact says "also" after its verb or subject as it was said
    ("I'm also vegan.", "I'm also vegan."),
    ("My wife also jogs", "My wife also jogs"),
])
def test_which_also_is_dropped(said: str, text: str) -> None:
    statement = read_statement(said)
    assert (statement.text, statement.beside) == (text, True)
