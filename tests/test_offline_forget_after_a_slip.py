""""No wait, forget that." (or "Wait, ...", "Oops, ...", "Hold on, ...") is a request to
forget what was just said: read as a statement, the value it took back was kept."""

from __future__ import annotations

import pytest
from offline_helpers import core_after


@pytest.mark.parametrize("slip", ["No wait", "Wait", "Oops", "Hold on", "Hmm", "Um"])
def test_a_slip_then_forget_that_forgets_the_last_message(slip: str) -> None:
    assert core_after("My PIN is 1234.", f"{slip}, forget that.") == []


@pytest.mark.parametrize("said", [
    "My PIN is 1234. No wait, forget that.",
    # a value of another kind said after it is not stored, and the request still stands
    "My PIN is 1234. No wait, forget that, it's Zed.",
])
def test_a_slip_then_forget_that_in_the_same_message_stores_nothing(said: str) -> None:
    assert core_after(said) == []


def test_a_slip_before_forget_my_x_forgets_it() -> None:
    assert core_after("My PIN is 1234.", "Um, forget my PIN.") == []


@pytest.mark.parametrize("said", ["Wait for me at the station.", "Hmm, I forget my PIN sometimes."])
def test_what_asks_nothing_is_kept(said: str) -> None:
    assert len(core_after(said)) == 1
