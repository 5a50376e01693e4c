"""Being without work and a job held end each other when one follows, with a change cue
or plainly ("My brother is unemployed now", or "I'm unemployed" after "I work at Acme"):
core never says both of one person. Another person's job leaves it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from offline_helpers import chat, core_of

from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.text.lasting_states import job_changed


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        yield m


@pytest.mark.parametrize(("held", "said", "now"), [
    ("My brother works at Acme.", "My brother is unemployed now.",
     ["User's brother is unemployed"]),
    ("My brother is unemployed.", "My brother works at Acme now.",
     ["User's brother works at Acme"]),
    ("I work at Acme.", "I'm retired now.", ["User is retired"]),
    ("I work at Acme.", "I'm unemployed.", ["User is unemployed"]),
    ("I'm unemployed.", "I work at Globex.", ["User works at Globex"]),
    ("My wife works as a nurse.", "My wife is retired.", ["User's wife is retired"]),
    ("My brother works at Acme.", "My sister is unemployed now.",
     ["User's brother works at Acme", "User's sister is unemployed"]),
])
def test_no_work_and_a_job_end_each_other(memory: HierarchicalMemory, held: str, said: str,
                                          now: list[str]) -> None:
    chat(memory, held, said)
    assert sorted(core_of(memory)) == now


def test_only_no_work_of_the_same_subject_ends_a_job() -> None:
    assert job_changed("User's wife is retired", "User's wife works as a nurse")
    assert not job_changed("User is unemployed", "User's brother works at Acme")
    assert not job_changed("User is tired", "User works at Acme")
