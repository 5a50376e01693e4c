""""..., but I came back": the speaker coming back in a later clause is told of the speaker,
and a fact stored before that was so is still known by its earlier words."""

from __future__ import annotations

import pytest
from extract_helpers import check_known_by_earlier_words

from tiermem.memory.text.extract import extract_facts


@pytest.mark.parametrize(("sentence", "told"), [
    ("I moved to Berlin but I came back.", "User moved to Berlin but User came back"),
    ("I moved to Berlin last year, but I went back.",
     "User moved to Berlin last year, but User went back"),
    ("I moved to Berlin and I returned in May.", "User moved to Berlin and User returned in May"),
    # Only a clause of the speaker's own: "she said, I came back" is hers.
    ("My sister said, I came back.", "User's sister said, I came back"),
])
def test_the_speaker_coming_back_in_a_later_clause_is_told_in_the_third_person(
        sentence: str, told: str) -> None:
    assert [fact.text for fact in extract_facts(sentence)] == [told]


@pytest.mark.parametrize(("older", "sentence"), [
    ("User moved to Berlin but I came back", "I moved to Berlin but I came back."),
    # in the words of the version that told the "I" of "my wife and I" but not this one
    ("User's wife and User moved to Berlin but I came back",
     "My wife and I moved to Berlin but I came back."),
])
def test_a_fact_stored_before_is_re_asserted_and_one_forgotten_stays_forgotten(
        older: str, sentence: str) -> None:
    check_known_by_earlier_words(older, sentence)
