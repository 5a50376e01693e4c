"""Shared by the tests of the offline fact extractor."""

from __future__ import annotations

from memory_helpers import make_memory

from tiermem.memory.text.extract import ExtractedFact, extract_facts


def only_fact(text: str, speaker: str = "User") -> ExtractedFact:
    facts = extract_facts(text, speaker=speaker)
    assert len(facts) == 1, facts
    return facts[0]


def check_known_by_earlier_words(older: str, sentence: str) -> None:
    """``sentence`` told again finds the fact stored in an earlier version's words
    (``older``): re-asserted, not stored twice; forgotten in them, not extracted again."""
    with make_memory() as m:
        first = m.add_fact(older, "durable")
        assert m.process_interaction(sentence, "Noted.") == [first]
        assert [f.text for f in m.facts()] == [older]
    with make_memory() as m:
        m.add_fact(older, "durable")
        assert m.forget(older).forgotten.facts != ()
        m.process_interaction(sentence, "Noted.")
        assert m.facts() == []
