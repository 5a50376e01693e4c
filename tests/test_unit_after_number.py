"""A unit written as a title is ("300 ms." and "Ms. Smith"): after a number it is the unit,
whose dot ends the sentence, and no part of the fact."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from offline_helpers import chat, core_of

from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.text.sentences import split_sentences, strip_terminator


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        yield m


def test_the_dot_after_a_unit_ends_the_sentence() -> None:
    assert split_sentences("The latency is 300 ms. The error rate is 5%.") == [
        "The latency is 300 ms.", "The error rate is 5%."]
    assert strip_terminator("The latency is 300 ms.") == "The latency is 300 ms"


def test_a_title_keeps_its_dot() -> None:
    assert split_sentences("I met Ms. Smith. She is nice.") == ["I met Ms. Smith.", "She is nice."]
    assert strip_terminator("I wrote to Ms.") == "I wrote to Ms."
    assert strip_terminator("I sent 3 letters to Ms.") == "I sent 3 letters to Ms."


def test_a_reading_in_ms_is_stored_as_other_facts_are(memory: HierarchicalMemory) -> None:
    chat(memory, "The latency is 300 ms.", "The p99 is 900 ms. The error rate is 5%.")
    assert list(core_of(memory)) == [
        "The latency is 300 ms", "The p99 is 900 ms", "The error rate is 5%"]


def test_a_height_in_feet_ends_at_its_dot(memory: HierarchicalMemory) -> None:
    chat(memory, "My son is 6 ft.")
    assert list(core_of(memory)) == ["User's son is 6 ft"]
    assert split_sentences("He is 6 ft. She is 5 ft.") == ["He is 6 ft.", "She is 5 ft."]
    # A measure that goes on is one sentence; a town's "Ft." is still a title.
    assert split_sentences("He is 6 ft. 2 in tall.") == ["He is 6 ft. 2 in tall."]
    assert strip_terminator("We drove to Ft.") == "We drove to Ft."


def test_a_height_in_feet_and_inches_keeps_what_it_measures(
        memory: HierarchicalMemory) -> None:
    chat(memory, "My son is 6 ft. 2 in. tall.")
    assert list(core_of(memory)) == ["User's son is 6 ft. 2 in. tall"]
    assert split_sentences("The shelf is 30 cm. wide. It is oak.") == [
        "The shelf is 30 cm. wide.", "It is oak."]
    # A capital after the unit's dot opens a sentence, whatever the word.
    assert split_sentences("The box is 5 kg. Heavy stuff.") == ["The box is 5 kg.",
                                                                "Heavy stuff."]
    assert split_sentences("The pipe is 3 in. The valve is 2 in.") == [
        "The pipe is 3 in.", "The valve is 2 in."]


@pytest.mark.parametrize(("said", "stored"), [
    ("My son is 6 ft. tall and plays basketball.",
     ["User's son is 6 ft. tall and plays basketball"]),
    ("I live 500 ft. from the office and I work at Acme.",
     ["User lives 500 ft. from the office", "User works at Acme"]),
    # Another word after the dot may open a sentence typed in lowercase.
    ("I'm 6 ft. and I live in Lisbon.", ["User is 6 ft", "User lives in Lisbon"]),
])
def test_a_measure_in_feet_goes_on_with_what_it_measures(
        memory: HierarchicalMemory, said: str, stored: list[str]) -> None:
    chat(memory, said)
    assert list(core_of(memory)) == stored
    assert split_sentences("my son is 6 ft. he loves chess.") == [
        "my son is 6 ft.", "he loves chess."]
