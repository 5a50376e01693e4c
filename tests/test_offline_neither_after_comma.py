""""I don't work at Google anymore, neither does my brother": a comma or a dash with no
"and" or "but" still joins a denial that someone else shares. Left unread, the whole
sentence was stored as one new fact and the user's job at Google stayed held."""

from __future__ import annotations

import pytest
from offline_helpers import core_after

from tiermem.memory.text.ellipses import with_ellipses_filled


@pytest.mark.parametrize("denial", [
    "I don't work at Google anymore, neither does my brother.",
    "I don't work at Google anymore - neither does my brother.",
    "I don't work at Google anymore — neither does my brother.",
    "I don't work at Google anymore, my brother doesn't either.",
    "I don't work at Google anymore - my brother doesn't either.",
])
def test_the_users_job_ends_and_the_brothers_denial_is_his(denial: str) -> None:
    assert core_after("I work at Google.", denial) == [
        "User's brother doesn't work at Google anymore"]
    # held, his job ends with the user's
    assert core_after("My brother works at Google.", "I work at Google.", denial) == []


def test_a_comma_then_neither_is_read_as_two_sentences() -> None:
    assert with_ellipses_filled(["I don't eat meat, neither does my wife."]) == [
        "I don't eat meat", "my wife doesn't eat meat"]


@pytest.mark.parametrize("later", [
    "I don't work at Google anymore - but my brother still does as well",
    "I don't work at Google anymore, but my brother still does as well",
])
def test_a_brother_who_still_does_keeps_the_job(later: str) -> None:
    assert core_after("I work at Google.", later) == ["User's brother works at Google"]
