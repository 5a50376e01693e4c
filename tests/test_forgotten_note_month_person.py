"""A month a liking verb takes is a time of year, unless the message goes on at once to
say who she is: "I love June. She is my wife." says "User's wife is June", as it did
before months liked were read, where "I love June. We got married in June." names no
one."""

from __future__ import annotations

from tiermem.memory.ops.fact_said import says
from tiermem.memory.text.plans import months_liked
from tiermem.memory.text.wording import concepts

WIFE = "User's wife is June"


def test_a_month_liked_said_at_once_to_be_someone_names_her() -> None:
    named = ["I love June. She is my wife.", "I love June. She's my wife.",
             "I love June, who is my wife."]
    assert [said for said in named if not says(said, WIFE)] == []
    assert [said for said in named if months_liked(said)] == []


def test_a_month_liked_said_of_no_one_still_names_no_one() -> None:
    assert not says("I love June. She is my daughter. We got married.",
                    "User is married to June")
    assert months_liked("I love June. It is my favourite month.") == concepts("June")
