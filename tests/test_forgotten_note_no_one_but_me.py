""""Nobody except me uses vim" names others only to leave them out: the user alone uses
vim, as "Nobody but me uses vim" says."""

from __future__ import annotations

from tiermem.memory.ops.fact_said import says

VIM = "User uses vim"


def test_no_one_but_the_user_says_it_of_the_user() -> None:
    assert says("Nobody except me uses vim.", VIM)
    assert says("No one other than me uses vim.", VIM)
    assert says("No one except me has a dog named Rex.", "User has a dog named Rex")
    assert says("Nobody but me uses vim.", VIM)


def test_no_one_alone_or_a_belief_of_another_says_nothing() -> None:
    assert not says("Nobody uses vim.", VIM)
    assert not says("Nobody except me knows Anna uses vim.", VIM)
    assert not says("Everyone except me uses vim.", VIM)
