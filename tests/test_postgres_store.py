"""The PostgreSQL backend's own guarantees: agents kept apart in one database, one writer
per agent, nested transactions, append-only recall, BM25 as FTS5 ranks and exact vectors."""

from __future__ import annotations

import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import psycopg
import pytest

from tiermem.memory.errors import ReadOnlyError
from tiermem.memory.store.postgres.backend import PostgresBackend
from tiermem.memory.store.postgres.connection import AgentLockedError
from tiermem.memory.store.records import (
    DUMP_TABLES,
    Event,
    HistoryPoint,
    Message,
    Passage,
    RowFilter,
)
from tiermem.memory.types import Fact

ROOT = Path(__file__).resolve().parent.parent
DIM = 16


def _unit(rng: np.random.Generator, n: int) -> np.ndarray:
    v = rng.standard_normal((n, DIM)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def _fact(text: str) -> Fact:
    return Fact(id=0, text=text, durability="durable", created_at=1.0, created_tick=1.0,
                last_access=1.0, access_count=1, source="", tokens=3)


def _fill(backend: PostgresBackend, word: str, vectors: np.ndarray) -> None:
    """Rows in every table, each holding ``word``."""
    with backend.transaction():
        backend.facts.insert(_fact(f"user owns a {word}"), f"user owns a {word}")
        backend.passages.insert_many([
            Passage(text=f"{word} passage {i}", created_at=float(i), tags=[word],
                    embedding=vectors[i], embedder_id="test") for i in range(len(vectors))])
        backend.messages.append_many([
            Message(turn=1, role="user", content=f"tell me about the {word}", created_at=1.0,
                    embedding=vectors[0], embedder_id="test")])
        backend.history.record(HistoryPoint(1, 1.0, 1, 3, 1, len(vectors), 1, 0, 0))
        backend.history.add_event(Event(1, "add", 1, word, 1.0))
        backend.settings.set("state.word", json.dumps(word))  # as set_state writes it


@pytest.fixture
def alice(postgres_dsn: str) -> Iterator[PostgresBackend]:
    backend = PostgresBackend(postgres_dsn, "alice")
    yield backend
    backend.close()


def test_agents_in_one_database_never_see_each_others_rows(postgres_dsn: str) -> None:
    rng = np.random.default_rng(1)
    alice_vectors, bob_vectors = _unit(rng, 4), _unit(rng, 2)
    alice, bob = PostgresBackend(postgres_dsn, "alice"), PostgresBackend(postgres_dsn, "bob")
    try:
        _fill(alice, "zeppelin", alice_vectors)
        _fill(bob, "harpsichord", bob_vectors)
        # The same ids exist for both agents; each reads only its own rows.
        assert [f.text for f in bob.facts.all()] == ["user owns a harpsichord"]
        assert bob.facts.by_norm("user owns a zeppelin") is None
        assert bob.passages.count() == 2 and alice.passages.count() == 4
        assert {p.text for p in bob.passages.get_many([1, 2, 3, 4]).values()} == {
            "harpsichord passage 0", "harpsichord passage 1"}
        assert [m.content for m in bob.messages.get_many([1]).values()] == [
            "tell me about the harpsichord"]
        assert [e.detail for e in bob.history.events_since(0)] == ["harpsichord"]
        assert [p.archival_passages for p in bob.history.points()] == [2]
        assert bob.settings.items("state.") == [("state.word", '"harpsichord"')]
        for table in ("facts", "passages", "messages"):
            ranking = bob.lexical(table).rank(["zeppelin"], RowFilter())
            assert ranking.top(10) == {} and ranking.total() == 0
            assert bob.lexical(table).scores(["zeppelin"]) == {}
        assert bob.passages.passing([3, 4], RowFilter()) == []
        ids, _ = bob.vectors("passages", DIM).search(alice_vectors[3], 10)
        assert sorted(ids.tolist()) == [1, 2]
        assert bob.vectors("passages", DIM).similarities([3, 4], alice_vectors[3]) == {}
        assert len(bob.vectors("messages", DIM)) == 1
        dumped = {t: [r.get("text", r.get("content")) for r in bob.export_rows(t)]
                  for t in DUMP_TABLES}
        assert not any("zeppelin" in str(v) for v in dumped.values())
        # Clearing one agent leaves the other whole.
        with bob.transaction():
            bob.clear()
        assert bob.passages.count() == 0 and bob.messages.count() == 0
        assert alice.passages.count() == 4 and alice.messages.count() == 1
        assert alice.settings.get("state.word") == '"zeppelin"'
    finally:
        alice.close()
        bob.close()


WRITER = """
import sys
from tiermem.memory.store.postgres.backend import PostgresBackend
backend = PostgresBackend(sys.argv[1], sys.argv[2])
with backend.transaction():
    backend.settings.set("writer", sys.argv[2])
print("holding", flush=True)
sys.stdin.readline()
backend.close()
print("released", flush=True)
"""


def _writer(dsn: str, agent: str) -> subprocess.Popen[str]:
    child = subprocess.Popen([sys.executable, "-c", WRITER, dsn, agent], cwd=ROOT, text=True,
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert child.stdout is not None and child.stdout.readline() == "holding\n"
    return child


def test_a_second_writer_is_refused_by_name_while_other_agents_write(postgres_dsn: str) -> None:
    holder = _writer(postgres_dsn, "alice")
    others = []
    try:
        # Writers of other agents hold their locks at the same time, from other processes.
        others = [_writer(postgres_dsn, name) for name in ("bob", "carol")]
        with pytest.raises(AgentLockedError) as refused:
            PostgresBackend(postgres_dsn, "alice")
        assert refused.value.holder_pid == holder.pid
        assert refused.value.holder_host == socket.gethostname()
        assert f"process {holder.pid} on host {socket.gethostname()}" in str(refused.value)
        assert "read_only=True" in str(refused.value)
        reader = PostgresBackend(postgres_dsn, "alice", read_only=True)
        assert reader.settings.get("writer") == "alice"
        reader.close()
        # A clean close hands the agent on.
        assert holder.stdin is not None and holder.stdout is not None
        holder.stdin.write("\n")
        holder.stdin.flush()
        assert holder.stdout.readline() == "released\n"
        PostgresBackend(postgres_dsn, "alice").close()
    finally:
        for child in [holder, *others]:
            child.kill()
            child.wait()


def test_a_killed_writer_releases_its_agent(postgres_dsn: str) -> None:
    holder = _writer(postgres_dsn, "alice")
    holder.send_signal(signal.SIGKILL)
    holder.wait()
    # Opened at once: the server may not have ended the dead writer's session yet, and the
    # open waits for its lock when the holder's process has left this host.
    backend = PostgresBackend(postgres_dsn, "alice")
    assert backend.settings.get("writer") == "alice"
    backend.close()


def test_nested_transactions_are_savepoints(alice: PostgresBackend) -> None:
    rolled_back: list[int] = []
    alice.on_rollback(lambda: rolled_back.append(alice.depth))
    with alice.transaction():
        alice.settings.set("k", "outer")
        with pytest.raises(RuntimeError), alice.transaction():
            alice.settings.set("k", "inner")
            raise RuntimeError("undo the inner change only")
        assert alice.settings.get("k") == "outer"
    assert alice.settings.get("k") == "outer" and rolled_back == [1]
    with pytest.raises(RuntimeError), alice.transaction():
        alice.settings.set("k", "lost")
        raise RuntimeError("undo everything")
    assert alice.settings.get("k") == "outer" and rolled_back == [1, 0]


def test_read_only_takes_no_lock_and_refuses_writes(alice: PostgresBackend,
                                                    postgres_dsn: str) -> None:
    reader = PostgresBackend(postgres_dsn, "alice", read_only=True)
    try:
        with pytest.raises(ReadOnlyError), reader.transaction():
            pass
    finally:
        reader.close()


def test_recall_is_append_only_in_the_database(alice: PostgresBackend) -> None:
    with alice.transaction():
        alice.messages.append_many([Message(turn=1, role="user", content="kept",
                                            created_at=1.0)])
    with pytest.raises(psycopg.errors.RaiseException, match="append-only"):
        alice.conn.execute("UPDATE tiermem.messages SET content = 'edited'")
    with pytest.raises(psycopg.errors.RaiseException, match="append-only"):
        alice.conn.execute("DELETE FROM tiermem.messages")
    with alice.transaction():
        erased = alice.messages.erase([1], "asked to forget", 2.0)
    assert [m.content for m in erased] == ["kept"] and alice.messages.count() == 0


TEXTS = ["the quick brown fox jumps over the lazy dog", "a lazy afternoon with coffee",
         "quick thinking saves the day", "brown bread and butter", "the fox and the hound",
         "coffee coffee coffee every morning", "dog walking in the park at noon",
         "nothing to see here at all"]


def test_bm25_ranks_as_sqlite_fts5_does(alice: PostgresBackend) -> None:
    with alice.transaction():
        alice.passages.insert_many([Passage(text=t, created_at=1.0) for t in TEXTS])
    fts = sqlite3.connect(":memory:")
    fts.execute("CREATE VIRTUAL TABLE p USING fts5 (text, tokenize='porter unicode61')")
    fts.executemany("INSERT INTO p (rowid, text) VALUES (?, ?)",
                    [(i + 1, t) for i, t in enumerate(TEXTS)])
    for terms in (["fox"], ["lazy", "coffee"], ["quick", "brown", "dog"]):
        expected = dict(fts.execute(
            "SELECT rowid, -bm25(p) FROM p WHERE p MATCH ? ORDER BY bm25(p)",
            (" OR ".join(terms),)).fetchall())
        got = alice.lexical("passages").rank(terms, RowFilter()).everything()
        assert list(got) == sorted(expected, key=lambda i: (-expected[i], i))
        assert got == pytest.approx(expected, rel=1e-6)


def test_vector_search_is_exact(alice: PostgresBackend) -> None:
    rng = np.random.default_rng(7)
    vectors = _unit(rng, 300)
    with alice.transaction():
        alice.passages.insert_many([Passage(text=f"p{i}", created_at=1.0, embedding=v,
                                            embedder_id="test") for i, v in enumerate(vectors)])
    index = alice.vectors("passages", DIM)
    query = _unit(rng, 1)[0]
    exact = vectors @ query
    ids, sims = index.search(query, 10)
    assert ids.tolist() == (np.argsort(-exact)[:10] + 1).tolist()
    assert sims == pytest.approx(np.sort(exact)[::-1][:10], abs=1e-5)
    top, _, bound = index.nearest(query, 5)
    assert top.tolist() == ids.tolist()[:5]
    assert bound == pytest.approx(np.sort(exact)[::-1][5], abs=1e-5)
    above, _ = index.above(query, 0.5)
    assert sorted(above.tolist()) == sorted((np.flatnonzero(exact >= 0.5) + 1).tolist())


def test_a_dump_loads_into_another_agent_unchanged(alice: PostgresBackend,
                                                   postgres_dsn: str) -> None:
    _fill(alice, "zeppelin", _unit(np.random.default_rng(3), 3))
    copy = PostgresBackend(postgres_dsn, "copy")
    try:
        with copy.transaction():
            for table in DUMP_TABLES:
                copy.import_rows(table, list(alice.export_rows(table)))
        for table in DUMP_TABLES:
            assert list(copy.export_rows(table)) == list(alice.export_rows(table))
        assert copy.lexical("passages").rank(["zeppelin"], RowFilter()).total() == 3
    finally:
        copy.close()


def test_a_batch_is_written_by_one_statement(alice: PostgresBackend) -> None:
    # The tables' statement triggers (text and lexeme counts) run once per statement, so
    # a batch written row by row would run them once per row.
    alice.conn.execute("""
        CREATE TABLE public.statements (op TEXT, tab TEXT);
        CREATE FUNCTION public.count_statement() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN INSERT INTO public.statements VALUES (TG_OP, TG_TABLE_NAME); RETURN NULL; END $$;
        CREATE TRIGGER count_passages AFTER INSERT OR UPDATE ON tiermem.passages
            FOR EACH STATEMENT EXECUTE FUNCTION public.count_statement();
        CREATE TRIGGER count_messages AFTER INSERT ON tiermem.messages
            FOR EACH STATEMENT EXECUTE FUNCTION public.count_statement();""")
    vectors = _unit(np.random.default_rng(4), 300)
    with alice.transaction():
        alice.passages.insert_many([Passage(text=f"p{i}", created_at=1.0, embedding=v,
                                            embedder_id="test") for i, v in enumerate(vectors)])
        alice.messages.append_many([Message(turn=1, role="user", content=f"m{i}",
                                            created_at=1.0) for i in range(300)])
        alice.passages.set_embeddings(list(range(1, 301)), vectors[::-1], "other")
    counted = alice.conn.execute("SELECT op, tab, count(*) FROM public.statements "
                                 "GROUP BY op, tab ORDER BY op, tab").fetchall()
    assert counted == [("INSERT", "messages", 1), ("INSERT", "passages", 1),
                       ("UPDATE", "passages", 1)]
    stored = alice.vectors("passages", DIM).similarities([1, 300], vectors[-1])
    assert stored[1] == pytest.approx(1.0, abs=1e-5) and stored[300] < 0.99
