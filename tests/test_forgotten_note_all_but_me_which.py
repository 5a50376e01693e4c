"""Others said to leave the user out leave them out however it is said which others are
meant: "Everyone in my team but me uses vim." says the user does not, and a note naming
"User uses vim" beside it would tell a fact the message never said."""

from __future__ import annotations

from tiermem.memory.ops.fact_said import says

VIM = "User uses vim"
LEFT_OUT = ("Everyone in my team but me uses vim.", "All my friends but me use vim.",
            "All of my friends except for me use vim.", "The rest of the team but me uses vim.",
            "We all use vim except me.")
#: A word like "all" elsewhere leaves no one out.
SAID = ("I use vim all the time.", "All of us use vim, even me.",
        "I use vim, like all my friends, but my boss uses emacs.")


def test_others_named_more_closely_still_leave_the_user_out() -> None:
    stated = {said: says(said, VIM) for said in LEFT_OUT + SAID}
    assert stated == {said: said in SAID for said in LEFT_OUT + SAID}
