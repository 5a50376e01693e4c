""""He and I are both on call." with no one named for "he" stored nothing, "are both"
read as what only the two of them can be, so the user's share was lost; and "He and I
both of us work at Globex." stored "User: I of us work at Globex". A "both" that only
says each is somewhere is left out of the share; what takes both still keeps none."""

from __future__ import annotations

import pytest
from offline_helpers import core_after

from tiermem.memory.text.pronoun_subjects import with_pronouns_named


@pytest.mark.parametrize(("said", "told"), [
    ("He and I are both on call.", ["I am on call."]),
    ("He and I were both at Globex.", ["I was at Globex."]),
    ("She and Tom are both in Porto.", ["Tom is in Porto."]),
    ("He and I both of us work at Globex.", ["I work at Globex."]),
    ("He and I are both nurses.", []),
    ("She and Tom have both left.", []),
    ("He and I are both on different teams.", []),
])
def test_a_both_of_where_each_is_is_left_out(said: str, told: list[str]) -> None:
    assert with_pronouns_named([said], None) == told


def test_core_holds_the_user_on_call() -> None:
    assert core_after("He and I are both on call.") == ["User is on call"]
