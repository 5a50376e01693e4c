"""A doing of the user's that the head table does not rewrite is quoted when said ("User:
I smoke") but its denial is told in the third person ("User doesn't smoke"): read as
unrelated, the newer statement left the older beside it, so core said both. Either now
ends the other, and the doing that ends a denial is said as the denial was."""

from __future__ import annotations

import pytest
from offline_helpers import core_after


@pytest.mark.parametrize(("said", "kept"), [
    (["I don't smoke.", "I smoke now."], ["User smokes"]),
    (["I don't smoke.", "I smoke."], ["User smokes"]),
    (["I don't smoke.", "Actually I do smoke."], ["User smokes"]),
    (["I don't smoke. I smoke now."], ["User smokes"]),
    (["I don't drink coffee.", "I drink coffee now."], ["User drinks coffee"]),
    (["I don't smoke cigars.", "I smoke cigars now."], ["User smokes cigars"]),
    (["I smoke.", "I don't smoke."], ["User doesn't smoke"]),
    (["I play chess.", "I don't play chess."], ["User doesn't play chess"]),
    # "Forget that." takes the newer back, and holds the older again
    (["I don't smoke.", "I smoke now.", "Forget that."], ["User doesn't smoke"]),
])
def test_a_doing_and_its_denial_end_each_other(said: list[str], kept: list[str]) -> None:
    assert core_after(*said) == kept


@pytest.mark.parametrize(("said", "kept"), [
    # another doing, or another's, ends nothing
    (["I don't smoke cigars.", "I smoke now."], ["User doesn't smoke cigars", "User: I smoke"]),
    (["I don't drink coffee.", "I drink tea."], ["User doesn't drink coffee", "User: I drink tea"]),
    (["I don't smoke.", "Tom smokes."], ["Tom smokes", "User doesn't smoke"]),
    # a helping verb is no doing of its own
    (["I don't swim.", "I can swim."], ["User doesn't swim", "User: I can swim"]),
])
def test_another_doing_leaves_the_denial(said: list[str], kept: list[str]) -> None:
    assert core_after(*said) == kept
