"""BM25's counters in PostgreSQL change once per transaction, at commit
(memory/store/postgres/folded_stats.py), and every reader still sees the counts of
exactly the rows it sees: inside the writing transaction, across a rolled-back
savepoint, after updates, deletes and forgetting, and equal to SQLite's scores."""

from __future__ import annotations

from pathlib import Path

import psycopg
import pytest
from memory_helpers import postgres_schema_at_version

from tiermem.memory.embed.embeddings import HashingEmbedder
from tiermem.memory.hierarchy import HierarchicalMemory
from tiermem.memory.store.postgres import schema
from tiermem.memory.store.postgres.backend import PostgresBackend
from tiermem.memory.store.postgres.schema_search import agent_lexeme
from tiermem.memory.store.records import TextTable


class Boom(Exception):
    pass


def _writes(conn: psycopg.Connection, table: str) -> int:
    """Rows inserted or updated in ``table`` by the open transaction."""
    row = conn.execute("SELECT n_tup_ins + n_tup_upd FROM pg_stat_xact_user_tables "
                       "WHERE schemaname = 'tiermem' AND relname = %s", (table,)).fetchone()
    return int(row[0]) if row else 0


def _true_counts(backend: PostgresBackend, table: TextTable) -> dict[str, int]:
    return {str(lexeme): int(n) for lexeme, n in backend.conn.execute(
        f"SELECT l, count(*) FROM tiermem.{table}, unnest(tsvector_to_array(tsv)) l "
        f"WHERE agent_id = %s GROUP BY l", (backend.agent_id,)).fetchall()}


def _true_size(backend: PostgresBackend, table: TextTable) -> tuple[int, int]:
    """The rows not forgotten (as SQLite's full-text index holds them) and their words."""
    row = backend.conn.execute(f"SELECT count(*), coalesce(sum(n_words), 0) FROM "
                               f"tiermem.{table} WHERE agent_id = %s AND forgotten_at IS NULL",
                               (backend.agent_id,)).fetchone()
    assert row is not None
    return int(row[0]), int(row[1])


def _assert_reader_counts_right(backend: PostgresBackend, table: TextTable) -> None:
    """What BM25 reads (committed counters plus the transaction's own changes) is what
    the rows the reader sees hold."""
    true = _true_counts(backend, table)
    lexical = backend.lexical(table)
    asked = [*true, "neverwrittenword"]
    assert dict(zip(asked, lexical._document_counts(asked), strict=True)) == {
        **true, "neverwrittenword": 0}
    assert lexical._table_size() == _true_size(backend, table)


def _assert_committed_counts_right(backend: PostgresBackend, table: TextTable) -> None:
    stored = {str(lexeme): int(n) for lexeme, n in backend.conn.execute(
        "SELECT lexeme, n_rows FROM tiermem.lexeme_stats WHERE agent_id = %s AND tab = %s",
        (backend.agent_id, table)).fetchall()}
    assert stored == _true_counts(backend, table)  # no lexeme left at zero either
    size = backend.conn.execute("SELECT n_rows, n_words FROM tiermem.text_stats "
                                "WHERE agent_id = %s AND tab = %s",
                                (backend.agent_id, table)).fetchone()
    assert (tuple(map(int, size)) if size else (0, 0)) == _true_size(backend, table)
    # Nothing waits for a commit once it is over.
    for pending in ("lexeme_pending", "text_pending", "stats_folds"):
        assert backend.conn.execute(f"SELECT count(*) FROM tiermem.{pending}").fetchone() == (0,)


def test_many_writes_in_one_transaction_change_each_counter_once(postgres_dsn: str) -> None:
    n = 60
    with HierarchicalMemory(store=postgres_dsn, agent="bulk", embedder=HashingEmbedder(),
                            core_limit=100_000) as memory:
        backend = memory.store
        assert isinstance(backend, PostgresBackend)
        with memory.interaction():
            for i in range(n):
                memory.add_fact(f"the user likes item number {i}")
            # Every fact holds the agent's lexeme and five words: counted once per
            # statement, each of those six counters changed 60 times.
            _assert_reader_counts_right(backend, "facts")
            lexemes = len(_true_counts(backend, "facts"))
            # The changes are folded in now, as at commit, and counted.
            backend.conn.execute("SET CONSTRAINTS ALL IMMEDIATE")
            assert _writes(backend.conn, "lexeme_stats") <= lexemes
            assert _writes(backend.conn, "text_stats") <= 1
            _assert_reader_counts_right(backend, "facts")
        _assert_committed_counts_right(backend, "facts")


def _add(backend: PostgresBackend, ident: int, text: str) -> None:
    backend.conn.execute(
        "INSERT INTO tiermem.passages (agent_id, id, text, created_at, n_words) "
        "VALUES (%s, %s, %s, 1.0, %s)", (backend.agent_id, ident, text, len(text.split())))


def test_counts_follow_savepoints_updates_and_deletes_inside_one_transaction(
        postgres_dsn: str) -> None:
    backend = PostgresBackend(postgres_dsn, "counts")
    other = PostgresBackend(postgres_dsn, "other")
    try:
        with other.transaction():
            _add(other, 1, "walrus walrus kelp")
        with backend.transaction():
            for i, text in enumerate(["walrus tusks", "kelp forest", "walrus kelp"], start=1):
                _add(backend, i, text)
            _assert_reader_counts_right(backend, "passages")
            with pytest.raises(Boom), backend.transaction():  # a savepoint
                _add(backend, 4, "narwhal tusks")
                backend.conn.execute("DELETE FROM tiermem.passages WHERE agent_id = %s "
                                     "AND id = 1", (backend.agent_id,))
                backend.conn.execute("UPDATE tiermem.passages SET text = 'narwhal', "
                                     "n_words = 1 WHERE agent_id = %s AND id = 2",
                                     (backend.agent_id,))
                assert _true_counts(backend, "passages")["narwhal"] == 2
                _assert_reader_counts_right(backend, "passages")
                raise Boom
            assert "narwhal" not in _true_counts(backend, "passages")
            _assert_reader_counts_right(backend, "passages")
            with backend.transaction():  # a savepoint that is kept
                backend.conn.execute("UPDATE tiermem.passages SET text = 'seal pup', "
                                     "n_words = 2 WHERE agent_id = %s AND id = 2",
                                     (backend.agent_id,))
            backend.conn.execute("DELETE FROM tiermem.passages WHERE agent_id = %s AND id = 1",
                                 (backend.agent_id,))
            _assert_reader_counts_right(backend, "passages")
        _assert_committed_counts_right(backend, "passages")
        assert _true_counts(backend, "passages") == {
            "walrus": 1, "kelp": 1, "seal": 1, "pup": 1,
            agent_lexeme(backend.agent_id): 2}
        # A transaction that only takes rows away drops the words no row holds any more.
        with backend.transaction():
            backend.conn.execute("DELETE FROM tiermem.passages WHERE agent_id = %s AND id = 2",
                                 (backend.agent_id,))
        _assert_committed_counts_right(backend, "passages")
        # Another agent's counts never moved.
        _assert_committed_counts_right(other, "passages")
    finally:
        backend.close()
        other.close()


def _scores_inside_one_interaction(memory: HierarchicalMemory) -> list[dict[int, float]]:
    """Write, undo a savepoint and erase, then score, all in one interaction."""
    lexical = memory.store.lexical("passages")
    with memory.interaction():
        for i in range(12):
            memory.archival_insert(f"walrus report {i}: the kelp forest" + " thin" * (i % 3))
        memory.archival_insert("a narwhal was seen near the kelp")
        memory.archival_insert("one more narwhal")
        with pytest.raises(Boom), memory.interaction():
            memory.archival_insert("narwhal narwhal walrus")
            raise Boom
        memory.erase(passages=[2], reason="asked")
        memory.store.forgetting.forget([], [3, 4], [], 2.0)
        queries = [["walrus"], ["narwhal", "kelp"], ["thin", "forest", "report"]]
        return [lexical.scores(q) for q in queries]


def test_scores_inside_a_transaction_equal_sqlites(postgres_dsn: str, tmp_path: Path) -> None:
    with HierarchicalMemory(tmp_path / "home", embedder=HashingEmbedder()) as lite, \
            HierarchicalMemory(store=postgres_dsn, agent="scored",
                               embedder=HashingEmbedder()) as pg:
        expected = _scores_inside_one_interaction(lite)
        found = _scores_inside_one_interaction(pg)
    assert all(expected)
    for mine, theirs in zip(found, expected, strict=True):
        assert mine.keys() == theirs.keys()
        assert mine == pytest.approx(theirs, rel=1e-9)


def _old_store(postgres_dsn: str, monkeypatch: pytest.MonkeyPatch, migration: str,
               agent: str, forgotten: tuple[int, ...] = ()) -> int:
    """Five passages written, and ``forgotten`` forgotten, under the schema as it was before
    the migration named ``migration``; the row count it stored for them."""
    names = [name for name, _ in schema.MIGRATIONS]
    postgres_schema_at_version(monkeypatch, names.index(migration))
    backend = PostgresBackend(postgres_dsn, agent)
    try:
        with backend.transaction():
            for i in range(1, 6):
                _add(backend, i, f"harbour crane {i}")
        if forgotten:
            with backend.transaction():
                backend.forgetting.forget([], forgotten, [], 1.0)
        stored = backend.conn.execute(
            "SELECT n_rows FROM tiermem.text_stats WHERE agent_id = %s AND tab = 'passages'",
            (backend.agent_id,)).fetchone()
        assert stored is not None
        return int(stored[0])
    finally:
        backend.close()
        monkeypatch.undo()


def test_a_database_counted_per_statement_keeps_its_counts_when_upgraded(
        postgres_dsn: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # The schema before counts changed at commit, holding rows written then.
    _old_store(postgres_dsn, monkeypatch,
               "text and lexeme counts changed once per transaction, at commit", "old")
    backend = PostgresBackend(postgres_dsn, "old")
    try:
        _assert_committed_counts_right(backend, "passages")
        with backend.transaction():
            _add(backend, 6, "harbour kelp")
            backend.conn.execute("DELETE FROM tiermem.passages WHERE agent_id = %s AND id = 1",
                                 (backend.agent_id,))
            _assert_reader_counts_right(backend, "passages")
        _assert_committed_counts_right(backend, "passages")
        assert _true_counts(backend, "passages")["harbour"] == 5
    finally:
        backend.close()


def test_a_database_that_counted_forgotten_rows_counts_only_the_others_when_upgraded(
        postgres_dsn: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # The old schema counted the forgotten rows.
    assert _old_store(postgres_dsn, monkeypatch,
                      "forgotten rows left out of each table's row count, for BM25",
                      "forgetful", forgotten=(2, 3)) == 5
    backend = PostgresBackend(postgres_dsn, "forgetful")
    try:
        _assert_committed_counts_right(backend, "passages")
        assert _true_size(backend, "passages")[0] == 3
        with backend.transaction():
            _add(backend, 6, "harbour kelp")
            backend.forgetting.forget([], [1], [], 2.0)
            _assert_reader_counts_right(backend, "passages")
        _assert_committed_counts_right(backend, "passages")
    finally:
        backend.close()
