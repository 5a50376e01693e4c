"""The offline policy on an instruction about saving files ("Stop saving my report to the
desktop"): it is stored as a statement, not read as a request to forget, which a "don't
store my address" with no place to store it in still is."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from offline_helpers import chat as _chat
from offline_helpers import core_of as _core

from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.text.forget_requests import asks_to_forget


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        yield m


@pytest.mark.parametrize(("said", "stored"), [
    ("Stop saving my report to the desktop.", "Stop saving User's report to the desktop"),
    ("Never store my password in plain text.", "Never store User's password in plain text"),
    ("Never keep my logs in /tmp.", "Never keep User's logs in /tmp"),
    ("Stop storing my notes in Dropbox.", "Stop storing User's notes in Dropbox"),
])
def test_an_instruction_about_saving_is_stored(memory: HierarchicalMemory, said: str,
                                               stored: str) -> None:
    replies = _chat(memory, said)
    assert list(_core(memory)) == [stored]
    assert "Nothing in core memory matched" not in replies[-1]
    assert not asks_to_forget(said)


@pytest.mark.parametrize(("told", "said"), [
    ("I live in Lisbon.", "Don't store my address."),
    ("I live in Lisbon.", "Stop saving my address at all."),
    # a place no file goes: neither an instruction about files nor a word of the thing
    ("My trip to Paris is on Monday.", "Stop remembering my trip to Paris."),
    ("My address is 12 Rua Augusta.", "Don't keep my address on file."),
    ("My address is 12 Rua Augusta.", "Don't store my address in the database."),
])
def test_not_keeping_a_thing_still_forgets_it(memory: HierarchicalMemory, told: str,
                                              said: str) -> None:
    _chat(memory, told, "I'm vegan.", said)
    assert _core(memory) == {"User is vegan": "durable"}
    assert asks_to_forget(said)


def test_not_remembering_where_one_works_still_forgets_it(memory: HierarchicalMemory) -> None:
    _chat(memory, "I work at Globex.", "I'm vegan.", "Stop remembering that I work at Globex.")
    assert _core(memory) == {"User is vegan": "durable"}

