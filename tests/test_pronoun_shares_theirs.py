""""He and Tom watch their weight." with no one named for "he": said of Tom alone it was
stored as "Tom watches their weight", whose "their" no longer says whose. What names the
two of them again is left out, and the reply asks who he is."""

from __future__ import annotations

import pytest
from offline_helpers import reply_and_core

from tiermem.memory.text.pronoun_subjects import with_pronouns_named


@pytest.mark.parametrize("said", [
    "She and Tom watch their weight.",
    "She and Tom enjoy themselves.", "He and Tom visit them every week.",
    "She and my son love their jobs."])
def test_what_names_the_two_again_is_left_out(said: str) -> None:
    assert with_pronouns_named([said], None) == []


def test_the_reply_asks_and_core_holds_nothing_garbled() -> None:
    reply, held = reply_and_core("He and Tom visit them every week.")
    assert (held, 'could not tell who "' in reply) == ([], True)


def test_a_share_that_names_no_pair_is_still_kept() -> None:
    assert with_pronouns_named(["He and Tom live in Porto with Tom's kids."], None) == [
        "Tom lives in Porto with Tom's kids."]
