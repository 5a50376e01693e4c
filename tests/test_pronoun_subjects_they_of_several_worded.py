"""A "they" after several joined by "and" where one of them takes more than one word
("The web servers and the pods are down.", "My kids and Tom's kids are at school."):
only "the" and one word was read as one of them, so the "they" was asked about, or said
of "My kids" alone, and Tom's kids were lost from what was said of them all."""

from __future__ import annotations

import pytest
from offline_helpers import core_after

from tiermem.memory.text.pronoun_subjects import unnamed_pronouns, with_pronouns_named
from tiermem.memory.text.several_before import several_before


@pytest.mark.parametrize(("said", "they", "told"), [
    ("The web servers and the pods are down.", "They were restarted.",
     "The web servers and the pods were restarted."),
    ("My kids and Tom's kids are at school.", "They are fine.",
     "My kids and Tom's kids are fine."),
    ("The API and the worker pods are down.", "They restarted at 5pm.",
     "The API and the worker pods restarted at 5pm."),
    ("The primary DB and the read replicas lag.", "They caught up.",
     "The primary DB and the read replicas caught up."),
    ("Tom and the on call SRE are on it.", "They fixed it.",
     "Tom and the on call SRE fixed it."),
    ("Tom and the on call engineer are on it.", "They fixed it.",
     "Tom and the on call engineer fixed it."),
])
def test_each_of_several_is_said_whole(said: str, they: str, told: str) -> None:
    sentences = [said, they]
    assert (with_pronouns_named(sentences, None), unnamed_pronouns(sentences, None)) == (
        [said, told], [])


@pytest.mark.parametrize(("said", "several"), [
    ("My wife and the kids love dogs a lot.", "My wife and the kids"),
    ("The servers and the pods restarted the jobs.", "The servers and the pods"),
    ("The DB, the cache and the queues are down.", "The DB, the cache and the queues"),
])
def test_the_several_end_where_their_verb_begins(said: str, several: str) -> None:
    assert several_before(said) == several


def test_core_holds_the_restart_of_both() -> None:
    held = core_after("The web servers and the pods are down. They were restarted.")
    assert "The web servers and the pods were restarted" in held


def test_core_holds_both_kids_fine() -> None:
    held = core_after("My kids and Tom's kids are at school. They are fine.")
    assert ("User's kids and Tom's kids are fine" in held, "User's kids are fine" in held
            ) == (True, False)
