"""A denial followed by how the user does regard the same thing ("I don't like tea, I love
it") ends the fact it denies and tells the new one of that thing: core never holds "User
doesn't like tea", which the user did not mean, nor "User loves it", which names nothing."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from offline_helpers import chat, core_of

from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.text.regradings import regraded


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        yield m


@pytest.mark.parametrize(("held", "said", "now"), [
    ("I like tea.", "I don't like tea, I love it!", ["User loves tea"]),
    ("I like tea.", "I don't like tea, I hate it.", ["User hates tea"]),
    ("I like my cats.", "I don't like my cats, but I love them.", ["User loves User's cats"]),
])
def test_a_regrading_tells_the_new_regard_of_the_thing_denied(
        memory: HierarchicalMemory, held: str, said: str, now: list[str]) -> None:
    chat(memory, held, said)
    assert sorted(core_of(memory)) == now


@pytest.mark.parametrize(("held", "said", "now"), [
    ("I live in Lisbon.", "I don't live in Lisbon, I live in Porto",
     ["User doesn't live in Lisbon", "User lives in Porto"]),
    ("I'm vegan.", "I'm not vegan, I'm vegetarian.", ["User is not vegan", "User is vegetarian"]),
])
def test_a_denial_joined_to_another_fact_is_still_a_denial(
        memory: HierarchicalMemory, held: str, said: str, now: list[str]) -> None:
    chat(memory, held, said)
    assert sorted(core_of(memory)) == now


def test_only_a_clause_naming_the_denied_thing_as_it_regrades_it() -> None:
    assert regraded(["I don't like tea", "I love it!"]) == ["I don't like tea anymore",
                                                             "I love tea!"]
    assert regraded(["I don't like tea", "I love coffee"]) == ["I don't like tea",
                                                               "I love coffee"]
    assert regraded(["I'm not vegan", "I'm vegetarian"]) == ["I'm not vegan", "I'm vegetarian"]
