""""Ask Tom about Ana, she runs the DB.": the pronoun after a request was said as the one
asked by name, so Tom was stored as running the DB, which Ana may as well do. When the
request asks about a person, the pronoun is read as before, and an unclear one is asked."""

from __future__ import annotations

import pytest
from offline_helpers import reply_and_core

from tiermem.memory.text.asked_of import with_asks_apart


@pytest.mark.parametrize(("said", "apart"), [
    ("Ask Tom about Ana, she runs the DB.", ["Ask Tom about Ana.", "She runs the DB."]),
    ("Ask Tom about his wife, she runs the DB.",
     ["Ask Tom about his wife.", "She runs the DB."]),
    ("Ask Tom about my brother - he runs the DB.",
     ["Ask Tom about my brother.", "He runs the DB."]),
])
def test_the_pronoun_after_a_request_about_someone_is_read_as_said(
        said: str, apart: list[str]) -> None:
    assert with_asks_apart([said]) == apart


@pytest.mark.parametrize(("said", "clause"), [
    ("Ask Tom about the DB, he runs it.", "Tom runs the DB."),
    ("Ask Tom about Ana's team, he runs it.", "Tom runs Ana's team."),
])
def test_a_request_about_something_still_names_the_one_asked(said: str, clause: str) -> None:
    assert with_asks_apart([said])[-1] == clause


def test_core_holds_no_one_running_the_db() -> None:
    # either may be "he"
    reply, held = reply_and_core("Ask Tom about Sam, he runs the DB.")
    assert (any("runs the DB" in fact for fact in held), 'who "He"' in reply) == (
        False, True)


def test_the_one_asked_about_is_the_pronoun_the_one_asked_cannot_be() -> None:
    # Tom is no "she"
    assert reply_and_core("Ask Tom about Ana, she runs the DB.")[1] == ["Ana runs the DB"]
