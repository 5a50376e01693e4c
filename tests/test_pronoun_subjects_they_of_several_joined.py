"""A "they" after several joined by "and" ("The servers and the pods are down."): each
of them was counted as another group the "they" may be, so "They were restarted." was
left out and the restart lost. Those the subject joins are the several it says."""

from __future__ import annotations

import pytest
from offline_helpers import core_after

from tiermem.memory.text.pronoun_subjects import unnamed_pronouns, with_pronouns_named


@pytest.mark.parametrize(("said", "they", "told"), [
    ("The servers and the pods are down.", "They were restarted.",
     "The servers and the pods were restarted."),
    ("My kids and my parents visited.", "They loved Porto.",
     "My kids and my parents loved Porto."),
    ("The DB, the cache and the queues are down.", "They were restarted.",
     "The DB, the cache and the queues were restarted."),
])
def test_the_several_joined_are_those_a_they_is(said: str, they: str, told: str) -> None:
    sentences = [said, they]
    assert (with_pronouns_named(sentences, None), unnamed_pronouns(sentences, None)) == (
        [said, told], [])


def test_another_group_beside_them_still_leaves_the_they_out() -> None:
    sentences = ["The servers and the pods are down.", "Tom and Ana are on it.",
                 "They were restarted."]
    assert unnamed_pronouns(sentences, None) == ["They"]


def test_core_holds_the_restart() -> None:
    held = core_after("The servers and the pods are down. They were restarted.")
    assert "The servers and the pods were restarted" in held
