""""He and I work at the hospital on different floors." with no one named for "he": the
phrase pairing them was cut off and the share kept only if what was left named a firm, a
place or a year, so "User works at the hospital" and "... in sales" were lost. Only a
phrase that says nothing of its own ("to school") now leaves the share out."""

from __future__ import annotations

import pytest
from offline_helpers import core_after

from tiermem.memory.text.pronoun_subjects import with_pronouns_named


@pytest.mark.parametrize(("said", "told"), [
    ("He and I work at the hospital on different floors.", "I work at the hospital."),
    ("He and I work in sales in different offices.", "I work in sales."),
    ("She and Tom work in marketing at different firms.", "Tom works in marketing."),
])
def test_a_share_naming_what_they_do_is_kept(said: str, told: str) -> None:
    assert with_pronouns_named([said], None) == [told]


@pytest.mark.parametrize("said", ["He and I went to school in the same town.",
                                  "He and I went to college in different cities."])
def test_a_share_saying_nothing_of_its_own_is_left_out(said: str) -> None:
    assert with_pronouns_named([said], None) == []


def test_core_holds_where_the_user_works() -> None:
    held = core_after("He and I work at the hospital on different floors.")
    assert held == ["User works at the hospital"]
