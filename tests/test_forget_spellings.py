"""A fact's key reads its text composed (NFC): "é" typed as one character or as "e" and
U+0301 is one fact, and a fact forgotten in one spelling is not extracted again in the
other. Keys and forgotten hashes an earlier version stored, without that rule, still find
and block what they did (memory/text/fact_keys.py). Exact matching reads a text without the
marks of no width in it, which the user cannot see to type."""

from __future__ import annotations

import unicodedata
from pathlib import Path
from typing import Any

import pytest
from memory_helpers import backend_place, make_memory

from tiermem.memory import HashingEmbedder
from tiermem.memory.errors import SnapshotError
from tiermem.memory.hierarchy import HierarchicalMemory
from tiermem.memory.text.digest import norm_hash
from tiermem.memory.text.extract import earlier_fact_norms, fact_norm

SAID = "I live in Café Street."
FACT = "User lives in Café Street"
SPELLINGS = [("NFC", "NFD"), ("NFD", "NFC")]


def _spelled(form: str, text: str) -> str:
    return unicodedata.normalize(form, text)


@pytest.fixture(params=["sqlite", "postgres"])
def where(request: pytest.FixtureRequest, tmp_path: Path) -> dict[str, Any]:
    return backend_place(request, tmp_path, "spellings")


@pytest.mark.parametrize(("first", "then"), SPELLINGS)
def test_a_fact_forgotten_is_not_extracted_again_in_the_other_spelling(
        where: dict[str, Any], first: str, then: str) -> None:
    with make_memory(**where) as m:
        m.process_interaction(_spelled(first, SAID), "ok")
        assert m.forget(_spelled(first, SAID)).forgotten.facts != ()
        assert m.process_interaction(_spelled(then, SAID), "ok") == []
        assert list(m.core) == []


@pytest.mark.parametrize(("first", "then"), SPELLINGS)
def test_a_fact_in_either_spelling_is_stored_once(where: dict[str, Any], first: str,
                                                  then: str) -> None:
    with make_memory(**where) as m:
        one = m.add_fact(_spelled(first, "User likes Café Noir"), "durable")
        assert m.add_fact(_spelled(then, "User likes Café Noir"), "durable") == one
        assert [f.id for f in m.facts()] == [one]
        other = m.add_fact("User likes tea", "durable")
        with pytest.raises(Exception, match="already has that fact"):
            m.replace_in_core("tea", _spelled(then, "Café Noir"))
        assert m.fact(other) is not None and m.fact(other).text == "User likes tea"


def _as_an_earlier_version_stored(m: HierarchicalMemory, fact_id: int, norm: str) -> None:
    """The fact's key as a version before the NFC rule wrote it."""
    fact = m.store.facts.get(fact_id)
    assert fact is not None
    with m.store.transaction():
        m.store.facts.update(fact, norm)


def test_keys_an_earlier_version_stored_still_find_and_block(where: dict[str, Any]) -> None:
    decomposed = _spelled("NFD", FACT)
    (earlier,) = earlier_fact_norms(decomposed)  # what that version keyed it by
    assert earlier != fact_norm(decomposed)
    with make_memory(**where) as m:
        stored = m.add_fact(decomposed, "durable")
        _as_an_earlier_version_stored(m, stored, earlier)
    with make_memory(**where) as m:  # a fact stored then is found in both spellings
        assert m.add_fact(_spelled("NFC", FACT), "durable") == stored
        assert m.process_interaction(_spelled("NFC", SAID), "ok") == [stored]
        assert len(m.facts()) == 1
        m.erase(facts=[stored], reason="test")
        with m.store.transaction():  # that version forgot it, decomposed, and kept the hash
            m.store.forgetting.block([norm_hash(earlier)], 1.0)
    with make_memory(**where) as m:
        assert m.process_interaction(_spelled("NFC", SAID), "ok") == []
        assert m.process_interaction(_spelled("NFD", SAID), "ok") == []
        # Stating it explicitly lifts the block, whatever key it was kept under.
        again = m.add_fact(_spelled("NFC", FACT), "durable")
        assert m.store.forgetting.blocked_norms() == set()
        # An erasure takes away every hash the fact may be blocked under.
        with m.store.transaction():
            m.store.forgetting.block([norm_hash(earlier)], 1.0)
        m.erase(facts=[again], reason="test")
        assert m.store.forgetting.blocked_norms() == set()


def test_a_snapshot_holding_both_spellings_as_two_facts_restores_as_taken(
        tmp_path: Path) -> None:
    # Versions before the NFC rule kept the two spellings as two facts; their snapshots
    # (and snapshots of memories they wrote) must still restore, each fact under the key
    # that version gave it.
    with make_memory() as m:
        m.add_fact(_spelled("NFC", FACT), "durable")
        m.add_fact("User likes tea", "durable")
        snapshot = m.snapshot()
    second = snapshot["tables"]["facts"][1]
    assert second["text"] == "User likes tea"
    second["text"] = _spelled("NFD", FACT)  # as the earlier version stored it
    with _restored(snapshot, tmp_path / "a") as m:
        assert [f.text for f in m.facts()] == [_spelled("NFC", FACT), _spelled("NFD", FACT)]
        first_id = m.facts()[0].id
        assert m.add_fact(_spelled("NFD", FACT), "durable") == first_id  # found, not added
        again = m.snapshot()
    with _restored(again, tmp_path / "b") as m:  # a snapshot of it restores too
        assert len(m.facts()) == 2
    twice = dict(snapshot)
    twice["tables"] = dict(snapshot["tables"])
    twice["tables"]["facts"] = [*snapshot["tables"]["facts"],
                                {**second, "id": second["id"] + 100}]
    with pytest.raises(SnapshotError, match=r"states the same fact as tables.facts\[0\]"):
        _restored(twice, tmp_path / "c")  # a third copy is one too many: no key is left


def _restored(snapshot: dict[str, Any], path: Path) -> HierarchicalMemory:
    return HierarchicalMemory.restore(snapshot, path, HashingEmbedder())


@pytest.mark.parametrize(("stored", "asked"), [
    ("my PIN\u2060 is 8675309", "my PIN is 8675309"),
    ("my PIN is 8675309", "my\u200b PIN is 8675309"),
    ("my PIN is 8675309", "my PIN is 867\u20605309"),
    ("my PIN is 8675309", "\ufeffmy PIN\u200c is 8675309")])
def test_exact_matches_a_text_whatever_marks_of_no_width_it_holds(stored: str,
                                                                  asked: str) -> None:
    # The mark shows nothing, so the text on the screen was typed as it looked, matched
    # nothing ("no stored text equals the request") and the PIN was kept.
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        m.add_fact(stored)
        m.recall.append("user", stored, turn=1)
        result = m.forget(asked, erase=True)
        assert result.outcome == "matched"
        assert (len(result.forgotten.facts), len(result.forgotten.messages)) == (1, 1)
        assert m.facts() == [] and m.recall_search("PIN", k=5).hits == []


@pytest.mark.parametrize(("stored", "asked"), [
    ("my\u200bPIN is 8675309", "my PIN is 8675309"),
    ("my PIN is 8675309", "my\u200bPIN is 8675309"),
    ("my\u200bPIN is 8675309", "myPIN is 8675309"),
    ("My\u200bPIN", "my PIN")])
def test_exact_reads_a_zero_width_space_as_a_space_too(stored: str, asked: str) -> None:
    # A zero-width space breaks words as a space does: "my\u200bPIN" was read only as
    # "myPIN", and "my PIN" forgot nothing ("no stored text equals the request").
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        m.add_fact(stored)
        m.recall.append("user", stored, turn=1)
        result = m.forget(asked)
        assert result.outcome == "matched"
        assert (len(result.forgotten.facts), len(result.forgotten.messages)) == (1, 1)
        assert m.facts() == []
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        m.add_fact("my PIN is 8675309")
        assert m.forget("my\u200bPINis 8675309").outcome == "unmatched"
