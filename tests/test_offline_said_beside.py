"""The offline policy on a statement said with "too", "also" or "as well": it holds beside
what is held of the same thing ("The database is slow." then "The database is down too."
keeps both), where said plainly or with "now" it is the thing's new state."""

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
    ("The database is slow.", "The database is down too.",
     ["The database is slow", "The database is down"]),
    ("The API is slow.", "The API is also down.",
     ["The API is slow", "The API is also down"]),
    ("The API is slow.", "The API is down as well.", ["The API is slow", "The API is down"]),
    ("I live in Lisbon.", "I live in Porto too.",
     ["User lives in Lisbon", "User lives in Porto"]),
])
def test_a_state_said_too_keeps_the_one_held(memory: HierarchicalMemory, before: str,
                                             said: str, both: list[str]) -> None:
    _chat(memory, before, said)
    assert list(_core(memory)) == both


@pytest.mark.parametrize("said", ["The database is down.", "The database is down now."])
def test_a_state_said_without_too_still_replaces(memory: HierarchicalMemory, said: str) -> None:
    _chat(memory, "The database is slow.", said)
    assert list(_core(memory)) == ["The database is down"]


@pytest.mark.parametrize(("said", "text", "beside"), [
    ("The API is also down.", "The API is also down.", True),
    ("My wife also jogs", "My wife also jogs", True),
    ("The database is down too.", "The database is down", True),
    # "Also" opening a sentence goes on talking; in a later clause it is another's.
    ("Also, the API is down.", "Also, the API is down.", False),
    ("I live in Berlin, I also work there", "I live in Berlin, I also work there", False),
    ("The API is down.", "The API is down.", False),
])
def test_which_statements_say_one_more(said: str, text: str, beside: bool) -> None:
    statement = read_statement(said)
    assert (statement.text, statement.beside) == (text, beside)
