""""He and I work at Globex." with no one named for "he": the user's own share is kept
("User works at Globex") and the reply asks who he is. Left out whole, the user's job was
lost. What only the two of them can be or do ("He and I are friends") is not said of the
user alone."""

from __future__ import annotations

import pytest
from offline_helpers import core_after, reply_and_core

from tiermem.memory.text.pronoun_subjects import with_pronouns_named


@pytest.mark.parametrize(("said", "kept"), [
    ("He and I work at Globex.", "User works at Globex"),
    ("She and I are on call tonight.", "User is on call tonight"),
    ("He and I live in Porto.", "User lives in Porto"),
])
def test_the_users_share_is_kept(said: str, kept: str) -> None:
    reply, held = reply_and_core(said)
    assert held == [kept]
    assert 'could not tell who "' in reply


@pytest.mark.parametrize("said", ["He and I are friends.", "He and I were roommates.",
                                  "She and I met in 2010.",
                                  # Said of the user alone: "User: I know each other".
                                  "He and I know each other.", "She and I live together.",
                                  "He and I work together at Acme.",
                                  "He and I have been friends for years.",
                                  "He and I look alike."])
def test_what_takes_the_two_of_them_is_not_said_of_the_user(said: str) -> None:
    assert with_pronouns_named([said], None) == []


def test_one_named_before_still_shares_it() -> None:
    assert "Tom and User work at Globex" in core_after(
        "Tom called.", "He and I work at Globex.")
