"""A verb run into the pronoun ("She's a doctor", "They're in Nice") is said in full once
the pronoun is named: "User's wife's a doctor" reads as something of hers."""

from __future__ import annotations

import pytest
from offline_helpers import core_after

from tiermem.memory.text.pronoun_subjects import with_pronouns_named


@pytest.mark.parametrize(("said", "named"), [
    ("She's a doctor.", "My wife is a doctor."),
    ("She’s a doctor.", "My wife is a doctor."),
    ("She's been promoted.", "My wife has been promoted."),
    ("She's got a new job.", "My wife has got a new job."),
    ("She is a doctor.", "My wife is a doctor."),
])
def test_the_verb_after_a_named_pronoun_is_said_in_full(said: str, named: str) -> None:
    assert with_pronouns_named([said], "My wife is a nurse.") == [named]


def test_they_re_after_the_several_named_is_said_in_full() -> None:
    assert with_pronouns_named(["They're in Nice now."], "My parents retired.") == [
        "My parents are in Nice now."]


@pytest.mark.parametrize("said", [
    ["My wife is a nurse.", "She's a doctor."],
    ["My wife is a nurse. Scratch that, she's a doctor."],
    ["My wife is a nurse.", "Scratch that. She's a doctor."],
])
def test_the_fact_stored_reads_as_said_with_is(said: list[str]) -> None:
    assert core_after(*said) == ["User's wife is a doctor"]
