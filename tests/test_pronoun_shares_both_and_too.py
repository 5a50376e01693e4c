""""He and I both work at Globex." with no one named for "he" stored "User: I both work
at Globex", and "She and Tom work at Globex too, in Porto." stored "Tom works at Globex
too, in Porto": said of one, "both" and a "too" before a further phrase say of no one
besides whom. Both are left out of the share, as is "each": "He and I each have a car."
stored "User: I each have a car", and "She and Tom each work at Globex." nothing."""

from __future__ import annotations

import pytest
from offline_helpers import core_after

from tiermem.memory.text.pronoun_subjects import with_pronouns_named


@pytest.mark.parametrize(("said", "told"), [
    ("He and I both work at Globex.", "I work at Globex."),
    ("He and I both also work at Globex.", "I work at Globex."),
    ("He and I each have a car.", "I have a car."),
    ("He and I each of us have a car.", "I have a car."),
    ("She and Tom each work at Globex.", "Tom works at Globex."),
    ("She and my wife each also live in Porto.", "My wife lives in Porto."),
    ("She and Tom work at Globex too, in Porto.", "Tom works at Globex, in Porto."),
    ("She and Tom live in Porto as well, near the sea.", "Tom lives in Porto, near the sea."),
])
def test_the_share_says_nothing_of_the_other(said: str, told: str) -> None:
    assert with_pronouns_named([said], None) == [told]


@pytest.mark.parametrize(("said", "told"), [
    ("He and I work too hard, at Globex.", "I work too hard, at Globex."),
    ("He and I work at Globex as well as Initech.", "I work at Globex as well as Initech."),
])
def test_a_too_or_as_well_of_its_own_is_kept(said: str, told: str) -> None:
    assert with_pronouns_named([said], None) == [told]


def test_core_holds_the_users_job_alone() -> None:
    assert core_after("He and I both work at Globex.") == ["User works at Globex"]


def test_core_holds_the_users_car_without_each() -> None:
    assert core_after("He and I each have a car.") == ["User has a car"]


def test_core_holds_toms_job_after_each() -> None:
    assert core_after("She and Tom each work at Globex.") == ["Tom works at Globex"]
