""""Ask Tom about the DB, he runs it and fixes it." was left whole, request and all, so
nothing of what Tom does was stored; and "Ask Tom about the DB if it breaks, he runs it."
stored "Tom runs the DB if it breaks", when to ask taken in as what he runs. Each "it" is
what he is asked about, and that ends where when to ask begins."""

from __future__ import annotations

import pytest
from offline_helpers import core_after

from tiermem.memory.text.asked_of import with_asks_apart


@pytest.mark.parametrize(("said", "apart"), [
    ("Ask Tom about the DB, he runs it and fixes it.",
     ["Ask Tom about the DB.", "Tom runs the DB and fixes the DB."]),
    ("Ask Tom about the DB if it breaks, he runs it.",
     ["Ask Tom about the DB if it breaks.", "Tom runs the DB."]),
    ("Ask Ana about billing when it fails - she built it.",
     ["Ask Ana about billing when it fails.", "Ana built billing."]),
])
def test_each_it_is_what_is_asked_about(said: str, apart: list[str]) -> None:
    assert with_asks_apart([said]) == apart


@pytest.mark.parametrize("said", ["Ask Tom about the DB, he runs it and knows its schema.",
                                  "Ask Tom about it, he runs it."])
def test_an_it_of_nothing_asked_about_keeps_the_sentence_whole(said: str) -> None:
    assert with_asks_apart([said]) == [said]


@pytest.mark.parametrize(("said", "held"), [
    ("Ask Tom about the DB, he runs it and fixes it.", ["Tom runs the DB and fixes the DB"]),
    ("Ask Tom about the DB if it breaks, he runs it.", ["Tom runs the DB"]),
])
def test_core_holds_what_he_does(said: str, held: list[str]) -> None:
    assert core_after(said) == held
