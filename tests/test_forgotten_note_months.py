"""A month a liking verb takes ("I love June") is a time of year, not someone named June:
of "User is married to June", a note beside "I love June. We got married in June." would
tell a marriage to someone the message never named."""

from __future__ import annotations

import pytest

from tiermem.memory.ops.fact_said import says
from tiermem.memory.text.plans import months_liked
from tiermem.memory.text.wording import concepts

MARRIED = "User is married to June"

CASES = [
    ("I love June. We got married in June.", MARRIED, False),
    ("I like June. We got married.", MARRIED, False),
    ("I hated June. We're married.", MARRIED, False),
    ("I miss June. We got married in June.", MARRIED, False),
    # Someone met or known by the name is still her; a month liked is said of itself.
    ("I know June. We got married in June.", MARRIED, True),
    ("I met June at a party. We got married.", MARRIED, True),
    ("I'm married to June.", MARRIED, True),
    ("I love June.", "User loves June", True),
    ("I love June. We got married in June.", "User got married in June", True),
]


@pytest.mark.parametrize(("said", "fact", "stated"), CASES)
def test_a_month_liked_names_no_one(said: str, fact: str, stated: bool) -> None:
    assert says(said, fact) is stated


def test_only_a_month_a_liking_verb_takes_is_read() -> None:
    assert months_liked("I love June and enjoyed March.") == concepts("June March")
    assert months_liked("I know June. I may go.") == set()
