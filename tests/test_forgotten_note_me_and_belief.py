"""What the user and others named with them think or know of someone else is that one's:
"Me and my wife think Anna uses vim." says nothing of the user's use of vim, and a note
naming "User uses vim" beside it would tell a fact the message never said."""

from __future__ import annotations

from tiermem.memory.ops.fact_said import says
from tiermem.memory.text.owners import owner_of

VIM = "User uses vim"


def test_a_belief_of_several_about_another_is_the_others() -> None:
    assert not says("Me and my wife think Anna uses vim.", VIM)
    assert not says("Me and Tom think Anna uses vim.", VIM)
    assert not says("Me and Tom heard Anna uses vim.", VIM)
    assert not says("Me and Tom know Anna lives in Berlin.", "User lives in Berlin")
    whose = owner_of("Me and my wife think Anna uses vim.")
    assert whose is not None and whose.name == "anna" and not whose.user


def test_what_several_with_the_user_do_is_still_the_users() -> None:
    assert owner_of("Me and my wife know we use vim.") is None
    assert says("Me and my wife know we use vim.", VIM)
