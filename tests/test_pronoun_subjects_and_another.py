""""She and Tom moved to Porto." with no one named for "she": Tom's share is kept ("Tom
moved to Porto") and the reply asks who she is. Left out whole, Tom's move was lost. What
only the two of them can be or do ("He and Tom are friends") is not said of Tom alone."""

from __future__ import annotations

import pytest
from offline_helpers import core_after, reply_and_core

from tiermem.memory.text.pronoun_subjects import with_pronouns_named


@pytest.mark.parametrize(("said", "kept"), [
    ("She and Tom moved to Porto.", "Tom moved to Porto"),
    ("He and my wife work at Acme.", "User's wife works at Acme"),
    ("She and Tom are on call tonight.", "Tom is on call tonight"),
])
def test_the_share_of_the_one_named_is_kept(said: str, kept: str) -> None:
    reply, held = reply_and_core(said)
    assert held == [kept]
    assert 'could not tell who "' in reply


@pytest.mark.parametrize(("said", "told"), [
    ("He and Ana both live in Porto.", "Ana lives in Porto."),
    ("She and my son study at Oxford.", "My son studies at Oxford."),
    ("He and Tom don't eat meat.", "Tom doesn't eat meat."),
    ("She and Tom went home.", "Tom went home."),
    ("He and Tom can cook.", "Tom can cook."),
    # How often is no verb: read as one, "Tom usuallies work from home" was stored.
    ("She and Tom usually work from home.", "Tom usually works from home."),
    ("He and Tom always travel by train.", "Tom always travels by train."),
    ("She and Tom currently live in Porto.", "Tom currently lives in Porto."),
    ("He and Tom rely on cron.", "Tom relies on cron."),
])
def test_the_verb_is_said_of_one(said: str, told: str) -> None:
    assert with_pronouns_named([said], None) == [told]


@pytest.mark.parametrize("said", ["He and Tom are friends.", "She and Tom met in 2010.",
                                  "She and Tom's wife work at Acme.",
                                  "He and Berlin are great.",
                                  # Said of Tom alone: "Tom knows each other".
                                  "She and Tom know each other.",
                                  "He and Tom live together.",
                                  "She and Tom work together at Acme.",
                                  "He and my wife love one another.",
                                  # Said of Tom alone: "Tom has been friends for years".
                                  "He and Tom have been friends for years.",
                                  "She and Tom became roommates.", "He and Tom look alike.",
                                  "He and Tom used to be close colleagues."])
def test_what_takes_both_or_names_no_one_is_left_out(said: str) -> None:
    assert with_pronouns_named([said], None) == []


@pytest.mark.parametrize(("said", "told"), [
    ("He and Tom have been busy.", "Tom has been busy."),
    ("She and Tom have been nervous.", "Tom has been nervous."),
    ("He and Tom look tired.", "Tom looks tired."),
])
def test_what_one_alone_may_be_is_still_said_of_one(said: str, told: str) -> None:
    assert with_pronouns_named([said], None) == [told]


def test_one_named_before_still_shares_it() -> None:
    assert "Ana and Tom moved to Porto" in core_after(
        "Ana works at Globex.", "She and Tom moved to Porto.")


@pytest.mark.parametrize("said", ["He and my wife and I live in Porto.",
                                  "He and my old friend work at Acme.",
                                  "He and Tom Smith work at Acme.", "She and Tom too.",
                                  "He and Tom usually."])
def test_no_verb_is_made_of_what_is_none(said: str) -> None:
    """Read as verbs, "and", "friend" and "Smith" would be said of one: "My wife ands I live
    in Porto", "My old friends work at Acme"."""
    assert with_pronouns_named([said], None) == []
