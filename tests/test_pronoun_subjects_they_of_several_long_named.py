""""They" after several joined by "and" whose first is said in more than one word and is
no plural ("The web server and the DB are down."): only "the" and one word was read as one
of them, so that statement said no several, and "They recovered" after it was asked
about and lost. A verb or what was done said before "and" ("The server crashed and the
pods are down.", "The server froze and the pods are down.": the pods are down alone)
still joins no one."""

from __future__ import annotations

import pytest
from offline_helpers import core_after

from tiermem.memory.text.pronoun_subjects import unnamed_pronouns, with_pronouns_named
from tiermem.memory.text.several_before import several_before


@pytest.mark.parametrize(("said", "several"), [
    ("The web server and the DB are down.", "The web server and the DB"),
    ("The web server and the database were slow.", "The web server and the database"),
    ("The primary database, the web server and the cache are down.",
     "The primary database, the web server and the cache"),
    ("Tom's old laptop and my phone are broken.", "Tom's old laptop and my phone"),
    # The last a plural: the verb agrees with them all as well.
    ("The web server and the pods are down.", "The web server and the pods"),
    ("The primary database and the replicas are down.",
     "The primary database and the replicas"),
    ("My older sister and my little brothers are visiting.",
     "My older sister and my little brothers"),
])
def test_a_first_one_of_several_words_is_said_whole(said: str, several: str) -> None:
    assert several_before(said) == several


@pytest.mark.parametrize("said", [
    "The server crashed and the pods are down.",
    "The server went down and the pods are down.",
    "The server is slow and the pods are down.",
    "The server hit its limit and the pods are down.",
    "The web server and the DB restarted.",
    # A verb of the past said without "-ed", before several the verb agrees with alone.
    "The server froze and the pods are down.",
    "The cluster shrank and the pods were evicted.",
    "My son won and my daughters were happy.",
])
def test_what_one_did_before_and_joins_no_several(said: str) -> None:
    assert several_before(said) is None


def test_they_is_said_of_both() -> None:
    sentences = ["The web server and the DB are down.", "They recovered."]
    assert (with_pronouns_named(sentences, None), unnamed_pronouns(sentences, None)) == (
        ["The web server and the DB are down.", "The web server and the DB recovered."], [])


def test_they_after_one_that_froze_and_the_pods_is_asked_about() -> None:
    sentences = ["The server froze and the pods are down.", "They restarted."]
    assert (with_pronouns_named(sentences, None), unnamed_pronouns(sentences, None)) == (
        ["The server froze and the pods are down."], ["They"])


def test_core_holds_that_both_recovered() -> None:
    held = core_after("The web server and the DB are down. They recovered.")
    assert "The web server and the DB recovered" in held
