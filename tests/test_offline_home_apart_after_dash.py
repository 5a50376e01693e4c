"""A home told beside another statement of the user's after a dash ("I live in Munich —
my wife lives in Berlin"), beside a job with no workplace ("..., I work remotely") or beside
a job the user shares ("..., my wife and I work at Globex") is held on its own: stored as
one fact, a move away retired the other statement with the home."""

from __future__ import annotations

import pytest
from offline_helpers import core_after

from tiermem.memory.text.there import placed


@pytest.mark.parametrize(("said", "kept"), [
    ("I live in Munich — my wife lives in Berlin.", "User's wife lives in Berlin"),
    ("I live in Munich—my wife lives in Berlin.", "User's wife lives in Berlin"),
    ("I live in Munich – my wife lives in Berlin.", "User's wife lives in Berlin"),
    ("I live in Munich - my wife lives in Berlin.", "User's wife lives in Berlin"),
    ("I live in Munich — I work at Globex.", "User works at Globex"),
])
def test_a_move_keeps_what_a_dash_set_beside_the_home(said: str, kept: str) -> None:
    assert kept in core_after(said)
    assert core_after(said, "I moved to Hamburg.") == ["User moved to Hamburg", kept]


@pytest.mark.parametrize(("said", "kept"), [
    ("I live in Lisbon, I work remotely.", "User works remotely"),
    ("I live in Lisbon, I work from home.", "User works from home"),
    ("I live in Lisbon, my wife and I work at Globex.", "User's wife and User work at Globex"),
])
def test_leaving_the_home_keeps_the_job_beside_it(said: str, kept: str) -> None:
    assert kept in core_after(said)
    assert core_after(said, "I don't live in Lisbon anymore.") == [kept]


@pytest.mark.parametrize("sentence", [
    "I live in well-known Munich-my wife says so.",  # a hyphen typed with no space
    "I live in Munich — my hometown.",  # no one of the user's told of
    "My wife lives in Munich — I work at Globex.",  # hers, not the user's home
])
def test_a_dash_with_no_statement_of_the_users_is_left_as_said(sentence: str) -> None:
    assert placed([sentence]) == [sentence]
