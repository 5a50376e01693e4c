""""I have a daughter. She is 5." is of the user's daughter: someone the user says they
have is theirs, as "my daughter" is. Unread, "a daughter" named no one, so the "she" was
no one's and her age was not stored."""

from __future__ import annotations

import pytest
from offline_helpers import core_after

from tiermem.memory.text.pronoun_subjects import with_pronouns_named


def test_her_age_is_stored_as_the_daughters() -> None:
    assert core_after("I have a daughter. She is 5.") == [
        "User has a daughter", "User's daughter is 5"]


@pytest.mark.parametrize(("before", "told"), [
    ("I have a daughter.", "My daughter lives in Rome."),
    ("I've got a sister.", "My sister lives in Rome."),
])
def test_the_one_had_is_the_users(before: str, told: str) -> None:
    assert with_pronouns_named([before, "She lives in Rome."], None)[-1] == told


@pytest.mark.parametrize("before", ["I met a sister of Tom's.", "A sister called."])
def test_someone_not_had_is_no_one_of_the_users(before: str) -> None:
    assert with_pronouns_named([before, "She lives in Rome."], None) == [before]
