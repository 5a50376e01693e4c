""""My wife and I ...": the speaker shares the subject, and the fact says so of them."""

from __future__ import annotations

import pytest
from extract_helpers import check_known_by_earlier_words
from offline_helpers import chat, core_of

from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.text.extract import extract_facts


@pytest.mark.parametrize(("sentence", "told"), [
    ("My wife and I moved to Porto.", "User's wife and User moved to Porto"),
    ("My team and I own the billing service.", "User's team and User own the billing service"),
    ("My boss or I will be on call.", "User's boss or User will be on call"),
    ("I live in Lisbon, and my wife and I love it.",
     "User lives in Lisbon, and User's wife and User love it"),
    # Another clause of the speaker's own opens after "and": told as one as before.
    ("I live with my wife and I love her.", "User lives with User's wife and User loves her"),
    # "me" as the speaker's half, and a sentence that opens by saying when.
    ("My wife and me moved to Porto.", "User's wife and User moved to Porto"),
    ("Last year my wife and I moved to Porto.", "Last year User's wife and User moved to Porto"),
    ("Two years ago, my wife and I moved to Porto.",
     "Two years ago, User's wife and User moved to Porto"),
    # ... but not "me" as an object, nor a sentence whose other first person no rule tells.
    ("He gave my wife and me a gift.", "User: He gave my wife and me a gift"),
    ("Yesterday my wife and I went home and I slept.",
     "User: Yesterday my wife and I went home and I slept"),
])
def test_the_speaker_in_a_joint_subject_is_told_in_the_third_person(
        sentence: str, told: str) -> None:
    assert [fact.text for fact in extract_facts(sentence)] == [told]


def test_a_joint_subject_is_stored_in_the_third_person() -> None:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        chat(memory, "My wife and I moved to Porto.")
        assert list(core_of(memory)) == ["User's wife and User moved to Porto"]


@pytest.mark.parametrize(("older", "sentence"), [
    ("User's wife and me moved to Porto", "My wife and me moved to Porto."),
    ("User: Last year my wife and I moved to Porto", "Last year my wife and I moved to Porto."),
])
def test_a_joint_subject_stored_in_earlier_words_is_still_known(older: str, sentence: str
                                                                 ) -> None:
    check_known_by_earlier_words(older, sentence)
