""""He said the deploy is at 5pm." with no one named before it: what was said names its
own subject, so it is kept as said; left out as a "he" naming no one, the deploy time
was lost. What was said of a "he" or a "she" still names no one, and hearsay alone
retires no held fact."""

from __future__ import annotations

import pytest
from offline_helpers import core_after, reply_and_core


@pytest.mark.parametrize(("said", "kept"), [
    ("He said the deploy is at 5pm.", "He said the deploy is at 5pm"),
    ("She thinks the outage was DNS.", "She thinks the outage was DNS"),
    ("He said that the deploy is at 5pm.", "He said that the deploy is at 5pm"),
])
def test_what_was_said_of_its_own_subject_is_kept(said: str, kept: str) -> None:
    reply, held = reply_and_core(said)
    assert kept in held
    assert "could not tell who" not in reply


@pytest.mark.parametrize("said", ["He said he no longer works at Globex.",
                                  "She says it is stable now.",
                                  "He said that is fine."])
def test_what_was_said_of_someone_unnamed_is_not_stored(said: str) -> None:
    assert core_after(said) == []


@pytest.mark.parametrize("said", ["He said he no longer works at Globex.",
                                  "He said I no longer work at Globex."])
def test_hearsay_keeps_the_users_job(said: str) -> None:
    assert core_after("I work at Globex.", said) == ["User works at Globex"]


def test_one_named_before_is_still_the_one_who_said_it() -> None:
    assert "Tom said the deploy is at 5pm" in core_after(
        "Tom is on call.", "He said the deploy is at 5pm.")
