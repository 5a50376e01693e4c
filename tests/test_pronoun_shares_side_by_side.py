""""She and Tom have the same birthday." with no one named for "she": said of Tom alone it
was stored as "Tom has the same birthday", the same as no one's. What sets the two side
by side is left out, and the reply asks who she is."""

from __future__ import annotations

import pytest
from offline_helpers import reply_and_core

from tiermem.memory.text.pronoun_subjects import with_pronouns_named


@pytest.mark.parametrize("said", [
    "She and Tom have the same birthday.", "She and Tom have the same boss.",
    "She and Tom live in different cities.", "He and Tom have similar jobs.",
    "She and Tom have a lot in common.", "He and Tom live two blocks apart.",
    "She and Tom take turns on call.", "He and Tom alternate on call.",
    "She and Tom have both left.", "He and Tom can both cook.",
    "He and I have the same birthday.", "He and I work at the same company."])
def test_what_sets_the_two_side_by_side_is_left_out(said: str) -> None:
    assert with_pronouns_named([said], None) == []


def test_the_reply_asks_and_core_holds_nothing_garbled() -> None:
    reply, held = reply_and_core("She and Tom have the same birthday.")
    assert (held, 'could not tell who "' in reply) == ([], True)


@pytest.mark.parametrize(("said", "told"), [
    ("She and Tom both work at Globex.", "Tom works at Globex."),
    ("He and Tom have kids.", "Tom has kids."),
])
def test_a_share_of_one_alone_is_still_kept(said: str, told: str) -> None:
    assert with_pronouns_named([said], None) == [told]
