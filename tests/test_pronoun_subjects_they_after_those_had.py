""""They" after a statement that says several other than as its subject: "I work with Tom
and Ana. They are on call this week." and "I have two kids. They go to school in Porto."
stored only the first statement, the reply asking who "they" are. The "they" is those
several: the names joined by "and", or the ones the user has."""

from __future__ import annotations

import pytest
from offline_helpers import core_after

from tiermem.memory.text.pronoun_subjects import with_pronouns_named


@pytest.mark.parametrize(("before", "told"), [
    ("I work with Tom and Ana.", "Tom and Ana are on call."),
    ("I work with Tom and Ana at Globex.", "Tom and Ana are on call."),
    ("I have two kids.", "My kids are on call."),
    ("We've got three dogs.", "Our dogs are on call."),
    ("I have a son and a daughter.", "My son and my daughter are on call."),
    ("I have a son, a daughter and a dog.", "My son, my daughter and my dog are on call."),
])
def test_a_they_is_the_several_said_before(before: str, told: str) -> None:
    assert with_pronouns_named(["They are on call."], before) == [told]


@pytest.mark.parametrize("before", ["Sam met Tom and Ana.", "I told Tom and Ana about Eva.",
                                    "Tom and I moved.", "I have a dog."])
def test_others_named_beside_them_leave_the_they_out(before: str) -> None:
    assert with_pronouns_named(["They are on call."], before) == []


@pytest.mark.parametrize(("said", "held"), [
    ("I work with Tom and Ana. They are on call this week.",
     "Tom and Ana are on call this week"),
    ("I have two kids. They go to school in Porto.", "User's kids go to school in Porto"),
])
def test_core_holds_what_they_do(said: str, held: str) -> None:
    assert held in core_after(said)
