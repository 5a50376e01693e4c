""""They" after one thing whose verb ends in "s" as a plural does ("The server keeps
crashing.", "The DB looks fine."): the verb was read as a plural noun ending "The server
keeps", so "They restarted." stored "The server keeps restarted". Who restarted it is
now asked about; a plural subject, or such a word before a verb said of several ("My
needs are simple.") or right after "the" or "my" ("The shows start at nine."), is still
several."""

from __future__ import annotations

import pytest
from offline_helpers import core_after

from tiermem.memory.text.pronoun_subjects import unnamed_pronouns, with_pronouns_named
from tiermem.memory.text.several_before import several_before


@pytest.mark.parametrize("said", [
    "The server keeps crashing.", "The DB looks fine.", "The server seems down.",
    "The queue stays full.", "The user wants a refund.", "My wife works late.",
    "The dashboard shows red.", "The analysis shows a leak.", "The bot pings me daily.",
])
def test_a_verb_of_one_is_no_plural(said: str) -> None:
    assert several_before(said) is None


@pytest.mark.parametrize(("said", "several"), [
    ("The servers keep crashing.", "The servers"),
    ("The web servers look fine.", "The web servers"),
    ("My needs are simple.", "My needs"),
    ("The dashboards show red.", "The dashboards"),
    ("The server logs stay empty.", "The server logs"),
    ("The shows start at nine.", "The shows"),
    ("Our lives changed.", "Our lives"),
    ("The sounds stopped.", "The sounds"),
])
def test_several_are_still_several(said: str, several: str) -> None:
    assert several_before(said) == several


def test_they_after_one_is_asked_about() -> None:
    sentences = ["The server keeps crashing.", "They restarted it."]
    assert (with_pronouns_named(sentences, None), unnamed_pronouns(sentences, None)) == (
        ["The server keeps crashing."], ["They"])


def test_core_holds_no_garbled_subject() -> None:
    held = core_after("The server keeps crashing. They restarted it.")
    assert not [fact for fact in held if "keeps restarted" in fact], held
