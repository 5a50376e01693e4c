"""Migration 13 (SQLite) and its PostgreSQL twin: a fact that a version before promotion
cleared its eviction date brought back to core kept that date, and so did its passage, which
searches then showed as evicted. The upgrade takes it off both, and a restore of a snapshot
such a version took does too."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from memory_helpers import (
    sqlite_schema_at_version,
    undo_postgres_erase_in_bulk,
    undo_postgres_forget_in_bulk,
    undo_postgres_outside_the_store,
)

from tiermem.memory.embed.embeddings import HashingEmbedder
from tiermem.memory.hierarchy import HierarchicalMemory
from tiermem.memory.store.postgres import schema as pg_schema
from tiermem.memory.store.sqlite import schema as sqlite_schema

_EVICTED_AT, _EVICTED_TICK = 1_709_618_820.0, 2.0
#: The numbers of the migrations under test.
_SQLITE_MIGRATION = next(m.number for m in sqlite_schema.MIGRATIONS
                         if m.name.startswith("no eviction date"))
_PG_MIGRATION = next(n for n, (name, _) in enumerate(pg_schema.MIGRATIONS, start=1)
                     if name.startswith("no eviction date"))


@contextlib.contextmanager
def _promoted(**where: Any) -> Iterator[tuple[HierarchicalMemory, int, int]]:
    """A memory holding a fact evicted and promoted back, and one evicted and still out."""
    with HierarchicalMemory(**where, embedder=HashingEmbedder(), core_limit=1,
                            core_limit_unit="facts", promote_hits=1,
                            recent_promote_hits=1) as m:
        back = m.add_fact("the staging cluster is amber", "durable")
        out = m.add_fact("the billing worker runs nightly", "durable")  # evicts back
        m.add_fact("the staging cluster is amber")  # promoted back: evicts out
        assert (m.fact(back).tier, m.fact(out).tier) == ("core", "archival")  # type: ignore
        yield m, back, out


def _stale(execute: Any, table: str, back: int) -> None:
    """What a version before the clearing left: the undone eviction's date, on both rows."""
    execute(f"UPDATE {table}facts SET evicted_at = {_EVICTED_AT}, "
            f"evicted_tick = {_EVICTED_TICK} WHERE id = {back}")
    execute(f"UPDATE {table}passages SET evicted_at = {_EVICTED_AT} WHERE fact_id = {back}")


def _check_cleared(m: HierarchicalMemory, back: int, out: int) -> None:
    fact, other = m.fact(back), m.fact(out)
    assert fact is not None and (fact.tier, fact.evicted_at, fact.evicted_tick) == (
        "core", None, None)
    # The fact still out of core keeps its eviction, as does its passage.
    assert other is not None and other.evicted_at is not None and other.evicted_tick == 3
    hits = {h.fact_id: h for h in m.archival_search("staging cluster billing worker").hits}
    assert (hits[back].was_in_core, hits[back].evicted_at) == (True, None)
    assert hits[out].evicted_at == other.evicted_at


def test_sqlite_upgrade_takes_the_eviction_date_off_a_fact_back_in_core(
        tmp_path: Path) -> None:
    with sqlite_schema_at_version(_SQLITE_MIGRATION - 1), _promoted(path=tmp_path) as (
            m, back, out):
        _stale(m.store.execute, "", back)
    with HierarchicalMemory(tmp_path, embedder=HashingEmbedder()) as after:
        _check_cleared(after, back, out)


def test_postgres_upgrade_takes_the_eviction_date_off_a_fact_back_in_core(
        postgres_dsn: str) -> None:
    with _promoted(store=postgres_dsn, agent="ann") as (_, back, out):
        pass
    with psycopg.connect(postgres_dsn, autocommit=True) as conn:
        _stale(conn.execute, "tiermem.", back)
        conn.execute("DROP INDEX tiermem.passages_text")
        undo_postgres_outside_the_store(conn)
        undo_postgres_forget_in_bulk(conn)
        undo_postgres_erase_in_bulk(conn)
        conn.execute("DELETE FROM tiermem.migrations WHERE version >= %s", (_PG_MIGRATION,))
    with HierarchicalMemory(store=postgres_dsn, agent="ann",
                            embedder=HashingEmbedder()) as after:
        _check_cleared(after, back, out)


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_a_restored_snapshot_an_older_version_took_has_no_undone_eviction(
        tmp_path: Path, backend: str, request: pytest.FixtureRequest) -> None:
    with _promoted(path=tmp_path / "old") as (m, back, out):
        snapshot = json.loads(json.dumps(m.snapshot(include_vectors=False)))
    for row in snapshot["tables"]["facts"]:
        if row["id"] == back:
            row["evicted_at"], row["evicted_tick"] = _EVICTED_AT, _EVICTED_TICK
    for row in snapshot["tables"]["passages"]:
        if row["fact_id"] == back:
            row["evicted_at"] = _EVICTED_AT
    where: dict[str, Any] = ({"path": tmp_path / "new"} if backend == "sqlite" else
                             {"store": request.getfixturevalue("postgres_dsn"), "agent": "ann"})
    with HierarchicalMemory.restore(snapshot, embedder=HashingEmbedder(), **where) as restored:
        _check_cleared(restored, back, out)
