"""Passage metadata the store writes holds only numbers standard JSON can: a NaN or an
infinity is refused by the store's own API on either backend, as the tools refuse it,
with what to give instead, and the store is left as it was. A memory an earlier version
wrote with one still reads, restores and migrates."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from memory_helpers import make_memory
from snapshot_helpers import restore

from tiermem.memory.errors import InvalidInputError
from tiermem.memory.hierarchy import HierarchicalMemory
from tiermem.memory.store.contract import StorageBackend
from tiermem.memory.store.postgres.backend import PostgresBackend
from tiermem.memory.store.records import Passage
from tiermem.memory.store.transfer import migrate, open_backend

RUNBOOK = "runbook: restart the billing worker"
NOT_FINITE = [
    ({"score": float("nan")}, "'score'"),
    ({"owner": "sre", "limits": [1.0, float("inf")]}, "'limits'"),
    ({"floor": {"at": float("-inf")}}, "'floor'"),
]


@pytest.fixture(params=["sqlite", "postgres"])
def memory(request: pytest.FixtureRequest, tmp_path: Path) -> HierarchicalMemory:
    if request.param == "postgres":
        return make_memory(store=request.getfixturevalue("postgres_dsn"), agent="ada")
    return make_memory(tmp_path / "home")


def _says(key: str) -> str:
    return (f"passage metadata holds a number that is not finite (NaN or infinity) under "
            f"{key}, which JSON cannot hold; give a finite number, or the value as a string "
            f"like 'NaN'")


def _runbook_id(store: StorageBackend) -> int:
    return store.passages.holding(RUNBOOK)[0]


@pytest.mark.parametrize(("metadata", "key"), NOT_FINITE, ids=["nan", "inf", "-inf"])
def test_a_number_json_cannot_hold_is_refused_as_inserted_and_as_set(
        memory: HierarchicalMemory, tmp_path: Path, metadata: dict[str, Any],
        key: str) -> None:
    with memory as m:
        m.archival_insert(RUNBOOK)
        before = m.snapshot()["tables"]
        with pytest.raises(InvalidInputError) as inserted, m.store.transaction():
            m.store.passages.insert_many([Passage(text="a runbook", created_at=1.7e9,
                                                  metadata=metadata)])
        assert str(inserted.value) == _says(key)
        with pytest.raises(InvalidInputError) as set_, m.store.transaction():
            m.store.passages.set_metadata(_runbook_id(m.store), metadata)
        assert str(set_.value) == _says(key)
        assert m.snapshot()["tables"] == before


def test_the_words_nan_and_infinity_in_a_string_are_written_and_restore(
        memory: HierarchicalMemory, tmp_path: Path) -> None:
    metadata = {"score": "NaN", "note": "Infinity and beyond", "NaN": 1.5}
    with memory as m:
        m.archival_insert(RUNBOOK)
        with m.store.transaction():
            m.store.passages.set_metadata(_runbook_id(m.store), metadata)
        m.write_snapshot(tmp_path / "snap.json")
    with restore(tmp_path / "snap.json", tmp_path / "restored") as restored:
        passage_id = _runbook_id(restored.store)
        assert restored.store.passages.get_many([passage_id])[passage_id].metadata == metadata


def _stored_by_an_earlier_version(store: StorageBackend, passage_id: int) -> None:
    metadata = '{"score": NaN, "owner": "sre"}'
    if isinstance(store, PostgresBackend):
        store.scope.conn.execute("UPDATE tiermem.passages SET metadata = %s WHERE agent_id = %s "
                                 "AND id = %s", (metadata, store.scope.agent, passage_id))
    else:
        store.execute("UPDATE passages SET metadata = ? WHERE id = ?", (metadata, passage_id))


def _score_of(store: StorageBackend) -> Any:
    passage_id = _runbook_id(store)
    return store.passages.get_many([passage_id])[passage_id].metadata["score"]


def test_a_memory_an_earlier_version_wrote_with_one_reads_restores_and_migrates(
        memory: HierarchicalMemory, tmp_path: Path) -> None:
    with memory as m:
        m.archival_insert(RUNBOOK)
        with m.store.transaction():
            _stored_by_an_earlier_version(m.store, _runbook_id(m.store))
        assert _score_of(m.store) != _score_of(m.store)  # NaN, read as it was written
        assert m.archival.search("billing worker").hits
        m.write_snapshot(tmp_path / "snap.json")
    with restore(tmp_path / "snap.json", tmp_path / "restored") as restored:
        assert _score_of(restored.store) != _score_of(restored.store)
    source = open_backend(str(tmp_path / "restored"), None, read_only=True)
    target = open_backend(str(tmp_path / "copy"), None, read_only=False)
    try:
        migrate(source, target)
        assert _score_of(target) != _score_of(target)
    finally:
        source.close()
        target.close()


def test_a_fact_whose_passage_an_earlier_version_gave_a_nan_retires_and_comes_back(
        memory: HierarchicalMemory) -> None:
    with memory as m:
        fact_id = m.add_fact("User lives in Lisbon")
        fact = m.fact(fact_id)
        assert fact is not None
        m.lifecycle.retire(fact)  # gives the fact its passage
        passage_id = m.fact(fact_id).passage_id  # type: ignore[union-attr]
        assert passage_id is not None
        with m.store.transaction():
            _stored_by_an_earlier_version(m.store, passage_id)
        assert m.add_fact("User lives in Lisbon") == fact_id  # stated again: current
        fact = m.fact(fact_id)
        assert fact is not None and not m.lifecycle.superseded(fact)
        m.lifecycle.retire(fact)
        metadata = m.store.passages.get_many([passage_id])[passage_id].metadata
    # Kept as the string the store's refusal advises, which any JSON parser reads.
    assert (metadata["score"], metadata["owner"]) == ("NaN", "sre")
    assert "superseded_at" in metadata


def test_message_tool_calls_holding_a_nan_are_refused(memory: HierarchicalMemory) -> None:
    from tiermem.memory.store.records import Message

    calls = [{"id": "c1", "name": "archival_insert", "arguments": {"score": float("nan")}}]
    with memory as m:
        before = m.store.messages.count()
        with pytest.raises(InvalidInputError) as refused, m.store.transaction():
            m.store.messages.append_many([Message(turn=1, role="assistant", content="",
                                                  created_at=1.7e9, tool_calls=calls)])
        assert m.store.messages.count() == before
    assert str(refused.value) == (
        "message tool_calls holds a number that is not finite (NaN or infinity), which JSON "
        "cannot hold; give a finite number, or the value as a string like 'NaN'")
