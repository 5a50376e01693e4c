""""Ask Tom, she knows him." names Tom as "him" more likely than as "she": read as the
one asked, it stored "Tom knows him", which says of no one. A clause that names someone
by "him" or "her" is left with its request, and stores nothing."""

from __future__ import annotations

import pytest
from offline_helpers import reply_and_core

from tiermem.memory.text.asked_of import with_asks_apart


@pytest.mark.parametrize("said", ["Ask Tom, she knows him.", "Ask Ana, he knows her.",
                                  "Ask Tom, he knows him well.", "Ask Ana, she trained him."])
def test_a_clause_naming_someone_by_him_or_her_is_not_said_apart(said: str) -> None:
    assert with_asks_apart([said]) == [said]


def test_nothing_garbled_is_stored() -> None:
    assert reply_and_core("Ask Tom, she knows him.")[1] == []


@pytest.mark.parametrize(("said", "kept"), [
    ("Ask Ana, she runs her team.", "Ana runs her team."),
    ("Ask Ana, she taught herself Go.", "Ana taught herself Go."),
    ("Ask Tom, he hiked the Himalayas.", "Tom hiked the Himalayas."),
])
def test_her_as_an_owner_or_oneself_still_says_apart(said: str, kept: str) -> None:
    assert with_asks_apart([said])[1] == kept
