""""He's my brother Tom." says who "he" is and nothing else: it is the user's brother
Tom, said as "My brother is Tom". Read as a "he" naming no one, it was not stored and
the reply asked for the name it had just been given."""

from __future__ import annotations

import pytest
from offline_helpers import reply_and_core

from tiermem.memory.text.pronoun_subjects import with_pronouns_named


@pytest.mark.parametrize(("said", "kept"), [
    ("He's my brother Tom.", "User's brother is Tom"),
    ("He is my boss, Tom.", "User's boss is Tom"),
    ("She is Ana, my wife.", "Ana is User's wife"),
])
def test_who_the_pronoun_is_is_stored(said: str, kept: str) -> None:
    reply, held = reply_and_core(said)
    assert held == [kept]
    assert "could not tell who" not in reply


@pytest.mark.parametrize("said", [
    "She's my brother Tom.",  # no "she" is a brother
    "He was my boss, Tom.",  # no longer: not who he is now
    "He's my brother.",  # nothing names him
])
def test_what_does_not_say_who_is_not_told(said: str) -> None:
    assert with_pronouns_named([said], None) == []
