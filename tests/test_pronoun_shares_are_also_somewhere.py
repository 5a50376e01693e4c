""""She and Tom are also in Porto." with no one named for "she" stored nothing: "also"
after "are" hid where Tom is, so his share was lost with hers. It is left out of the
share, as an "also" before the verb is."""

from __future__ import annotations

import pytest
from offline_helpers import core_after

from tiermem.memory.text.pronoun_subjects import with_pronouns_named


@pytest.mark.parametrize(("said", "told"), [
    ("She and Tom are also in Porto.", ["Tom is in Porto."]),
    ("He and I are also on call.", ["I am on call."]),
    ("She and Tom are also nurses.", []),
])
def test_an_also_after_are_is_left_out(said: str, told: list[str]) -> None:
    assert with_pronouns_named([said], None) == told


def test_core_holds_where_tom_is() -> None:
    assert core_after("She and Tom are also in Porto.") == ["Tom is in Porto"]
