"""A bare denial closed by a word that weighs it ("Ana doesn't, though", "..., sadly") was
no bare denial to the offline policy, so the fragment was stored as said, a fact that says
nothing. The closing word is no part of what is denied: the denial is told in full as
without it, or, when it cannot be, stores nothing."""

from __future__ import annotations

import pytest
from offline_helpers import core_after


@pytest.mark.parametrize(("said", "kept"), [
    (["Tom smokes.", "Ana doesn't, though."], ["Ana doesn't smoke", "Tom smokes"]),
    (["Tom smokes. Ana doesn't, though."], ["Ana doesn't smoke", "Tom smokes"]),
    (["Tom smokes, Ana doesn't though."], ["Ana doesn't smoke", "Tom smokes"]),
    (["Tom smokes but Ana doesn't, though."], ["Ana doesn't smoke", "Tom smokes"]),
    (["Tom is vegan.", "Ana isn't, sadly."], ["Ana isn't vegan", "Tom is vegan"]),
    (["Tom smokes.", "Ana doesn't anymore, however."],
     ["Ana doesn't smoke anymore", "Tom smokes"]),
    (["I live in Lisbon. My parents don't, though."],
     ["User lives in Lisbon", "User's parents don't live in Lisbon"]),
    (["Tom works on mobile.", "Ana doesn't, though."],
     ["Ana doesn't work on mobile", "Tom works on mobile"]),
])
def test_a_closing_word_leaves_the_denial_told_in_full(said: list[str],
                                                      kept: list[str]) -> None:
    assert core_after(*said) == kept


@pytest.mark.parametrize(("said", "kept"), [
    (["Ana doesn't, though."], []),
    (["Tom's car is red.", "Ana isn't, though."], ["Tom's car is red"]),
    (["Tom smokes.", "She doesn't, though."], ["Tom smokes"]),
    # a thing named by one word ("Search", "Payroll") does what no person does
    (["Search works on iOS.", "Ana doesn't, though."], ["Search works on iOS"]),
    (["Search works on iOS.", "My boss doesn't."], ["Search works on iOS"]),
    (["Payroll runs on Fridays.", "Ana doesn't."], ["Payroll runs on Fridays"]),
    (["Search works.", "Tom doesn't."], ["Search works"]),
])
def test_a_denial_that_cannot_be_told_stores_nothing(said: list[str],
                                                     kept: list[str]) -> None:
    assert core_after(*said) == kept

