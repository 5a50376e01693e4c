""""They moved to Porto." opening a statement: with no one named before, it was stored as
said, of no one; after "My parents retired." it is the parents'. A "they" that may be
anyone is left out and asked about, as a lone "he" is."""

from __future__ import annotations

import pytest
from offline_helpers import core_after, reply_and_core

from tiermem.memory.text.pronoun_subjects import with_pronouns_named


@pytest.mark.parametrize("before", [None, "Tom works at Globex.", "My boss retired.",
                                    "My sister met my brothers."])
def test_a_they_naming_no_one_of_several_is_left_out(before: str | None) -> None:
    assert with_pronouns_named(["They moved to Porto."], before) == []


def test_the_reply_asks_who_they_are_and_core_holds_nothing() -> None:
    reply, held = reply_and_core("They moved to Porto.")
    assert (held, 'could not tell who "They" are' in reply) == ([], True)


@pytest.mark.parametrize(("before", "told"), [
    ("My parents retired.", "My parents moved to Porto."),
    ("Our kids started school.", "Our kids moved to Porto."),
    ("My children are 5 and 7.", "My children moved to Porto."),
])
def test_a_they_after_several_of_the_users_is_theirs(before: str, told: str) -> None:
    assert with_pronouns_named(["They moved to Porto."], before) == [told]


def test_core_holds_where_the_parents_moved() -> None:
    held = core_after("My parents retired.", "They moved to Porto.")
    assert "User's parents moved to Porto" in held


@pytest.mark.parametrize(("before", "said"), [
    ("Their name is Sam and they work at Acme.", "They no longer work at Acme."),
    (None, "They said the deploy is at 5pm."),
])
def test_a_they_said_before_or_reporting_is_kept_as_said(before: str | None,
                                                        said: str) -> None:
    assert with_pronouns_named([said], before) == [said]
