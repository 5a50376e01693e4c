"""Shared by the tests of the offline fact extractor."""

from __future__ import annotations

from tiermem.memory.text.extract import ExtractedFact, extract_facts


def only_fact(text: str, speaker: str = "User") -> ExtractedFact:
    facts = extract_facts(text, speaker=speaker)
    assert len(facts) == 1, facts
    return facts[0]
