"""The passages holding a text are found through an index (SQLite's migration 14 and its
PostgreSQL twin), not by reading every passage: the memory tools ask on every insert."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import psycopg
import pytest

from tiermem.memory.embed.embeddings import HashingEmbedder
from tiermem.memory.hierarchy import HierarchicalMemory
from tiermem.memory.store.sqlite.store import SQLiteStore


class _Plans:
    """The query plans of the statements a SQLite connection runs, by statement."""

    def __init__(self, store: SQLiteStore) -> None:
        self.plans: list[str] = []
        conn = store.conn
        conn.set_trace_callback(self._trace)
        self.conn = conn

    def _trace(self, statement: str) -> None:
        if statement.startswith("SELECT id FROM passages WHERE substr("):
            self.plans.append(statement)


def test_sqlite_reads_the_passages_holding_a_text_through_its_index(tmp_path: Path) -> None:
    with HierarchicalMemory(tmp_path, embedder=HashingEmbedder()) as m:
        for i in range(50):
            m.archival_insert(f"note {i}: the api pod restarted")
        traced = _Plans(m.store)  # type: ignore[arg-type]
        assert len(m.store.passages.holding("note 7: the api pod restarted")) == 1
        traced.conn.set_trace_callback(None)
        [statement] = traced.plans
        plan = " ".join(row[3] for row in m.store.conn.execute(  # type: ignore[attr-defined]
            f"EXPLAIN QUERY PLAN {statement}"))
        assert "USING INDEX passages_text" in plan and "SCAN passages" not in plan


def test_postgres_reads_the_passages_holding_a_text_through_its_index(
        postgres_dsn: str, monkeypatch: pytest.MonkeyPatch) -> None:
    with HierarchicalMemory(store=postgres_dsn, agent="ann", embedder=HashingEmbedder()) as m:
        for i in range(50):
            m.archival_insert(f"note {i}: the api pod restarted")
        # The statement ``holding`` runs, as it runs it: a copy of it here would pass
        # whatever that method came to ask.
        scope = m.store.passages.scope  # type: ignore[attr-defined]
        asked: list[tuple[str, tuple[object, ...]]] = []
        rows = scope.rows

        def traced(query: str, params: Sequence[object] = ()) -> list[tuple[object, ...]]:
            asked.append((query, (scope.agent, *params)))
            return rows(query, params)

        monkeypatch.setattr(scope, "rows", traced)
        assert len(m.store.passages.holding("note 7: the api pod restarted")) == 1
    [(query, params)] = asked
    with psycopg.connect(postgres_dsn, autocommit=True) as conn:
        conn.execute("ANALYZE tiermem.passages")
        conn.execute("SET enable_seqscan = off")  # a table this small is read whole otherwise
        plan = [str(step[0]) for step in conn.execute(f"EXPLAIN {query}", params)]
    # Found by the digest of the text: on agent_id alone, the index reads every passage.
    assert any("passages_text" in step for step in plan), plan
    assert any("Index Cond" in step and "md5(text)" in step for step in plan), plan
