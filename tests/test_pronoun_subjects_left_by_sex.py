""""Keiko and Tom are my friends. She is a lawyer.": Tom, a man's name, is no "she", which
leaves Keiko the only one she may be, as "I met Keiko. She is a lawyer." names her alone.
Read so, "Keiko is a lawyer" is stored, as it is of Keiko named alone; asking who "She" is
after the one sentence and not the other was a rule no one could guess."""

from __future__ import annotations

import pytest
from offline_helpers import reply_and_core


@pytest.mark.parametrize(("said", "told"), [
    ("Andrea and Tom are my friends. She is a lawyer.", "Andrea is a lawyer"),
    ("Keiko and Tom are my friends. She is a lawyer.", "Keiko is a lawyer"),
    ("I met Keiko and Tom. She is a lawyer.", "Keiko is a lawyer"),
    ("Tom and Keiko work at Acme. She is my colleague.", "Keiko is User's colleague"),
    ("Sam and Ana are my friends. He is a lawyer.", "Sam is a lawyer"),
    ("Ana and Tom are my friends. She is a lawyer.", "Ana is a lawyer"),
    ("My sister and Tom work at Acme. She is a lawyer.", "User's sister is a lawyer"),
    ("I met Keiko. She is a lawyer.", "Keiko is a lawyer"),  # no one else named
])
def test_the_one_left_the_pronoun_fits_is_named(said: str, told: str) -> None:
    assert told in reply_and_core(said)[1]


def test_two_left_the_pronoun_fits_are_still_asked_of() -> None:
    reply, core = reply_and_core("Keiko and Yuki are my friends. She is a lawyer.")
    assert not [fact for fact in core if "lawyer" in fact]
    assert 'could not tell who "She" is' in reply
