""""Scratch that", "strike that" and "disregard that" take back what was just told, as
"Forget that" does, instead of being stored as facts beside it."""

from __future__ import annotations

import pytest
from offline_helpers import core_after


@pytest.mark.parametrize("messages", [
    ("I like tea. Scratch that.",),
    ("I like tea.", "Scratch that."),
    ("I live in Lisbon. Strike that.",),
    ("Tom smokes. Disregard that.",),
    ("I like tea. Actually, scratch that.",),
])
def test_a_bare_scratch_that_takes_back_the_last_fact(messages: tuple[str, ...]) -> None:
    assert core_after(*messages) == []


@pytest.mark.parametrize(("messages", "kept"), [
    (("Scratch that, I like coffee.",), ["User likes coffee"]),
    (("I like tea.", "Scratch that, I like coffee."), ["User likes coffee"]),
    (("I live in Lisbon. Scratch that, I live in Porto.",), ["User lives in Porto"]),
    (("I'm vegan. Scratch that. I'm vegetarian.",), ["User is vegetarian"]),
])
def test_scratch_that_keeps_only_what_follows(messages: tuple[str, ...],
                                              kept: list[str]) -> None:
    assert core_after(*messages) == kept


@pytest.mark.parametrize("sentence", [
    "I need to scratch that itch.",
    "Tom will strike that deal with Acme.",
])
def test_scratch_naming_a_thing_is_no_request(sentence: str) -> None:
    assert core_after(sentence) != []
