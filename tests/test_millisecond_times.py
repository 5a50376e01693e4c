"""SQLite's migration 21 and PostgreSQL's 17: a memory kept by a version that took a clock
in milliseconds holds times of about 1.7e12, which the live API refuses to copy (a fact
that such a time dates could not be evicted) and searches could neither filter nor show.
The upgrade converts each by restore's rule, and leaves every time in seconds as it was."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import psycopg
import pytest
from memory_helpers import writable_database

from tiermem.memory.embed.embeddings import HashingEmbedder
from tiermem.memory.hierarchy import HierarchicalMemory
from tiermem.memory.store.postgres import schema as pg_schema
from tiermem.memory.store.sqlite import schema as sqlite_schema
from tiermem.tools.memory_tools import ToolContext, memory_toolbox

#: 2024-05-08 13:56:00.123 UTC, as a clock in milliseconds gave it, and in seconds.
_MILLIS = 1_715_176_560_123.0
_SECONDS = 1_715_176_560.123
#: The memory's clock while the tests write, fixed so nothing depends on the day they run.
_NOW = 1_765_000_000.0
#: Every time by the wall clock a memory stores, by table, as restore reads them.
_TIMES = {
    "facts": ("created_at", "evicted_at", "forgotten_at"),
    "passages": ("created_at", "evicted_at", "forgotten_at"),
    "messages": ("created_at", "forgotten_at"),
    "history": ("created_at",), "events": ("created_at",), "erasures": ("erased_at",),
    "forget_requests": ("created_at",), "forgotten_norms": ("forgotten_at",),
}
_READINGS = ("created_tick", "last_access")
#: The schemas before the conversion: SQLite's user_version, PostgreSQL's migrations.
_SQLITE_BEFORE, _PG_BEFORE = 20, 16
_RUNBOOK = "runbook: restart the billing worker"


def _where(backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> dict[str, Any]:
    if backend == "sqlite":
        return {"path": tmp_path / "mem"}
    return {"store": request.getfixturevalue("postgres_dsn"), "agent": "ann"}


def _open(where: dict[str, Any], clock: str) -> HierarchicalMemory:
    return HierarchicalMemory(**where, embedder=HashingEmbedder(), core_limit=2,
                              core_limit_unit="facts", clock=clock, now=lambda: _NOW)


def _populated(where: dict[str, Any], clock: str) -> int:
    """A memory with a row in every table that holds a time; returns a fact in core."""
    with _open(where, clock) as m:
        kept = m.add_fact("the staging cluster is amber", "durable")
        m.archival_insert(_RUNBOOK, metadata={"superseded_at": _SECONDS})
        m.process_interaction("The billing worker restarts nightly.", "Noted.")
        m.recall.erase([max(h.id for h in m.recall.search("Noted", k=5).hits)], "test")
        m.process_interaction("My locker code is 2231.", "Noted.")
        assert m.forget("My locker code is 2231.").outcome == "matched"
        m.archival_insert("the old pager number is 5550")
        m.forget("the old pager number is 5550")
        return kept


def _sqlite(where: dict[str, Any]) -> sqlite3.Connection:
    return writable_database(where["path"] / "memory.sqlite3")


def _in_every_column(where: dict[str, Any], value: str, readings: bool) -> None:
    """Every stored time set to ``value`` (and the fact's clock readings, when
    ``readings``), past the triggers that keep recall and tombstones as they are; the
    schema set back to before the conversion."""
    updates = [f"UPDATE {{p}}{table} SET {column} = {value} WHERE {column} IS NOT NULL"
               for table, columns in _TIMES.items() for column in columns]
    updates += [f"UPDATE {{p}}facts SET {column} = {value}"
                for column in _READINGS if readings]
    updates.append(f"UPDATE {{p}}passages SET metadata = '{{{{\"superseded_at\": {value}}}}}'"
                   f" WHERE text = '{_RUNBOOK}'")
    if "path" in where:
        with _sqlite(where) as conn:
            guards = conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'trigger'"
                                  " AND (name LIKE '%stays_forgotten' OR name ="
                                  " 'messages_no_edit')").fetchall()
            for name, _ in guards:
                conn.execute(f"DROP TRIGGER {name}")
            for update in updates:
                conn.execute(update.format(p=""))
            for _, sql in guards:
                conn.execute(sql)
            conn.execute(f"PRAGMA user_version = {_SQLITE_BEFORE}")
        conn.close()
        return
    with psycopg.connect(where["store"], autocommit=True) as pg, pg.transaction():
        for table in ("facts", "passages", "messages"):
            pg.execute(f"ALTER TABLE tiermem.{table} DISABLE TRIGGER USER")
        for update in updates:
            pg.execute(update.format(p="tiermem.").encode())
        for table in ("facts", "passages", "messages"):
            pg.execute(f"ALTER TABLE tiermem.{table} ENABLE TRIGGER USER")
        pg.execute("DELETE FROM tiermem.migrations WHERE version > %s", (_PG_BEFORE,))


def _execute(where: dict[str, Any], statement: str) -> None:
    if "path" in where:
        with _sqlite(where) as conn:
            conn.execute(statement.format(p=""))
        conn.close()
    else:
        with psycopg.connect(where["store"], autocommit=True) as pg:
            pg.execute(statement.format(p="tiermem.").encode())


def _times(where: dict[str, Any]) -> list[Any]:
    """Every stored time, and the superseded mark of the runbook's metadata."""
    queries = [f"SELECT {column} FROM {{p}}{table} WHERE {column} IS NOT NULL"
               for table, columns in _TIMES.items() for column in columns]
    queries += [f"SELECT {column} FROM {{p}}facts" for column in _READINGS]
    queries.append(f"SELECT metadata FROM {{p}}passages WHERE text = '{_RUNBOOK}'")
    if "path" in where:
        conn = _sqlite(where)
        try:
            found = [conn.execute(q.format(p="")).fetchall() for q in queries]
        finally:
            conn.close()
    else:
        with psycopg.connect(where["store"], autocommit=True) as pg:
            found = [pg.execute(q.format(p="tiermem.").encode()).fetchall() for q in queries]
    *columns, readings_a, readings_b, (metadata,) = found
    return [[row[0] for row in rows] for rows in (*columns, readings_a, readings_b)] + [
        json.loads(metadata[0])["superseded_at"]]


def _search(m: HierarchicalMemory, tool: str) -> str:
    result = memory_toolbox().dispatch(
        tool, json.dumps({"query": "billing worker staging cluster",
                          "start_date": "2024-05-08", "end_date": "2024-05-08"}),
        call_id="c1", context=ToolContext(memory=m, turn=m.tick))
    assert result.ok, result.content
    return result.content


@pytest.mark.parametrize("clock", ["logical", "wall"])
@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_an_upgrade_converts_times_in_milliseconds_and_the_memory_works(
        tmp_path: Path, backend: str, clock: str, request: pytest.FixtureRequest) -> None:
    where = _where(backend, tmp_path, request)
    kept = _populated(where, clock)
    _in_every_column(where, repr(_MILLIS), readings=clock == "wall")
    with _open(where, clock):
        pass  # the upgrade
    *columns, readings_a, readings_b, superseded = _times(where)
    assert [set(column) for column in columns] == [{_SECONDS}] * len(columns)
    # On the logical clock the readings count interactions and are left as they were.
    assert all(r == _SECONDS if clock == "wall" else r < 10
               for r in readings_a + readings_b), (readings_a, readings_b)
    assert superseded == _SECONDS
    with _open(where, clock) as m:
        for text in ("the api is slow", "User lives in Lyon", "the deploy is green"):
            m.add_fact(text, "durable")  # a full core evicts the fact dated in 2024
        fact = m.fact(kept)
        assert fact is not None and (fact.tier, fact.created_at) == ("archival", _SECONDS)
        recalled = m.recall.search("billing worker", start="2024-05-08", end="2024-05-08")
        assert "The billing worker restarts nightly." in [h.text for h in recalled.hits]
        assert not m.recall.search("billing worker", start="2024-05-09").hits
        found = m.archival_search("billing worker staging cluster", start="2024-05-08",
                                  end="2024-05-08").hits
        assert {h.text for h in found} >= {_RUNBOOK, "the staging cluster is amber"}
        assert {h.created_at for h in found} == {_SECONDS}
        assert not m.archival_search("billing worker", end="2024-05-07").hits
        for tool in ("conversation_search", "archival_memory_search"):
            assert "2024-05-08T13:56Z" in _search(m, tool)
        snapshot = m.snapshot(include_vectors=False)
    restored_at = _where(backend, tmp_path / "restored", request)
    if backend == "postgres":
        restored_at["agent"] = "bob"
    with HierarchicalMemory.restore(snapshot, embedder=HashingEmbedder(),
                                    **restored_at) as restored:
        fact = restored.fact(kept)
        assert fact is not None and (fact.tier, fact.created_at) == ("archival", _SECONDS)


def _every_row(where: dict[str, Any]) -> list[tuple[Any, ...]]:
    if "path" in where:
        conn = _sqlite(where)
        try:
            tables = [r[0] for r in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
            return [(t, *row) for t in tables
                    for row in conn.execute(f"SELECT * FROM \"{t}\" ORDER BY 1")]
        finally:
            conn.close()
    with psycopg.connect(where["store"], autocommit=True) as pg:
        tables = [r[0] for r in pg.execute("SELECT tablename FROM pg_tables WHERE schemaname"
                                           " = 'tiermem' AND tablename <> 'migrations'"
                                           " ORDER BY tablename")]
        return [(t, *row) for t in tables
                for row in pg.execute(f"SELECT * FROM tiermem.{t} ORDER BY 1")]


def _migrated(where: dict[str, Any]) -> int:
    """Run the migrations the database lacks, alone; the schema version it is at then."""
    if "path" in where:
        conn = _sqlite(where)
        conn.isolation_level = None
        try:
            sqlite_schema.migrate(conn)
            version: int = conn.execute("PRAGMA user_version").fetchone()[0]
            return version
        finally:
            conn.close()
    with psycopg.connect(where["store"], autocommit=True) as pg:
        pg_schema.migrate(pg)
        return pg_schema.applied_version(pg)


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_an_upgrade_leaves_every_row_of_a_memory_in_seconds_as_it_was(
        tmp_path: Path, backend: str, request: pytest.FixtureRequest) -> None:
    where = _where(backend, tmp_path, request)
    _populated(where, "logical")
    # Counts of interactions as large as milliseconds are still counts on this clock, and
    # the earliest and latest dates are seconds.
    _in_every_column(where, repr(_MILLIS), readings=True)
    _in_every_column(where, repr(_SECONDS), readings=False)
    _execute(where, "UPDATE {p}facts SET created_at = 253402300799.0")
    _execute(where, "UPDATE {p}events SET created_at = -62135596800.0")
    before = _every_row(where)
    # the migration to seconds and every one after it run
    assert _migrated(where) == (sqlite_schema.SCHEMA_VERSION if backend == "sqlite"
                                else pg_schema.SCHEMA_VERSION)
    assert _every_row(where) == before


def _metadata(where: dict[str, Any]) -> str:
    query = f"SELECT metadata FROM {{p}}passages WHERE text = '{_RUNBOOK}'"
    if "path" in where:
        conn = _sqlite(where)
        try:
            return str(conn.execute(query.format(p="")).fetchone()[0])
        finally:
            conn.close()
    with psycopg.connect(where["store"], autocommit=True) as pg:
        row = pg.execute(query.format(p="tiermem.").encode()).fetchone()
        assert row is not None
        return str(row[0])


def _upgraded_with_metadata(where: dict[str, Any], text: str) -> str:
    """The runbook's metadata text after an upgrade of a memory dated in milliseconds
    whose runbook held ``text``."""
    _populated(where, "logical")
    _in_every_column(where, repr(_MILLIS), readings=False)
    quoted = text.replace("'", "''").replace("{", "{{").replace("}", "}}")
    _execute(where, f"UPDATE {{p}}passages SET metadata = '{quoted}' WHERE text = '{_RUNBOOK}'")
    assert _migrated(where) == (pg_schema.SCHEMA_VERSION if "store" in where
                                else sqlite_schema.SCHEMA_VERSION)
    return _metadata(where)


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_an_upgrade_converts_the_superseded_mark_alone(
        tmp_path: Path, backend: str, request: pytest.FixtureRequest) -> None:
    members = {"owner": "s\u00e9", "zeta": 1e300, "a": [1.5, 2], "superseded_at": _MILLIS}
    converted = json.loads(_upgraded_with_metadata(_where(backend, tmp_path, request),
                                                   json.dumps(members)))
    # Every other member as it was: in its place, of its type (1e300 is no integer).
    assert list(converted.items()) == [*list(members.items())[:-1], ("superseded_at", _SECONDS)]
    assert isinstance(converted["zeta"], float)


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_a_metadata_that_is_no_json_does_not_stop_the_upgrade(
        tmp_path: Path, backend: str, request: pytest.FixtureRequest) -> None:
    where = _where(backend, tmp_path, request)
    # As json.dumps writes a float that is not a number: no JSON to PostgreSQL.
    text = json.dumps({"ratio": float("nan"), "superseded_at": _MILLIS})
    assert _upgraded_with_metadata(where, text) == text  # left as it was
    assert _times(where)[0] == [_SECONDS] * len(_times(where)[0])  # the rest converted


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
@pytest.mark.parametrize("members", [{"note": "line\x00feed"}, {"\ud800": 1}],
                         ids=["NUL in a value", "lone surrogate in a key"])
def test_a_metadata_postgresql_cannot_read_does_not_stop_the_upgrade(
        tmp_path: Path, backend: str, members: dict[str, Any],
        request: pytest.FixtureRequest) -> None:
    # The store keeps both (json.dumps escapes them), but PostgreSQL reads no JSON text
    # holding them: such a metadata is left as it was, as one that is no JSON is.
    where = _where(backend, tmp_path, request)
    text = json.dumps({**members, "superseded_at": _MILLIS})
    upgraded = _upgraded_with_metadata(where, text)
    if backend == "postgres":
        assert upgraded == text
    else:
        assert json.loads(upgraded) == {**members, "superseded_at": _SECONDS}
    assert _times(where)[0] == [_SECONDS] * len(_times(where)[0])  # the rest converted
