""""She and Tom also live in Porto." with no one named for "she": Tom's share was stored
as "Tom also lives in Porto", whose "also" says besides whom no longer. What tells the
two of them of besides others ("also", "too", "as well") is left out of one's share."""

from __future__ import annotations

import pytest
from offline_helpers import core_after

from tiermem.memory.text.pronoun_subjects import with_pronouns_named


@pytest.mark.parametrize(("said", "told"), [
    ("She and Tom also live in Porto.", "Tom lives in Porto."),
    ("He and I also work at Globex.", "I work at Globex."),
    ("She and Tom live in Porto too.", "Tom lives in Porto."),
    ("He and I work at Globex as well.", "I work at Globex."),
    ("She and Tom still live in Porto, too.", "Tom still lives in Porto."),
])
def test_the_share_says_nothing_besides_others(said: str, told: str) -> None:
    assert with_pronouns_named([said], None) == [told]


def test_core_holds_toms_home_alone() -> None:
    assert core_after("She and Tom also live in Porto.") == ["Tom lives in Porto"]
