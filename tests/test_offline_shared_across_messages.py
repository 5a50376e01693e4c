"""The offline policy on "I am too" said in the message after the statement it shares:
"My wife is vegan." then "I am too." stores "User is vegan", as one message saying both
does; a bare "Me too" opening a message may answer the assistant, and stores nothing."""

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


@pytest.mark.parametrize(("said", "both"), [
    (["My wife is vegan.", "I am too."], ["User's wife is vegan", "User is vegan"]),
    (["My wife likes jazz.", "So do I."], ["User's wife likes jazz", "User likes jazz"]),
    (["I'm vegan.", "My wife is too."], ["User is vegan", "User's wife is vegan"]),
    (["I like tea. My wife is vegan.", "Actually, I am too."],
     ["User likes tea", "User's wife is vegan", "User is vegan"]),
])
def test_the_next_message_shares_the_last_statement(memory: HierarchicalMemory,
                                                    said: list[str], both: list[str]) -> None:
    _chat(memory, *said)
    assert list(_core(memory)) == both


@pytest.mark.parametrize("said", [
    ["My wife is vegan.", "Me too."],
    # After a question the last message stated nothing to share.
    ["My wife is vegan.", "Is she?", "I am too."],
    # "I have too" shares a "have", not what "is" says.
    ["My wife is vegan.", "I have too."],
])
def test_nothing_is_shared_without_its_statement(memory: HierarchicalMemory,
                                                 said: list[str]) -> None:
    _chat(memory, *said)
    assert list(_core(memory)) == ["User's wife is vegan"]


def test_forget_that_after_the_shared_clause_forgets_what_it_said(
        memory: HierarchicalMemory) -> None:
    _chat(memory, "My wife is vegan.", "I am too.", "Forget that.")
    assert list(_core(memory)) == ["User's wife is vegan"]
