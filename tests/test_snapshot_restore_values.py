"""What a restore keeps as it is (whatever set_state stored, a message as its store held
it) and what it computes again: token counts, a core over its limit, vectors left out."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from memory_helpers import make_memory, token_count
from snapshot_helpers import (
    check_restored,
    facts_of,
    restore,
    row_index,
    small_snapshot,
)

from tiermem.memory.embed.embeddings import HashingEmbedder
from tiermem.memory.errors import SnapshotError
from tiermem.memory.store.records import Message
from tiermem.memory.text.extract import fact_norm
from tiermem.memory.validation import MAX_STATE_VALUE_CHARS, MAX_TEXT_CHARS

LARGE_STATES = {
    # An agent's saved context: many message ids and a long summary, past MAX_TEXT_CHARS.
    "a context past the text limit": {"message_ids": list(range(1, 20_001)),
                                      "summary": "the user said " * (MAX_TEXT_CHARS // 10)},
    # The longest value set_state takes: its JSON text is exactly the bound.
    "a value at the bound": "y" * (MAX_STATE_VALUE_CHARS - 2),
}


@pytest.mark.parametrize("on_disk", [False, True])
@pytest.mark.parametrize("value", list(LARGE_STATES.values()), ids=list(LARGE_STATES))
def test_a_large_state_value_restores(tmp_path: Path, value: Any, on_disk: bool) -> None:
    with make_memory() as m:
        m.set_state("context", value)
        m.add_fact("User is allergic to peanuts")
        snap = json.loads(json.dumps(m.snapshot()))
    assert len(snap["state"]["context"]) > MAX_TEXT_CHARS
    with restore(snap, tmp_path / "home" if on_disk else None) as restored:
        assert restored.get_state("context") == value
        assert [f.text for f in restored.facts()] == ["User is allergic to peanuts"]


def test_a_state_value_over_the_bound_is_refused_naming_it(tmp_path: Path) -> None:
    snap = small_snapshot()
    snap["state"]["summary"] = json.dumps("y" * (MAX_STATE_VALUE_CHARS - 1))
    with pytest.raises(SnapshotError, match=r"state\.summary: is 10,000,001 characters") as info:
        restore(snap, tmp_path / "home")
    assert info.value.fields == ("state.summary",)
    assert not (tmp_path / "home" / "memory.sqlite3").exists()


LONG_FACT = "User's travel notes: " + " ".join(f"city{i} has museum{i}" for i in range(150))


@pytest.mark.parametrize("on_disk", [False, True])
def test_token_counts_are_recounted(tmp_path: Path, on_disk: bool) -> None:
    with make_memory(core_limit=2000) as m:
        fid = m.add_fact(LONG_FACT)
        m.add_fact("User is allergic to peanuts")
        snap = m.snapshot()
    real = token_count(LONG_FACT)
    assert real > 500
    row = facts_of(snap)[row_index(facts_of(snap), id=fid)]
    row["tokens"], row["norm"] = 3, "anything"
    with restore(snap, tmp_path / "home" if on_disk else None) as restored:
        assert restored.fact(fid).tokens == real
        assert restored.core.used == real + token_count("User is allergic to peanuts")
        norm = restored.store.execute("SELECT norm FROM facts WHERE id = ?", (fid,)).fetchone()
        assert norm[0] == fact_norm(LONG_FACT) != "anything"
        check_restored(restored)


@pytest.mark.parametrize("on_disk", [False, True])
def test_a_core_over_its_limit_is_evicted_per_the_snapshots_policy(
    tmp_path: Path, on_disk: bool
) -> None:
    with make_memory(core_limit=5, core_limit_unit="facts", policy="lru") as m:
        ids = [m.add_fact(f"User likes fruit number {i}") for i in range(5)]
        m.add_fact(f"User likes fruit number {0}")  # fruit 0 is now the most recent
        snap = m.snapshot()
    snap["config"]["core_limit"] = 3
    with restore(snap, tmp_path / "home" if on_disk else None) as restored:
        assert restored.core.used == 3
        assert sorted(f.id for f in restored.core) == sorted([ids[0], ids[3], ids[4]])
        for evicted in (ids[1], ids[2]):
            assert restored.fact(evicted).tier == "archival"
            assert restored.archival_search(restored.fact(evicted).text).hits[0].fact_id == evicted
        assert restored.tick == snap["settings"]["tick"] + 1  # the eviction is one interaction
        check_restored(restored)


def test_rows_left_without_a_vector_are_embedded(tmp_path: Path) -> None:
    snap = small_snapshot()
    snap["tables"]["passages"][0]["embedding"] = None
    passage = snap["tables"]["passages"][0]
    with restore(snap) as m:
        check_restored(m)
        blob = m.store.execute("SELECT embedding FROM passages WHERE id = ?",
                               (passage["id"],)).fetchone()[0]
        expected = HashingEmbedder().embed_documents([passage["text"]])[0]
        assert np.array_equal(np.frombuffer(blob, dtype=np.float32), expected)


@pytest.mark.parametrize("held", ["", "  "])
def test_a_user_message_its_store_holds_empty_restores_as_held(
    tmp_path: Path, held: str
) -> None:
    # Recall refuses such a message; the store's own API writes it.
    with make_memory() as m:
        m.process_interaction("I'm vegan.", "Noted.")
        (message_id,) = m.store.messages.append_many(
            [Message(turn=m.tick, role="user", content=held, created_at=1.7e9)])
        m.process_interaction("My cat is called Miso.", "Nice.")
        m.write_snapshot(tmp_path / "snap.json")
        held_rows = [tuple(r) for r in m.store.execute("SELECT id, role, content FROM messages")]
    assert (message_id, "user", held) in held_rows
    with restore(tmp_path / "snap.json", tmp_path / "home") as restored:
        assert [tuple(r) for r in restored.store.execute(
            "SELECT id, role, content FROM messages")] == held_rows
        assert restored.recall.search("Miso").hits
        check_restored(restored)
