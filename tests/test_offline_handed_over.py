"""A denial of the user's that says someone else still has it ("I don't work at Google
anymore, but my wife still does") ends the user's fact and stores the other person's: read
whole as a retraction, the other person's share was lost with it."""

from __future__ import annotations

import pytest
from offline_helpers import core_after

from tiermem.memory.text.handed_over import with_handed_over


@pytest.mark.parametrize(("held", "handed_over", "now"), [
    ("I work at Google.", "I don't work at Google anymore, but my wife still does.",
     ["User's wife works at Google"]),
    ("I'm on call.", "I'm not on call anymore, Priya is.", ["Priya is on call"]),
    ("I'm on call.", "I'm not on call anymore Priya is.", ["Priya is on call"]),
    ("I live in Lisbon.", "I don't live in Lisbon, my wife does.",
     ["User doesn't live in Lisbon", "User's wife lives in Lisbon"]),
    ("I teach at MIT.", "I no longer teach at MIT but my husband does.",
     ["User's husband teaches at MIT"]),
])
def test_the_other_persons_share_is_stored_and_the_users_retired(
        held: str, handed_over: str, now: list[str]) -> None:
    assert core_after(held, handed_over) == now


@pytest.mark.parametrize("sentence", [
    "I don't work there anymore, she does.",  # "she" names no one on its own
    "I don't think so, my wife does.",  # an opinion, not a fact to hand over
    "I don't smoke, Tom is.",  # "is" repeats nothing "don't smoke" said
    "I'm not vegan, I'm vegetarian.",
    "I don't live in Lisbon.",
])
def test_anything_else_is_left_as_said(sentence: str) -> None:
    assert with_handed_over([sentence]) == [sentence]
