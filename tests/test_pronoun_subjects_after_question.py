""""Where does Tom work?" then "He works at Globex." is of Tom: a question's opening word
("Where", "Does") is no one. Read as a name, or run into the one after it ("Does Tom"),
it left Tom not the one person named, so the answer was not stored and a retraction of
his ("He no longer works at Globex") changed nothing."""

from __future__ import annotations

import pytest
from offline_helpers import core_after

from tiermem.memory.text.pronoun_subjects import with_pronouns_named


@pytest.mark.parametrize("asked", [
    "Where does Tom work?", "What does Tom do?", "Does Tom work?", "Is Tom at work?",
])
def test_the_one_asked_about_is_the_he(asked: str) -> None:
    assert with_pronouns_named(["He works at Globex."], asked) == ["Tom works at Globex."]


def test_a_given_name_like_a_question_word_is_still_a_name() -> None:
    assert with_pronouns_named(["He is in Rome."], "Will works at Globex.") == [
        "Will is in Rome."]


def test_the_answer_to_ones_own_question_is_stored() -> None:
    assert core_after("Where does Tom work?", "He works at Globex.") == [
        "Tom works at Globex"]


def test_a_retraction_after_a_question_retires_his_job_alone() -> None:
    assert core_after("Tom works at Globex. I work at Globex.", "Does Tom like it?",
                      "He no longer works at Globex.") == ["User works at Globex"]
