"""Shares in a row ("Tom is a nurse, so is Ana, so am I.") are each told of what the first
says: the last one read after the whole of what came before it shared being Ana
("User is Ana", a wrong name for the speaker) or, after "Ana is too", stored nothing."""

from __future__ import annotations

import pytest
from offline_helpers import core_after


@pytest.mark.parametrize(("said", "after"), [
    ("Tom is a nurse, so is Ana, so am I.",
     ["Ana is a nurse", "Tom is a nurse", "User is a nurse"]),
    ("Tom is a nurse, so is Ana and so am I.",
     ["Ana is a nurse", "Tom is a nurse", "User is a nurse"]),
    ("Tom is a nurse, Ana is too, so am I.",
     ["Ana is a nurse", "Tom is a nurse", "User is a nurse"]),
    ("I am a nurse, so is Ana, so is Tom.",
     ["Ana is a nurse", "Tom is a nurse", "User is a nurse"]),
    ("I live in Porto, so does Tom, so does Ana.",
     ["Ana lives in Porto", "Tom lives in Porto", "User lives in Porto"]),
])
def test_each_share_in_a_row_is_of_the_first_statement(said: str, after: list[str]) -> None:
    assert core_after(said) == after
