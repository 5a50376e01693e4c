""""Tom is my brother and she is my colleague.": the "she" is not Tom, a man by his name
and his relation. Read as the subject before it, "Tom is User's colleague" was stored; the
part stays joined to the one before, as said."""

from __future__ import annotations

import pytest
from offline_helpers import core_after

from tiermem.memory.text.clauses import clauses_of

# kept whole: the pronoun is of the other sex than the subject before it
_KEPT = ["Tom is User's brother and she is User's colleague",
         "User's brother lives in Rome and she works at Google",
         "Ana is tall and he is a doctor",
         "Tom's wife lives in Rome and he works at Google",
         "Tom is tall and her car is red",
         # the speaker, or one of a sex, is never an "it"
         "User lives in Rome and it is sunny", "Tom lives in Rome and it is sunny",
         "User is tall and its colour is red",
         # the speaker says "I": a "she" or "her" after them is someone else
         "User lives in Rome and she is a nurse", "User loves Ana and her smile is lovely",
         "User likes Ana and she is kind",
         # a subject named after its verb: she is not Tom
         "User's boss is Tom and she is strict", "User's boss is Ana and he is strict",
         # two are never a "he" or "she", nor is a thing of someone's
         "Ana and Tom are User's neighbours and she is a teacher",
         "Tom and User are friends and he lives in Rome",
         "User's car is red and she is a nurse", "Tom's car is blue and his bike is red",
         "User's brother's car is blue and his bike is red",
         # a name after a relation that says no sex: he is not Ana
         "User's friend Ana is a doctor and he works nights"]
# told of the subject before: the pronoun may be them
_TOLD = {"User's sister lives in Rome and she works at Google": "User's sister",
         "Tom's wife lives in Rome and she works at Google": "Tom's wife",
         "Sam is tall and she is a doctor": "Sam",
         "User's car is a Tesla and it is red": "User's car",
         "User's boss is Ana and she is strict": "User's boss",
         "User's friend Ana is a doctor and she works nights": "User's friend Ana",
         "User's cat is Luna and she is three": "User's cat"}


@pytest.mark.parametrize("fact", [*_KEPT, *_TOLD])
def test_a_pronoun_is_the_subject_before_only_when_it_may_be(fact: str) -> None:
    first, _, rest = fact.partition(" and ")
    told = [first, f"{_TOLD[fact]} {rest.split(' ', 1)[1]}"] if fact in _TOLD else [fact]
    assert clauses_of(fact) == told


def test_she_after_a_brother_is_never_him() -> None:
    held = core_after("Ana is my sister.", "Tom is my brother and she is my colleague.")
    assert "Tom is User's colleague" not in held
    assert "Ana is User's sister" in held


def test_it_after_the_speaker_is_never_the_speaker() -> None:
    assert core_after("I live in Rome and it is sunny.") == ["User lives in Rome and it is sunny"]


@pytest.mark.parametrize("said", ["Ana and Tom are my neighbours, she is a teacher.",
                                  "My car is blue, his car is red.",
                                  "My friend Ana is a doctor, he works nights."])
def test_a_pronoun_after_a_comma_no_one_before_may_be_is_kept_with_it(said: str) -> None:
    assert len(core_after(said)) == 1
