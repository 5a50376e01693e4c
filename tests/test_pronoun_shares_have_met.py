""""She and Tom have met before." with no one named for "she": said of Tom alone it was
stored as "Tom has met before", as "He and I have met." stored "I have met": what takes
both of them is left out after "have" as it is without it ("She and Tom met in 2010")."""

from __future__ import annotations

import pytest
from offline_helpers import reply_and_core

from tiermem.memory.text.pronoun_subjects import with_pronouns_named


@pytest.mark.parametrize("said", [
    "She and Tom have met before.", "He and I have met.", "He and I had never met.",
    "She and Tom have dated since May.", "He and Tom haven't talked in years.",
    "He and I have shared an office."])
def test_what_takes_both_is_left_out_after_have(said: str) -> None:
    assert with_pronouns_named([said], None) == []


def test_the_reply_asks_and_core_holds_nothing_garbled() -> None:
    reply, held = reply_and_core("She and Tom have met before.")
    assert (held, 'could not tell who "' in reply) == ([], True)


@pytest.mark.parametrize(("said", "told"), [
    ("She and Tom have lived in Porto.", "Tom has lived in Porto."),
    ("He and I have worked at Globex.", "I have worked at Globex."),
])
def test_what_one_alone_has_done_is_still_kept(said: str, told: str) -> None:
    assert with_pronouns_named([said], None) == [told]
