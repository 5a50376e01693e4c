"""Who someone named is to the user, said right after the name: "I love June, my wife."
names the user's wife June, as "I love June. She is my wife." does."""

from __future__ import annotations

from tiermem.memory.ops.fact_said import says

WIFE = "User's wife is June"


def test_a_name_and_who_they_are_to_the_user_say_it() -> None:
    assert says("I love June, my wife.", WIFE)
    assert says("I met Tom, my brother.", "User's brother is Tom")


def test_a_month_liked_or_someone_else_is_no_wife() -> None:
    assert not says("I love June, my favourite month.", WIFE)
    assert not says("I love June, my son.", WIFE)
    assert not says("I love June.", WIFE)


def test_a_wife_named_states_no_marriage() -> None:
    assert not says("I love June, my wife.", "User is married to June")
    assert not says("I love June. She is my wife.", "User is married to June")
