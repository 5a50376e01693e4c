""""He and I work at Globex in different teams." with no one named for "he": what sets the
two side by side, or names them again ("with their kids"), is a phrase of its own after
the share. Left out whole, the user's job went with it; the phrase alone is cut off."""

from __future__ import annotations

import pytest
from offline_helpers import reply_and_core

from tiermem.memory.text.pronoun_subjects import with_pronouns_named


@pytest.mark.parametrize(("said", "told"), [
    ("He and I work at Globex in different teams.", "I work at Globex."),
    ("She and I work at Globex, but in different offices.", "I work at Globex."),
    ("She and I moved to Porto with their help.", "I moved to Porto."),
    ("He and Tom live in Porto with their kids.", "Tom lives in Porto."),
    ("She and Tom work at Globex on the same team.", "Tom works at Globex."),
])
def test_the_share_before_a_pairing_phrase_is_kept(said: str, told: str) -> None:
    assert with_pronouns_named([said], None) == [told]


def test_core_holds_the_users_job() -> None:
    _, held = reply_and_core("He and I work at Globex in different teams.")
    assert held == ["User works at Globex"]
