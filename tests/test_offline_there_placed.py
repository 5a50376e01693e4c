""""I live in Lisbon. I also work there.": "there" is the one place the sentence before it,
in the same message, says the user lives, so the fact says where ("User works in
Lisbon"); with no such single place it is left as said."""

from __future__ import annotations

import pytest
from offline_helpers import core_after

from tiermem.memory.text.there import placed


@pytest.mark.parametrize(("said", "now"), [
    ("I live in Lisbon. I also work there.", ["User lives in Lisbon", "User works in Lisbon"]),
    ("I moved to Porto. I work there too.", ["User moved to Porto", "User works in Porto"]),
    ("I'm based in New York. I work there.",
     ["User is based in New York", "User works in New York"]),
])
def test_there_is_the_place_said_just_before(said: str, now: list[str]) -> None:
    assert core_after(said) == now


@pytest.mark.parametrize("sentences", [
    ["I live in Lisbon and Porto.", "I also work there."],  # two places: which one?
    ["My wife lives in Lisbon.", "I also work there."],  # hers, not the user's
    ["I live in Lisbon.", "I go there."],  # not "go in Lisbon"
    ["I also work there."],
])
def test_there_with_no_single_place_of_the_users_is_left_as_said(sentences: list[str]
                                                                 ) -> None:
    assert placed(sentences) == sentences


@pytest.mark.parametrize(("said", "now"), [
    # What follows "there" stays in the fact: the stop ending the sentence before is not
    # carried into it, where it would cut the fact in two ("no longer" a fact of its own).
    # Ending nothing held, the withdrawal is kept as news in the user's words.
    ("I live in Lisbon. I work there no longer.",
     ["User lives in Lisbon", "User: I no longer work in Lisbon"]),
    ("I live in Lisbon. I also work there for Acme.",
     ["User lives in Lisbon", "User works in Lisbon for Acme"]),
])
def test_there_placed_keeps_the_rest_of_its_sentence(said: str, now: list[str]) -> None:
    assert core_after(said) == now


def test_the_place_put_for_there_leaves_the_stop_of_its_sentence() -> None:
    assert placed(["I live in St. Petersburg.", "I work there today."]) == [
        "I live in St. Petersburg.", "I work in St. Petersburg today."]
