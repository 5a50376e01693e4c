"""What others the user is not one of own ("Everyone's dog", "Someone's dog") is not the
user's: "Everyone's dog is named Rex." says no dog Rex of the user's, and a note naming
"User has a dog named Rex" beside it would tell a fact the message never said. The
user's own said beside it still is ("Everyone's favourite is my dog Rex.")."""

from __future__ import annotations

from tiermem.memory.ops.fact_said import says

DOG = "User has a dog named Rex"

NOT_STATED = [
    ("Everyone's dog is named Rex.", DOG),
    ("Someone's dog is named Rex.", DOG),
    ("People's dogs are named Rex.", DOG),
    ("Everyone's using vim.", "User uses vim"),
]
STATED = [
    ("Everyone's favourite is my dog Rex.", DOG),
    ("Everyone's dog loves my dog Rex.", DOG),
    ("Everyone's saying I use vim.", "User uses vim"),
]


def test_what_others_own_is_not_the_users() -> None:
    assert [said for said, fact in NOT_STATED if says(said, fact)] == []


def test_the_users_own_beside_what_others_own_is_stated() -> None:
    assert [said for said, fact in STATED if not says(said, fact)] == []
