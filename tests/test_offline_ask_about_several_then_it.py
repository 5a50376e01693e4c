""""Ask Tom about the DB and Ana, he runs it." stored "Tom runs the DB and Ana": the "it"
was said as all that was asked about, people and all, though an "it" is one thing of
them. With several asked about, the "it" is unclear and the sentence is kept whole."""

from __future__ import annotations

import pytest
from offline_helpers import core_after

from tiermem.memory.text.asked_of import with_asks_apart


@pytest.mark.parametrize("said", ["Ask Tom about the DB and Ana, he runs it.",
                                  "Ask Tom about the DB or the cache - he built it.",
                                  "Ask Ana about billing & search, she owns it."])
def test_an_it_of_several_asked_about_keeps_the_sentence_whole(said: str) -> None:
    assert with_asks_apart([said]) == [said]


def test_one_thing_asked_about_is_still_the_it() -> None:
    assert with_asks_apart(["Ask Tom about the DB, he runs it."])[-1] == "Tom runs the DB."


def test_core_holds_no_one_running_ana() -> None:
    assert not any("Ana" in fact for fact in core_after(
        "Ask Tom about the DB and Ana, he runs it."))
