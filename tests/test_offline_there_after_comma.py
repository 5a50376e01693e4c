""""I live in Lisbon, I also work there.": the comma joins two statements, each held on its
own, so "I don't live in Lisbon anymore" ends the home and keeps the job. Stored as one
fact, the move away retired both, and "User also works there" alone named nowhere."""

from __future__ import annotations

import pytest
from offline_helpers import core_after

from tiermem.memory.text.there import placed


@pytest.mark.parametrize("said", ["I live in Lisbon, I also work there.",
                                  "I live in Lisbon, and I work there too!"])
def test_a_move_away_keeps_the_job_there(said: str) -> None:
    assert core_after(said) == ["User lives in Lisbon", "User works in Lisbon"]
    assert core_after(said, "I don't live in Lisbon anymore.") == ["User works in Lisbon"]


@pytest.mark.parametrize("sentence", [
    "I live in Lisbon and Porto, I work there.",  # two places: which one?
    "My wife lives in Lisbon, I also work there.",  # hers, not the user's
    "I live in Lisbon, I go there.",  # not "go in Lisbon"
])
def test_a_comma_with_no_single_place_of_the_users_is_left_as_said(sentence: str) -> None:
    assert placed([sentence]) == [sentence]
