"""Migration 11 (SQLite) and its PostgreSQL twin: a fact or passage that a version before
the erased-id settings erased is marked from the ids the events and the forget audit name,
so its id is not given again after the upgrade."""

from __future__ import annotations

from pathlib import Path

import psycopg
import pytest
from memory_helpers import migrate_postgres_up_to, sqlite_store_at_version

from tiermem.memory.embed.embeddings import HashingEmbedder
from tiermem.memory.hierarchy import HierarchicalMemory
from tiermem.memory.store.postgres import schema as pg_schema
from tiermem.memory.store.postgres.schema_tables import ERASED_ID_MARKS
from tiermem.memory.store.postgres.scope import Scope

#: Facts 1 to 3 and passages 1 to 3 as stored; then fact 3 (named by its events) and
#: passage 3 (named by a forget request, as fact 2 is) were erased, leaving no mark.
_FACTS = ("User likes tea", "User lives in Lyon", "User's gate code is 2291")
_ERASED_FACT, _ERASED_PASSAGE = 3, 3
#: A forget request's ids, one of them not JSON: it names nothing and the upgrade goes on.
_AUDITS = (("[2]", "[3]"), ("[1, 3", "{}"))


def test_sqlite_migration_marks_erased_ids_the_records_name(tmp_path: Path) -> None:
    with sqlite_store_at_version(tmp_path, 10) as before, before.transaction():
        for i, text in enumerate(_FACTS, start=1):
            before.execute(
                "INSERT INTO facts (text, norm, durability, tier, created_at, created_tick,"
                " last_access, last_counted_tick, tokens) VALUES (?, ?, 'durable', 'core',"
                " 1, 1, 1, 1, 4)", (text, text.lower()))
            before.execute("INSERT INTO events (tick, kind, fact_id, created_at)"
                           " VALUES (1, 'add', ?, 1)", (i,))
            before.execute("INSERT INTO passages (text, created_at) VALUES (?, 1)",
                           (f"runbook {i}",))
        for facts, passages in _AUDITS:
            before.execute("INSERT INTO forget_requests (created_at, request_hash, mode,"
                           " outcome, facts, passages) VALUES (1, ?, 'exact', 'matched', ?, ?)",
                           ("0" * 64, facts, passages))
        before.execute("DELETE FROM facts WHERE id = ?", (_ERASED_FACT,))
        before.execute("DELETE FROM passages WHERE id = ?", (_ERASED_PASSAGE,))
    with HierarchicalMemory(tmp_path, embedder=HashingEmbedder()) as after:
        assert after.add_fact("User's badge is blue") == _ERASED_FACT + 1
        assert after.archival_insert("runbook 4") == _ERASED_PASSAGE + 1


def test_sqlite_migration_marks_nothing_when_nothing_was_erased(tmp_path: Path) -> None:
    with sqlite_store_at_version(tmp_path, 10) as before, before.transaction():
        before.execute("INSERT INTO events (tick, kind, fact_id, created_at)"
                       " VALUES (1, 'evict', -1, 1)")
    with HierarchicalMemory(tmp_path, embedder=HashingEmbedder()) as after:
        keys = {r[0] for r in after.store.execute("SELECT key FROM meta")}
        assert not keys & {"max_erased_fact_id", "max_erased_passage_id"}
        assert after.add_fact("User's badge is blue") == 1


def test_postgres_migration_marks_erased_ids_the_records_name(
        postgres_dsn: str, monkeypatch: pytest.MonkeyPatch) -> None:
    with psycopg.connect(postgres_dsn, autocommit=True) as conn:
        # The schema as it was before it, holding rows written then.
        migrate_postgres_up_to(conn, monkeypatch, ERASED_ID_MARKS)
        with conn.transaction():
            agents = [conn.execute("INSERT INTO tiermem.agents (name, store_id) VALUES "
                                   "(%s, 'x') RETURNING id", (name,)).fetchone()[0]
                      for name in ("ann", "bob")]
            agent = agents[0]
            for i, text in enumerate(_FACTS, start=1):
                conn.execute("INSERT INTO tiermem.facts (agent_id, id, text, norm, durability, "
                             "tier, created_at, created_tick, last_access, last_counted_tick, "
                             "tokens) VALUES (%s, %s, %s, %s, 'durable', 'core', 1, 1, 1, 1, 4)",
                             (agent, i, text, text.lower()))
                conn.execute("INSERT INTO tiermem.events (agent_id, id, tick, kind, fact_id, "
                             "created_at) VALUES (%s, %s, 1, 'add', %s, 1)", (agent, i, i))
                conn.execute("INSERT INTO tiermem.passages (agent_id, id, text, created_at) "
                             "VALUES (%s, %s, %s, 1)", (agent, i, f"runbook {i}"))
            for n, (facts, passages) in enumerate(_AUDITS, start=1):
                conn.execute("INSERT INTO tiermem.forget_requests (agent_id, id, created_at, "
                             "request_hash, mode, outcome, facts, passages) VALUES (%s, %s, 1, "
                             "%s, 'exact', 'matched', %s, %s)",
                             (agent, n, "0" * 64, facts, passages))
            conn.execute("DELETE FROM tiermem.facts WHERE agent_id = %s AND id = %s",
                         (agent, _ERASED_FACT))
            conn.execute("DELETE FROM tiermem.passages WHERE agent_id = %s AND id = %s",
                         (agent, _ERASED_PASSAGE))
        monkeypatch.undo()
        pg_schema.migrate(conn)
        marks = conn.execute("SELECT agent_id, key, value FROM tiermem.settings "
                             "ORDER BY agent_id, key").fetchall()
        assert marks == [(agent, "max_erased_fact_id", str(_ERASED_FACT)),
                         (agent, "max_erased_passage_id", str(_ERASED_PASSAGE))]
        # The next ids as the store computes them.
        scope = Scope(conn, agent)
        assert (scope.next_id("facts"), scope.next_id("passages")) == (
            _ERASED_FACT + 1, _ERASED_PASSAGE + 1)


@pytest.mark.parametrize(("facts", "passages", "marks"), [
    # The highest id a BIGINT holds is 19 digits long, as are ids past it, which no row has.
    ("[1000000000000000000]", "[9223372036854775807]",
     [("max_erased_fact_id", "1000000000000000000"),
      ("max_erased_passage_id", "9223372036854775807")]),
    ("[2, 9999999999999999999]", "[12345678901234567890]", [("max_erased_fact_id", "2")]),
    # Digits of other scripts are no JSON number.
    ("[\u0663]", "[\uff17]", []),
])
def test_postgres_migration_reads_every_id_a_bigint_holds_and_passes_over_others(
        postgres_dsn: str, monkeypatch: pytest.MonkeyPatch, facts: str, passages: str,
        marks: list[tuple[str, str]]) -> None:
    with psycopg.connect(postgres_dsn, autocommit=True) as conn:
        # The schema as it was before it, holding rows written then.
        migrate_postgres_up_to(conn, monkeypatch, ERASED_ID_MARKS)
        agent = conn.execute("INSERT INTO tiermem.agents (name, store_id) VALUES ('ann', 'x') "
                             "RETURNING id").fetchone()[0]
        conn.execute("INSERT INTO tiermem.forget_requests (agent_id, id, created_at, "
                     "request_hash, mode, outcome, facts, passages) VALUES (%s, 1, 1, %s, "
                     "'exact', 'matched', %s, %s)", (agent, "0" * 64, facts, passages))
        monkeypatch.undo()
        pg_schema.migrate(conn)
        assert conn.execute("SELECT key, value FROM tiermem.settings WHERE agent_id = %s "
                            "ORDER BY key", (agent,)).fetchall() == marks
