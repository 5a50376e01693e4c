""""She is allergic to peanuts, my daughter." names who "she" is in the sentence itself,
after it ("..., my daughter.") or between commas ("He, Tom, works at Globex."). Read as
naming no one, the statement was not stored and the reply asked for the name: the
daughter's allergy was lost."""

from __future__ import annotations

import pytest
from offline_helpers import core_after, reply_and_core

from tiermem.memory.text.pronoun_subjects import with_pronouns_named


@pytest.mark.parametrize(("said", "told"), [
    ("She is allergic to peanuts, my daughter.", "User's daughter is allergic to peanuts"),
    ("He, Tom, works at Globex.", "Tom works at Globex"),
    ("He, my brother, works at Globex.", "User's brother works at Globex"),
    ("She works at Globex, Ana.", "Ana works at Globex"),
])
def test_the_one_named_in_the_sentence_is_told(said: str, told: str) -> None:
    reply, held = reply_and_core(said)
    assert told in held
    assert "could not tell who" not in reply


@pytest.mark.parametrize("said", [
    "He is allergic to peanuts, my daughter.",  # no "he" is a daughter
    "He moved to Porto, Portugal.",  # a place
    "She, however, works at Globex.",
    "He works at Acme, Inc.",
])
def test_what_names_no_one_there_is_still_no_one(said: str) -> None:
    assert with_pronouns_named([said], None) == []


def test_the_one_named_in_it_outranks_one_named_before() -> None:
    assert "Ana works at Globex" in core_after("Tom is on call.", "She, Ana, works at Globex.")
