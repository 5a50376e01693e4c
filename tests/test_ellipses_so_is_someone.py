"""A share said turned round ("so is my son", "so does Tom") after the speaker's
statement is told in full, as "my son is too" is: "I'm allergic to nuts, so is my son."
was kept whole, one fact the son's allergy could not be found or changed apart from."""

from __future__ import annotations

import pytest
from offline_helpers import core_after


@pytest.mark.parametrize(("said", "after"), [
    ("I'm allergic to nuts, so is my son.",
     ["User is allergic to nuts", "User's son is allergic to nuts"]),
    ("I'm allergic to nuts. So is my son.",
     ["User is allergic to nuts", "User's son is allergic to nuts"]),
    ("I live in Porto, so does Tom.", ["Tom lives in Porto", "User lives in Porto"]),
    ("I like tea. So does my wife.", ["User likes tea", "User's wife likes tea"]),
    ("Tom is a nurse, so is Ana.", ["Ana is a nurse", "Tom is a nurse"]),
    # a closing "too" is no part of who shares: stored "User's son too is allergic ..."
    ("I'm allergic to nuts, so is my son too.",
     ["User is allergic to nuts", "User's son is allergic to nuts"]),
    ("I live in Porto, so does my wife as well.",
     ["User lives in Porto", "User's wife lives in Porto"]),
])
def test_a_share_turned_round_is_told_in_full(said: str, after: list[str]) -> None:
    assert core_after(said) == after
