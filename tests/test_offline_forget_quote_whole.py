"""A request to forget that touches a quote of the speaker's words removes the quote whole:
cut, "User: I changed my password, it's strong" less the password read "User: I changed my
it's strong", words the speaker never said."""

from __future__ import annotations

import pytest
from offline_helpers import core_after

from tiermem.memory.text.retractions import still_held
from tiermem.memory.text.wording import concepts


@pytest.mark.parametrize(("told", "asked"), [
    ("I changed my password, it's strong.", "Forget my password."),
    ("My password is hunter2. I changed my password, it's strong.", "Forget my password."),
])
def test_a_quote_touched_by_a_request_goes_whole(told: str, asked: str) -> None:
    assert core_after(told, asked) == []


def test_a_quote_is_never_cut() -> None:
    denied = frozenset(concepts("my password"))
    assert still_held("User: I changed my password, it's strong", denied) is None
    assert still_held("User likes jazz and blues", frozenset(concepts("I like jazz"))) == (
        "User likes blues")
