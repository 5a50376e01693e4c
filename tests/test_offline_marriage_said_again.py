"""A marital state said without the partner held beside it ("I'm married." after "I'm
married to Ana.") is that marriage said again: the fact held is re-asserted and no
"User is married" is stored beside it."""

from __future__ import annotations

from offline_helpers import core_after

from tiermem.agent.offline_statements import core_changes
from tiermem.memory.text.lasting_states import partner_left_out

HELD = {"User is married to Ana": "durable"}


def test_the_marriage_held_is_said_again() -> None:
    assert core_changes("I'm married.", HELD) == ([], HELD)
    assert core_after("I'm married to Ana.", "I'm married.") == ["User is married to Ana"]
    assert core_after("My brother is engaged to Eva.", "My brother is engaged now.") == [
        "User's brother is engaged to Eva"]


def test_another_state_or_subject_is_no_marriage_said_again() -> None:
    assert not partner_left_out("User is divorced", "User is married to Ana")
    assert not partner_left_out("User's brother is married", "User is married to Ana")
    # "to deliver it" names nobody, so "User is engaged" is a state of its own
    assert not partner_left_out("User is engaged", "User is engaged to deliver it by Friday")
    assert partner_left_out("User is married", "User is married to Ana Silva")
