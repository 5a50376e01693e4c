"""A secret holds one value: said plainly, a new one ends the one held whatever either
looks like ("My password is swordfish" after "hunter2" kept both passwords, where "My PIN
is 4321" after "1234" already ended it); a word saying how it is leaves the value held."""

from __future__ import annotations

import pytest
from offline_helpers import core_after


@pytest.mark.parametrize(("held", "said", "kept"), [
    ("My password is hunter2.", "My password is swordfish.", ["User's password is swordfish"]),
    ("My password is swordfish.", "My password is hunter2.", ["User's password is hunter2"]),
    ("My PIN is 1234.", "My PIN is 4321.", ["User's PIN is 4321"]),
    ("My passcode is tulip.", "My passcode is 0000.", ["User's passcode is 0000"]),
    ("My Wi-Fi password is hunter2.", "My Wi-Fi password is marlin.",
     ["User's Wi-Fi password is marlin"]),
    ("My password is hunter2 and my PIN is 1234.", "My password is swordfish.",
     ["User's PIN is 1234", "User's password is swordfish"]),
])
def test_a_new_value_ends_the_one_held(held: str, said: str, kept: list[str]) -> None:
    assert sorted(core_after(held, said)) == sorted(kept)


@pytest.mark.parametrize(("held", "said"), [
    # how the secret is, not what it is
    ("My password is hunter2.", "My password is strong."),
    ("My PIN is 1234.", "My PIN is expired."),
    # a state, a place or a word of no value, which ended the value held
    ("My password is hunter2.", "My password is revoked."),
    ("My password is hunter2.", "My password is unknown."),
    ("My password is hunter2.", "My password is memorable."),
    ("My password is hunter2.", "My password is personal."),
    ("My password is hunter2.", "My password is mandatory."),
    ("My password is hunter2.", "My password is here."),
    ("My password is hunter2.", "My password is none."),
    ("My token is abc123.", "My token is expiring."),
    ("My API key is abc123.", "My API key is read-only."),
    # how long it is, a number of characters, ended "hunter2" as a code would
    ("My password is hunter2.", "My password is 12 characters long."),
    ("My PIN is 1234.", "My PIN is 4 digits now."),
    # a secret's other words, and another's secret
    ("My password is hunter2.", "My email password is swordfish."),
    ("My password is hunter2.", "My sister's password is swordfish."),
])
def test_what_is_no_new_value_leaves_it(held: str, said: str) -> None:
    assert len(core_after(held, said)) == 2
