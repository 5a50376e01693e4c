"""A doing of the speaker's stored quoted ("User: I drink coffee") and a bare denial of one
named set after it ("I drink coffee, Tom doesn't") were kept as one quote, so that Tom
does not drink coffee was no fact of its own. The denial is told in full from the doing;
one of the user's people ("my kids") would name whose they are from the quote, so that
sentence is still kept as said."""

from __future__ import annotations

import pytest
from offline_helpers import core_after


@pytest.mark.parametrize(("said", "kept"), [
    ("I drink coffee, Tom doesn't.", ["Tom doesn't drink coffee", "User: I drink coffee"]),
    ("I drink coffee but Tom doesn't.", ["Tom doesn't drink coffee", "User: I drink coffee"]),
    ("I smoke and Ana doesn't anymore.", ["Ana doesn't smoke anymore", "User: I smoke"]),
])
def test_a_bare_denial_after_a_quoted_doing_is_told_in_full(said: str,
                                                            kept: list[str]) -> None:
    assert core_after(said) == kept


@pytest.mark.parametrize(("said", "kept"), [
    ("I eat meat, my kids don't.", ["User: I eat meat, my kids don't"]),
    ("I can swim, Tom can't.", ["User: I can swim, Tom can't"]),
    # the speaker at one place is no thing done at another
    ("I work on Linux but Windows doesn't.", ["User works on Linux but Windows doesn't"]),
])
def test_what_cannot_be_told_so_is_kept_as_said(said: str, kept: list[str]) -> None:
    assert core_after(said) == kept
