"""A name said to be another's ("Rex is theirs.") is none of the user's: after "I have a
dog.", a note naming "User has a dog named Rex" beside it would tell a fact the message
never said. Of a fact of someone of the user's, "hers" may be that one's."""

from __future__ import annotations

from tiermem.memory.ops.fact_said import says

DOG = "User has a dog named Rex"


def test_a_name_said_to_be_anothers_is_not_the_users() -> None:
    theirs = ["I have a dog. Rex is theirs.", "I have a dog. Rex is hers.",
              "I have a dog, and Rex is his.", "I have a dog. Rex is theirs, not mine."]
    assert [said for said in theirs if says(said, DOG)] == []


def test_the_users_own_beside_anothers_is_still_said() -> None:
    assert says("I have a dog named Rex. The cat is hers.", DOG)
    assert says("My sister has a dog. Rex is hers.", "User's sister has a dog named Rex")
