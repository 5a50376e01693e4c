""""I live in Lisbon, I also work at Globex.": the comma joins two statements of the user's,
the home and the job, each held on its own, so "I don't live in Lisbon anymore" ends the
home and keeps the job. Stored as one fact, the move away retired the job with it. So
is a wife's job told beside the home ("I live in Lisbon, my wife works at Globex")."""

from __future__ import annotations

import pytest
from offline_helpers import core_after

from tiermem.memory.text.there import placed


@pytest.mark.parametrize(("said", "job"), [
    ("I live in Lisbon, I also work at Globex.", "User works at Globex"),
    ("I live in Lisbon, and I work at Globex too.", "User works at Globex"),
    ("I moved to Lisbon, I teach at the university.", "User: I teach at the university"),
    # held whole, the move away retired the wife's job with the home
    ("I live in Lisbon, my wife works at Globex.", "User's wife works at Globex"),
    ("I live in Lisbon, my brother lives in Porto.", "User's brother lives in Porto"),
    # "there" is the home: held whole, or as "User's wife works there", it was lost
    ("I live in Lisbon, my wife works there.", "User's wife works in Lisbon"),
    ("I live in Lisbon. My wife works there.", "User's wife works in Lisbon"),
    ("I live in Lisbon, my sister lives there too.", "User's sister lives in Lisbon"),
])
def test_a_move_away_keeps_the_job_told_beside_the_home(said: str, job: str) -> None:
    assert job in core_after(said)
    assert core_after(said, "I don't live in Lisbon anymore.") == [job]


@pytest.mark.parametrize("sentence", [
    "My wife lives in Lisbon, I also work at Globex.",  # hers, not the user's
    "I live in Lisbon, my hometown.",  # no one of the user's told of
    "I live in Lisbon, my laptop works there.",  # no one of the user's either
])
def test_a_comma_with_no_job_of_the_users_is_left_as_said(sentence: str) -> None:
    assert placed([sentence]) == [sentence]


@pytest.mark.parametrize(("said", "kept"), [
    ("I moved from Paris to Lisbon, my wife works there.", "User's wife works in Lisbon"),
    ("I moved from Paris to Lisbon, I also work there.", "User works in Lisbon"),
    ("I moved from New York to Lisbon, my wife works at Globex.",
     "User's wife works at Globex"),
])
def test_a_move_from_somewhere_keeps_the_job_told_beside_it(said: str, kept: str) -> None:
    # held whole with the move, the next move retired the job with it
    assert core_after(said, "I moved to Porto.") == ["User moved to Porto", kept]
