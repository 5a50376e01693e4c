"""A plain denial of a held fact said with "do" ("I don't live in Lisbon") retires it, as
"I'm not vegetarian" retires "User is vegetarian": core never holds both."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from offline_helpers import chat, core_of

from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.text.updates import replaces


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        yield m


@pytest.mark.parametrize(("held", "denial", "now"), [
    ("I live in Lisbon.", "I don't live in Lisbon.", ["User doesn't live in Lisbon"]),
    ("I like tea.", "I don't like tea.", ["User doesn't like tea"]),
    ("I like tea.", "I do not like tea.", ["User does not like tea"]),
    ("I live in Lisbon.", "I don't live in Lisbon, I live in Porto",
     ["User doesn't live in Lisbon", "User lives in Porto"]),
    ("My wife watches TV.", "My wife doesn't watch TV.", ["User's wife doesn't watch TV"]),
])
def test_a_plain_denial_retires_the_fact_it_denies(memory: HierarchicalMemory, held: str,
                                                   denial: str, now: list[str]) -> None:
    chat(memory, held, denial)
    assert sorted(core_of(memory)) == now


@pytest.mark.parametrize(("denied", "held"), [
    ("User doesn't study French", "User studies French"),
    ("User doesn't have a dog", "User has a dog"),
    ("User doesn't play the piano", "User plays the piano"),
    ("User's sons don't play chess", "User's sons play chess"),
])
def test_a_verb_denied_with_do_says_the_affirmed_fact_with_not(denied: str, held: str) -> None:
    assert replaces(denied, held, None)


@pytest.mark.parametrize(("denied", "held"), [
    ("User doesn't live in Lisbon", "User lives in Porto"),
    ("User doesn't like tea", "User likes coffee"),
    ("User's wife doesn't like tea", "User likes tea"),
])
def test_a_denial_leaves_what_it_does_not_deny(denied: str, held: str) -> None:
    assert not replaces(denied, held, None)
