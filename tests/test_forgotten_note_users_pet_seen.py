"""A pet named or met in passing is not the user's pet of a fact of it: "Tom saw a dog
named Rex." or "Tom has a dog. He is Rex." said "User's dog is Rex" as "User has a dog
named Rex" never was, and a kept message saying so was noted as stating the forgotten
fact. The user's own dog so named still says it."""

from __future__ import annotations

import json

import pytest
from memory_helpers import make_memory
from test_forget_sources import _model_turns, _search

from tiermem.memory.ops.fact_said import says
from tiermem.tools.memory_tools import FORGOTTEN_KEY


@pytest.mark.parametrize("text", [
    "Tom saw a dog named Rex.", "Tom has a dog named Rex.", "Tom has a dog. He is Rex.",
    "I saw a dog named Rex.", "I walked a neighbour's dog named Rex.",
])
@pytest.mark.parametrize("fact", ["User's dog is Rex", "User's dog is named Rex"])
def test_a_dog_of_someone_else_is_not_the_users(text: str, fact: str) -> None:
    assert not says(text, fact)


def test_a_cat_seen_is_not_the_users_cat() -> None:
    assert not says("Tom saw a cat named Rex.", "User's cat is Rex")


@pytest.mark.parametrize("text", [
    "My dog is Rex.", "My dog is called Rex.", "I have a dog named Rex.",
    "I have a dog. He is Rex.", "Rex is my dog.", "Tom saw my dog Rex.",
    "Mine is a dog named Rex.", "Tom saw a dog named Rex, and my dog is Rex too.",
])
def test_the_users_own_dog_still_says_it(text: str) -> None:
    assert says(text, "User's dog is Rex")


def test_a_message_of_toms_dog_is_shown_without_the_note() -> None:
    said = "Tom saw a dog named Rex."
    with make_memory() as m:
        _model_turns(m, (said, "User's dog is Rex"))
        assert m.forget("User's dog is Rex").outcome == "matched"
        [hit] = _search(m, "Rex")
        assert hit["text"] == said
        assert FORGOTTEN_KEY not in hit and "User's dog" not in json.dumps(hit), hit
