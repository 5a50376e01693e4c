""""Ask Tom, he runs her team." stored "Tom runs her team", whose "her" is someone no one
named, and "Ask Tom about the DB, he runs it." stored "Tom runs it". A "her" of a "he" is
someone else, so the sentence is left with its request and stores nothing; an "it" is
what the one asked is asked about ("Tom runs the DB"), or, with nothing asked about, the
sentence is left whole too."""

from __future__ import annotations

import pytest
from offline_helpers import core_after

from tiermem.memory.text.asked_of import with_asks_apart


@pytest.mark.parametrize("said", ["Ask Tom, he runs her team.", "Ask Tom, he runs it.",
                                  "Ask Ana, she fixed his laptop.",
                                  "Ask Tom about the DB, he knows its schema."])
def test_a_her_or_it_of_no_one_asked_is_not_said_apart(said: str) -> None:
    assert with_asks_apart([said]) == [said]


@pytest.mark.parametrize(("said", "apart"), [
    ("Ask Tom about the DB, he runs it.", ["Ask Tom about the DB.", "Tom runs the DB."]),
    ("Ask Ana about the billing service - she built it.",
     ["Ask Ana about the billing service.", "Ana built the billing service."]),
])
def test_an_it_is_what_the_one_asked_is_asked_about(said: str, apart: list[str]) -> None:
    assert with_asks_apart([said]) == apart


@pytest.mark.parametrize(("said", "held"), [
    ("Ask Tom, he runs her team.", []),
    ("Ask Tom about the DB, he runs it.", ["Tom runs the DB"]),
])
def test_core_holds_nothing_unresolved(said: str, held: list[str]) -> None:
    assert core_after(said) == held
