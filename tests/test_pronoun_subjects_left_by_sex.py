""""Andrea and Tom are my friends. She is a lawyer.": Tom, a man's name, is no "she", but
that leaves Andrea, a name as often a man's, or a name no list knows, a "she" by nothing
said of them. Read so, "Andrea is a lawyer" was stored; who "She" is is asked instead.
One named whose name or relation says "she" is still her."""

from __future__ import annotations

import pytest
from offline_helpers import reply_and_core


@pytest.mark.parametrize(("said", "pronoun"), [
    ("Andrea and Tom are my friends. She is a lawyer.", "She"),
    ("Keiko and Tom are my friends. She is a lawyer.", "She"),
    ("Tom and Keiko work at Acme. She is my colleague.", "She"),
    ("Sam and Ana are my friends. He is a lawyer.", "He"),
])
def test_one_left_by_the_others_sex_is_not_assumed(said: str, pronoun: str) -> None:
    reply, core = reply_and_core(said)
    assert not [fact for fact in core if "lawyer" in fact or "colleague" in fact]
    assert f'could not tell who "{pronoun}" is' in reply


@pytest.mark.parametrize(("said", "told"), [
    ("Ana and Tom are my friends. She is a lawyer.", "Ana is a lawyer"),
    ("My sister and Tom work at Acme. She is a lawyer.", "User's sister is a lawyer"),
    ("I met Keiko. She is a lawyer.", "Keiko is a lawyer"),  # no one else named
])
def test_one_the_pronoun_fits_is_still_named(said: str, told: str) -> None:
    assert told in reply_and_core(said)[1]
