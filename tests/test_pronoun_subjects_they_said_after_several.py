""""They" right after a statement whose subject is several: "The servers are down. They
restarted at 5pm." stored only that the servers are down, and the reply asked who "they"
are; "My wife and my sister met. They work at Globex." lost where both work. The "they"
is the several that statement opens with."""

from __future__ import annotations

import pytest
from offline_helpers import core_after

from tiermem.memory.text.pronoun_subjects import with_pronouns_named


@pytest.mark.parametrize(("before", "told"), [
    ("The servers are down.", "The servers restarted at 5pm."),
    ("The database servers were slow.", "The database servers restarted at 5pm."),
    ("Tom and Ana moved.", "Tom and Ana restarted at 5pm."),
    ("Tom, Ana and Eva moved.", "Tom, Ana and Eva restarted at 5pm."),
    ("My wife and my sister met.", "My wife and my sister restarted at 5pm."),
    ("My sister and my brothers visited.", "My sister and my brothers restarted at 5pm."),
])
def test_a_they_is_the_several_said_right_before(before: str, told: str) -> None:
    assert with_pronouns_named(["They restarted at 5pm."], before) == [told]


@pytest.mark.parametrize("before", ["The status is red.", "Tom and I moved.",
                                    "Tom and Ana's kids are here.", "Tom met my parents."])
def test_no_several_opening_it_leaves_the_they_out(before: str) -> None:
    assert with_pronouns_named(["They restarted at 5pm."], before) == []


@pytest.mark.parametrize(("said", "held"), [
    ("The servers are down. They restarted at 5pm.", "The servers restarted at 5pm"),
    ("My wife and my sister met. They work at Globex.",
     "User's wife and User's sister work at Globex"),
    ("My parents are Tom and Ana. They live in Porto.", "User's parents live in Porto"),
])
def test_core_holds_what_they_did(said: str, held: str) -> None:
    assert held in core_after(said)
