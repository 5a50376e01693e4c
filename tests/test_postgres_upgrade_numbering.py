"""A PostgreSQL database whose migrations an earlier version numbered otherwise is upgraded.

The merge that brought forgetting (383af96) recorded the tombstones as migration 2; the
next merge put the events' migration there and the tombstones third. Counting the
migrations recorded, an upgrade ran the tombstones again (DuplicateColumn, a traceback)
and never ran the events' one. Migrations are known by name: the one a database lacks
runs, and the one that cannot run late is refused with what to do, never a traceback.
tests/data/postgres_schema_383af96.json holds the rows that version wrote (an agent with
facts, messages, events and a forget request), replayed here onto the two migrations'
SQL, which have not changed since.
"""

from __future__ import annotations

import json
from pathlib import Path

import psycopg
import pytest

from tiermem.cli import main
from tiermem.memory.embed.embeddings import HashingEmbedder
from tiermem.memory.errors import StoreError
from tiermem.memory.hierarchy import HierarchicalMemory
from tiermem.memory.store.opening import open_postgres
from tiermem.memory.store.postgres.schema import MIGRATIONS, SCHEMA_VERSION

WRITTEN = Path(__file__).parent / "data" / "postgres_schema_383af96.json"


def _as_383af96_left_it(dsn: str) -> None:
    """The database as tiermem 383af96 left it: migrations 1 and 2 (its tombstones)."""
    made = json.loads(WRITTEN.read_text())
    scripts = dict(MIGRATIONS)
    with psycopg.connect(dsn, autocommit=True) as conn, conn.transaction():
        conn.execute("CREATE SCHEMA tiermem")
        conn.execute("CREATE TABLE tiermem.migrations (version INTEGER PRIMARY KEY, "
                     "name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())")
        for version, name in made["migrations"]:
            conn.execute(scripts[name].encode())
            conn.execute("INSERT INTO tiermem.migrations (version, name) VALUES (%s, %s)",
                         (version, name))
        for table, rows in made["tables"].items():
            if table == "text_stats":  # the triggers counted the rows copied in already
                conn.execute("DELETE FROM tiermem.text_stats")
            columns = ", ".join(rows["columns"])
            with conn.cursor().copy(f"COPY tiermem.{table} ({columns}) FROM STDIN") as copy:
                copy.write(rows["copy"])
        conn.execute("SELECT setval(pg_get_serial_sequence('tiermem.agents', 'id'), "
                     "(SELECT max(id) FROM tiermem.agents))")


def _migrations(dsn: str) -> list[tuple[int, str]]:
    with psycopg.connect(dsn, autocommit=True) as conn:
        return [(v, n) for v, n in conn.execute(
            "SELECT version, name FROM tiermem.migrations ORDER BY version")]


def test_a_database_with_the_tombstones_numbered_second_is_upgraded(
        postgres_dsn: str, capsys: pytest.CaptureFixture[str]) -> None:
    _as_383af96_left_it(postgres_dsn)
    assert [n for _, n in _migrations(postgres_dsn)] == [MIGRATIONS[0][0], MIGRATIONS[2][0]]

    assert main(["upgrade", "--agent", "ada", "--store", postgres_dsn]) == 0
    captured = capsys.readouterr()
    assert captured.out.strip() == (
        f"upgraded agent ada's memory from schema 2 to {SCHEMA_VERSION}")
    assert "Traceback" not in captured.err
    # Numbered as this version numbers them, each once.
    assert _migrations(postgres_dsn) == [
        (number, name) for number, (name, _) in enumerate(MIGRATIONS, start=1)]

    with psycopg.connect(postgres_dsn, autocommit=True) as conn:
        # The events' migration ran: events keep no text, facts name their message.
        assert conn.execute("SELECT count(*) FROM tiermem.events WHERE text <> ''"
                            ).fetchone() == (0,)
        linked = conn.execute("SELECT text, source_message_id FROM tiermem.facts "
                              "WHERE source LIKE 'extracted:turn:%' ORDER BY id").fetchall()
    assert linked and all(message is not None for _, message in linked)

    with HierarchicalMemory(store=postgres_dsn, agent="ada",
                            embedder=HashingEmbedder(dim=8), read_only=True) as memory:
        texts = {f.text for f in memory.facts()}
        assert "The staging cluster runs in eu-west-1" in texts
        assert [r.outcome for r in memory.forget_requests()] == ["matched"]
        found = memory.recall_search("Lisbon").hits
        assert found[0].text == "My name is Ada and I live in Lisbon."


def test_a_migration_that_cannot_run_late_is_refused_with_what_to_do(
        postgres_dsn: str, capsys: pytest.CaptureFixture[str]) -> None:
    # As a development version left it: the recall context (6) without the agent-scoped
    # full text (4), which rebuilds the column the context's migration rebuilt.
    open_postgres(postgres_dsn, "ada", read_only=False).close()
    with psycopg.connect(postgres_dsn, autocommit=True) as conn:
        conn.execute("DELETE FROM tiermem.migrations WHERE version IN (4, 5) OR version > 6")
    before = _migrations(postgres_dsn)

    with pytest.raises(StoreError, match=r"without 'full-text search scoped to the agent"):
        open_postgres(postgres_dsn, "ada", read_only=False)
    assert main(["upgrade", "--agent", "ada", "--store", postgres_dsn]) == 1
    said = capsys.readouterr().err
    assert "Traceback" not in said and "tiermem migrate --from DSN" in said
    assert _migrations(postgres_dsn) == before
