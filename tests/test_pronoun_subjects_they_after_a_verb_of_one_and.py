""""They" after one whose verb ends in "s" as a plural does, said before "and" and several
("The app crashes and the users are angry."): "app crashes" was read as one of several
joined to the users, so "They want refunds." stored "The app crashes and the users want
refunds". The users alone or both, that "they" is now asked about; several said in more
than one word ("The web servers and the pods are down.") are still joined."""

from __future__ import annotations

import pytest
from offline_helpers import core_after

from tiermem.memory.text.pronoun_subjects import unnamed_pronouns, with_pronouns_named
from tiermem.memory.text.several_before import several_before


@pytest.mark.parametrize("said", [
    "The app crashes and the users are angry.",
    "The job fails and the alerts fire.",
    "The dog barks and the cats hide.",
    "The server runs hot.",
    "The CPU spikes at noon.",
    "The build breaks and the devs are sad.",
])
def test_a_verb_of_one_joins_no_several(said: str) -> None:
    assert several_before(said) is None


@pytest.mark.parametrize(("said", "several"), [
    ("The web servers and the pods are down.", "The web servers and the pods"),
    ("The sales reps and the DB are here.", "The sales reps and the DB"),
    ("The shows and the movies start at nine.", "The shows and the movies"),
    ("The API and the worker pods are down.", "The API and the worker pods"),
])
def test_several_worded_are_still_joined(said: str, several: str) -> None:
    assert several_before(said) == several


def test_they_after_a_crash_and_the_users_is_asked_about() -> None:
    sentences = ["The app crashes and the users are angry.", "They want refunds."]
    assert (with_pronouns_named(sentences, None), unnamed_pronouns(sentences, None)) == (
        ["The app crashes and the users are angry."], ["They"])


def test_core_holds_no_crash_wanting_refunds() -> None:
    held = core_after("The app crashes and the users are angry. They want refunds.")
    assert not [fact for fact in held if "crashes and the users want" in fact], held
