""""Ask Tom, he works with Ana on her project." was left whole with its request, as any
"her" of a "he" was read as someone no one named, so nothing of what Tom does was
stored. A "her" (or a "his" of a "she") after a name the clause says is that one's."""

from __future__ import annotations

import pytest
from offline_helpers import core_after

from tiermem.memory.text.asked_of import with_asks_apart


@pytest.mark.parametrize(("said", "apart"), [
    ("Ask Tom, he works with Ana on her project.",
     ["Ask Tom.", "Tom works with Ana on her project."]),
    ("Ask Ana, she works with Tom on his project.",
     ["Ask Ana.", "Ana works with Tom on his project."]),
])
def test_a_her_after_one_named_is_theirs(said: str, apart: list[str]) -> None:
    assert with_asks_apart([said]) == apart


@pytest.mark.parametrize("said", ["Ask Tom, he runs her team with Ana.",
                                  "Ask Tom, he works at Globex on her team.",
                                  "Ask Tom, she knows him."])
def test_a_her_of_no_one_named_first_keeps_the_sentence_whole(said: str) -> None:
    assert with_asks_apart([said]) == [said]


def test_core_holds_what_tom_does() -> None:
    assert core_after("Ask Tom, he works with Ana on her project.") == [
        "Tom works with Ana on her project"]
