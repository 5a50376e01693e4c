"""Others said to leave the user out ("everyone but me") say the fact of everyone else:
the user's "me" after "but" is the one left out, not the subject of the verb."""

from __future__ import annotations

import pytest

from tiermem.memory.ops.fact_said import says

CASES = [
    ("Everyone but me uses vim.", "User uses vim", False),
    ("Everyone but me lives in Berlin.", "User lives in Berlin", False),
    ("All of us but me use vim.", "User uses vim", False),
    ("Everybody except me uses vim.", "User uses vim", False),
    ("Everyone but me has a dog named Rex.", "User has a dog named Rex", False),
    # No one else: the user alone does it; and the user's own statement beside it.
    ("Nobody but me uses vim.", "User uses vim", True),
    ("Everyone but me uses emacs. I use vim.", "User uses vim", True),
    ("Everyone knows I use vim.", "User uses vim", True),
]


@pytest.mark.parametrize(("said", "fact", "stated"), CASES)
def test_the_user_left_out_of_others_is_not_said_to_do_it(said: str, fact: str,
                                                         stated: bool) -> None:
    assert says(said, fact) is stated
