"""A colour written with a capital ("The colour is Gold") is no name: another colour ends
it, with a change cue or without, as two lowercase colours end each other; of anything
but a colour, "Amber" may name a cat, and stays."""

from __future__ import annotations

import pytest
from offline_helpers import chat, core_of

from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.text.updates import replaces


@pytest.mark.parametrize(("said", "now"), [
    (["The colour is Gold.", "The colour is silver now."], ["The colour is silver"]),
    (["The colour is gold.", "The colour is Silver now."], ["The colour is Silver"]),
    (["My car's colour is Red.", "My car's colour is blue."], ["User's car's colour is blue"]),
    (["My favourite color is Blue.", "My favourite color is green now."],
     ["User's favourite color is green"]),
])
def test_a_new_colour_ends_the_old_however_written(said: list[str], now: list[str]) -> None:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        chat(memory, *said)
        assert sorted(core_of(memory)) == now


@pytest.mark.parametrize(("new", "old"), [
    # a colour ends only a colour: a state leaves it, and a colour leaves a name
    ("The server is down", "The server is Gold"),
    ("The server is silver", "The server is Goldfish"),
    # a name that is a colour word is a name still, where no colour is what it is of
    ("The cat is black", "The cat is Amber"),
])
def test_a_name_beside_a_state_is_left(new: str, old: str) -> None:
    assert not replaces(new, old, "now")
