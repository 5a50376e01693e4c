"""The name someone of the user's goes by is not the user's: "My son is called Tom." says
nothing of "User is called Tom", nor "My son is Tom." of "User is Tom", while "I am called
Tom." does and "I named my son Tom." still says "User's son is called Tom"."""

from __future__ import annotations

import pytest

from tiermem.memory.ops.fact_said import says


@pytest.mark.parametrize(("text", "fact"), [
    ("My son is called Tom.", "User is called Tom"),
    ("My adopted son is called Tom.", "User is called Tom"),
    ("My sister is named Ana.", "User is named Ana"),
    ("My son is Tom.", "User is Tom"),
    ("My sister is Ana.", "User is Ana"),
])
def test_a_relations_name_is_not_the_users(text: str, fact: str) -> None:
    assert not says(text, fact)


@pytest.mark.parametrize(("text", "fact"), [
    ("I am called Tom.", "User is called Tom"),
    ("I am Tom.", "User is Tom"),
    ("My son is Tom.", "User's son is Tom"),
    ("I named my son Tom.", "User's son is called Tom"),
    ("My son is called Tom.", "User's son is called Tom"),
])
def test_the_users_own_name_and_the_relations_still_say_it(text: str, fact: str) -> None:
    assert says(text, fact)
