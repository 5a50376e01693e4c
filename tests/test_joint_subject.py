""""My wife and I ...": the speaker shares the subject, and the fact says so of them."""

from __future__ import annotations

import pytest
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
])
def test_the_speaker_in_a_joint_subject_is_told_in_the_third_person(
        sentence: str, told: str) -> None:
    assert [fact.text for fact in extract_facts(sentence)] == [told]


def test_a_joint_subject_is_stored_in_the_third_person() -> None:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        chat(memory, "My wife and I moved to Porto.")
        assert list(core_of(memory)) == ["User's wife and User moved to Porto"]
