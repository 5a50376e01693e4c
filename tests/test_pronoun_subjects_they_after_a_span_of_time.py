"""A "they" after several said with a span of time ("Tom and Ana are on call for the
next two weeks."): "the next two weeks" was counted as another group the "they" may be,
so "They know the DB." was left out and who knows the DB lost. A span of time is no one."""

from __future__ import annotations

import pytest
from offline_helpers import core_after

from tiermem.memory.text.pronoun_subjects import unnamed_pronouns, with_pronouns_named


@pytest.mark.parametrize(("said", "told"), [
    ("Tom and Ana are on call for the next two weeks.", "Tom and Ana are fine."),
    ("The servers were down for the last three hours.", "The servers are fine."),
    ("My parents stayed with us for the past few days.", "My parents are fine."),
])
def test_a_span_of_time_is_no_other_several(said: str, told: str) -> None:
    sentences = [said, "They are fine."]
    assert (with_pronouns_named(sentences, None), unnamed_pronouns(sentences, None)) == (
        [said, told], [])


def test_core_holds_who_knows_the_db() -> None:
    held = core_after("Tom and Ana are on call for the next two weeks. They know the DB.")
    assert "Tom and Ana know the DB" in held
