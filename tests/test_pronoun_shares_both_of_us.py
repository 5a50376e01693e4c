""""He and I work at the hospital, both of us." with no one named for "he" stored "User
works at the hospital, both of us", of the user alone, and "She and Tom live in Porto,
the two of them." stored nothing, its "them" read as the two named again. Said after
what they do, "both of us" and "the two of them" are left out of the share."""

from __future__ import annotations

import pytest
from offline_helpers import core_after

from tiermem.memory.text.pronoun_subjects import with_pronouns_named


@pytest.mark.parametrize(("said", "told"), [
    ("He and I work at the hospital, both of us.", "I work at the hospital."),
    ("She and Tom live in Porto, the two of them.", "Tom lives in Porto."),
    ("He and I work at Globex, both of us, in Porto.", "I work at Globex, in Porto."),
    ("She and Tom earn the same, each of them.", None),
])
def test_the_share_leaves_the_two_of_them_out(said: str, told: str | None) -> None:
    assert with_pronouns_named([said], None) == ([] if told is None else [told])


def test_core_holds_the_users_job_alone() -> None:
    assert core_after("He and I work at the hospital, both of us.") == [
        "User works at the hospital"]
