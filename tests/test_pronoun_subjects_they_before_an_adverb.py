"""A "they" after several whose verb follows a word of how or when, or takes a plural
("The servers always crash.", "The kids love cats a lot."): that word or the plural
after the verb was read as the end of the several, so "They are old." stored "The
servers always are old" and "They are cute." "The kids love cats are cute"; the kids
or the cats, that "they" is now asked about."""

from __future__ import annotations

import pytest
from offline_helpers import core_after

from tiermem.memory.text.pronoun_subjects import unnamed_pronouns, with_pronouns_named


@pytest.mark.parametrize(("said", "told"), [
    ("The servers always crash.", "The servers are old."),
    ("My kids sometimes visit.", "My kids are old."),
    ("The servers and the pods always crash.", "The servers and the pods are old."),
    ("The sales reps are here.", "The sales reps are old."),
])
def test_the_several_end_before_their_verb(said: str, told: str) -> None:
    assert with_pronouns_named([said, "They are old."], None) == [said, told]


def test_a_plural_after_the_verb_is_no_part_of_them() -> None:
    sentences = ["The kids love cats a lot.", "They are cute."]
    # The kids or the cats: asked, never "The kids love cats are cute".
    assert (with_pronouns_named(sentences, None), unnamed_pronouns(sentences, None)) == (
        ["The kids love cats a lot."], ["They"])


def test_core_holds_the_servers_old() -> None:
    held = core_after("The servers always crash. They are old.")
    assert ("The servers are old" in held, "The servers always are old" in held) == (
        True, False)
