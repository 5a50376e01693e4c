"""A statement joined to a bare denial of another ("Tom smokes and Ana doesn't.") is no
bare denial of one named in four words, "Tom smokes and Ana": read so, the sentence said
nothing and what Tom does was lost."""

from __future__ import annotations

import pytest
from offline_helpers import core_after


@pytest.mark.parametrize(("said", "kept"), [
    ("Tom smokes and Ana doesn't.", ["Tom smokes and Ana doesn't"]),
    ("Tom smokes but Ana doesn't.", ["Tom smokes but Ana doesn't"]),
    ("Tom drinks and Ana does not.", ["Tom drinks and Ana does not"]),
    ("Tom runs and Ana doesn't anymore.", ["Tom runs and Ana doesn't anymore"]),
])
def test_a_statement_before_a_bare_denial_is_kept(said: str, kept: list[str]) -> None:
    assert core_after(said) == kept


@pytest.mark.parametrize(("said", "kept"), [
    # the user's part alone says something; the bare denial of Tom still says nothing
    ("I work at Acme and Tom doesn't.", ["User works at Acme"]),
    ("I like tea but Tom doesn't.", ["User likes tea"]),
])
def test_a_bare_denial_after_the_users_statement_is_still_left_out(
        said: str, kept: list[str]) -> None:
    assert core_after(said) == kept
