""""He and Tom married in 2010." and "He and I went to school in the same town." with no
one named for "he": a wedding takes both of them, and a share whose only phrase left
names nothing ("to school") says nothing once what pairs them is cut off. Stored as "Tom
married in 2010" and "User: I went to school", they were garbled; like "... know each
other", they are said of neither alone, and the reply asks whom."""

from __future__ import annotations

import pytest
from offline_helpers import reply_and_core

from tiermem.memory.text.pronoun_subjects import with_pronouns_named


@pytest.mark.parametrize("said", [
    "He and Tom married in 2010.", "She and Tom got married last year.",
    "He and I divorced in 2015.", "She and Tom are engaged.",
    "He and I went to school in the same town.",
    "She and Tom grew up on the same street.",
])
def test_what_pairs_them_is_said_of_neither(said: str) -> None:
    assert with_pronouns_named([said], None) == []


@pytest.mark.parametrize("said", ["He and Tom married in 2010.",
                                  "He and I went to school in the same town."])
def test_the_reply_asks_and_core_holds_nothing_garbled(said: str) -> None:
    reply, held = reply_and_core(said)
    assert (held, 'could not tell who "He" is' in reply) == ([], True)


@pytest.mark.parametrize(("said", "told"), [
    ("He and I started at Globex in 2019 in different teams.", "I started at Globex in 2019."),
    ("She and Tom moved to Porto with their kids.", "Tom moved to Porto."),
])
def test_a_share_naming_a_place_or_year_is_kept(said: str, told: str) -> None:
    assert with_pronouns_named([said], None) == [told]
