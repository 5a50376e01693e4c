"""A statement of someone named says nothing of the user's own name: "Tom has a dog named
Rex." is no "User is named Tom" nor "User is Tom", while "I'm named Tom." still is."""

from __future__ import annotations

import pytest

from tiermem.memory.ops.fact_said import says


@pytest.mark.parametrize(("text", "fact"), [
    ("Tom has a dog named Rex.", "User is named Tom"),
    ("Tom has a dog named Rex.", "User is Tom"),
    ("Tom's cat is named Rex.", "User is named Tom"),
    ("I know Tom uses vim.", "User is Tom"),
])
def test_someone_named_is_not_the_users_name(text: str, fact: str) -> None:
    assert not says(text, fact)


@pytest.mark.parametrize(("text", "fact"), [
    ("I'm named Tom.", "User is named Tom"),
    ("I am Tom.", "User is Tom"),
    ("Tom has a dog named Rex.", "Tom has a dog named Rex"),
])
def test_the_users_name_and_toms_dog_still_say_them(text: str, fact: str) -> None:
    assert says(text, fact)
