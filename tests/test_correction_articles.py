"""The article before a corrected word fits how the new word is said, "h" and "u" too."""

from __future__ import annotations

import pytest

from tiermem.memory.text.corrections import corrected, correction_of


@pytest.mark.parametrize(("fact", "sentence", "fixed"), [
    # A sounded "h" takes "a", a silent one "an".
    ("User drives an Audi", "sorry i meant honda, not audi", "User drives a Honda"),
    ("User has an Apple Watch", "sorry i meant hublot, not apple watch", "User has a Hublot"),
    ("The wait is a day", "sorry i meant hour, not day", "The wait is an hour"),
    ("It was a mistake", "sorry i meant honest mistake, not mistake",
     "It was an honest mistake"),
    # A "u" said "you" takes "a"; one said as a vowel takes "an".
    ("User is an admin", "sorry i meant user, not admin", "User is a user"),
    ("User bought an SSD", "sorry i meant usb drive, not ssd", "User bought a Usb Drive"),
    ("User bought an SSD", "Sorry, I meant usb drive, not SSD", "User bought a usb drive"),
    ("User took a taxi", "sorry i meant uber, not taxi", "User took an uber"),
    ("User carries a hat", "sorry i meant umbrella, not hat", "User carries an umbrella"),
    ("User runs a Mac", "sorry i meant unix box, not mac", "User runs a Unix Box"),
    # Where the spelling still does not tell, the article stays as it was.
    ("User has a Kindle", "sorry i meant 1984 edition, not kindle", "User has a 1984 Edition"),
])
def test_the_article_is_fitted_to_h_and_u(fact: str, sentence: str, fixed: str) -> None:
    correction = correction_of(sentence)
    assert correction is not None
    assert corrected(fact, correction) == fixed
