"""Shared helpers for the memory engine's tests: construction and invariant checks."""

from __future__ import annotations

import contextlib
import gc
import hashlib
import json
import math
import sqlite3
import subprocess
import uuid
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tiermem.memory.embed.embeddings import HashingEmbedder
from tiermem.memory.hierarchy import HierarchicalMemory
from tiermem.memory.store.sqlite import connection, schema
from tiermem.memory.store.sqlite import dump as sqlite_dump
from tiermem.memory.store.sqlite import messages as sqlite_messages
from tiermem.memory.store.sqlite import store as store_module
from tiermem.memory.store.sqlite.forgetting import SQLiteForgetting
from tiermem.memory.text.tokenizer import TokenCounter
from tiermem.memory.tiers.recall import NewMessage
from tiermem.memory.types import Fact

_COUNTER = TokenCounter()


def make_memory(path: str | Path | None = None, **kwargs: Any) -> HierarchicalMemory:
    """A memory on the deterministic hashing embedder (no model)."""
    kwargs.setdefault("embedder", HashingEmbedder())
    return HierarchicalMemory(path, **kwargs)


def database_digest(home: Path) -> str:
    """What an agent home's database holds, schema and rows (its files may differ: SQLite
    checkpoints the WAL into the database when the last connection closes, a reader's too)."""
    with contextlib.closing(sqlite3.connect(home / "memory.sqlite3")) as conn:
        dump = "\n".join(conn.iterdump())
    return hashlib.sha256(dump.encode()).hexdigest()


def writable_database(database: Path) -> sqlite3.Connection:
    """A raw connection that writes to a memory database as tiermem's own do: with the SQL
    functions its triggers call, without which SQLite refuses every write (the guard an
    older tiermem meets, memory/store/sqlite/schema_tables.py)."""
    from tiermem.memory.store.sqlite.schema import register_functions

    conn = sqlite3.connect(database)
    register_functions(conn)
    return conn


def migrate_postgres_up_to(conn: Any, monkeypatch: pytest.MonkeyPatch, script: str) -> None:
    """Bring the database of ``conn`` to the schema just before the migration ``script``,
    as the version before it made it; ``monkeypatch.undo()`` then ``migrate`` again
    upgrades it as today's code does."""
    from tiermem.memory.store.postgres import schema as pg_schema

    before = [text for _, text in pg_schema.MIGRATIONS].index(script)
    monkeypatch.setattr(pg_schema, "MIGRATIONS", pg_schema.MIGRATIONS[:before])
    monkeypatch.setattr(pg_schema, "SCHEMA_VERSION", len(pg_schema.MIGRATIONS))
    pg_schema.migrate(conn)


def undo_postgres_forget_in_bulk(conn: Any) -> None:
    """Undo what PostgreSQL's migration ``FORGET_IN_BULK`` changes the schema by (its record
    stays for the caller to delete): the trigger that handed each forgotten message's context
    on is back. The update triggers it redefines count the same lexemes either way."""
    conn.execute(
        "CREATE TRIGGER messages_forgotten_hand_on AFTER UPDATE OF forgotten_at ON"
        " tiermem.messages FOR EACH ROW"
        " WHEN (old.forgotten_at IS NULL AND new.forgotten_at IS NOT NULL)"
        " EXECUTE FUNCTION tiermem.messages_hand_on_context()")


def undo_postgres_erase_in_bulk(conn: Any) -> None:
    """Undo what PostgreSQL's migration ``ERASE_IN_BULK`` changes the schema by (its record
    stays for the caller to delete): the trigger that handed each erased message's context
    on is back."""
    conn.execute(
        "CREATE TRIGGER messages_erased_context AFTER DELETE ON tiermem.messages"
        " FOR EACH ROW EXECUTE FUNCTION tiermem.messages_hand_on_context()")


def undo_postgres_outside_the_store(conn: Any) -> None:
    """Undo what PostgreSQL's migration ``OUTSIDE_THE_STORE`` changes the schema by (its
    record stays for the caller to delete): a message another program forgets or deletes
    hands nothing on, and a forgotten row only has its context cleared."""
    conn.execute(
        "DROP TRIGGER messages_deleted_outside ON tiermem.messages;"
        " DROP TRIGGER messages_forgotten_outside ON tiermem.messages;"
        " DROP FUNCTION tiermem.messages_left_outside_the_store();"
        " DROP TRIGGER messages_forgotten_context ON tiermem.messages;"
        " DROP FUNCTION tiermem.messages_forgotten_row();"
        " CREATE TRIGGER messages_forgotten_context BEFORE UPDATE OF forgotten_at"
        " ON tiermem.messages FOR EACH ROW WHEN (new.forgotten_at IS NOT NULL)"
        " EXECUTE FUNCTION tiermem.messages_take_context()")


def postgres_schema_at_version(monkeypatch: pytest.MonkeyPatch, version: int) -> None:
    """Until ``monkeypatch.undo()``, PostgreSQL stores open at the first ``version``
    migrations, and take the writer lock as the code of that version did where today's
    records a column it lacked (the writer's process scope)."""
    from tiermem.memory.store.postgres import backend as pg_backend
    from tiermem.memory.store.postgres import connection as pg_connection
    from tiermem.memory.store.postgres import schema as pg_schema
    from tiermem.memory.store.postgres.schema_tables import WRITER_SCOPE

    scoped = [text for _, text in pg_schema.MIGRATIONS].index(WRITER_SCOPE)
    monkeypatch.setattr(pg_schema, "MIGRATIONS", pg_schema.MIGRATIONS[:version])
    monkeypatch.setattr(pg_schema, "SCHEMA_VERSION", version)
    monkeypatch.setattr(pg_connection, "SCHEMA_VERSION", version)
    if version <= scoped:
        monkeypatch.setattr(pg_backend, "take_writer_lock", _unscoped_writer_lock)


def _unscoped_writer_lock(conn: Any, agent: int, where: str) -> None:
    from tiermem.memory.store.postgres.schema import LOCK_CLASS

    got = conn.execute("SELECT pg_try_advisory_lock(%s, %s)", (LOCK_CLASS, agent)).fetchone()
    assert got is not None and got[0], f"{where} is held"
    conn.execute("INSERT INTO tiermem.writers (agent_id, host, pid, backend_pid) "
                 "VALUES (%s, 'older-host', 1, pg_backend_pid())", (agent,))


#: The SQLite migration from which the store, not a trigger a row, takes forgotten messages
#: out of recall's index.
SQLITE_FORGETS_IN_BULK = next(m.number for m in schema.MIGRATIONS
                              if m.name.startswith("recall's messages forgotten in a few"))


def _forget_by_trigger(forgetting: SQLiteForgetting, ids: Sequence[int], sets: str,
                       forgotten_at: float) -> list[int]:
    """Messages forgotten as the code before ``SQLITE_FORGETS_IN_BULK`` forgot them: the
    tombstones alone, the schema's triggers taking each message out of the index. Today's
    statements beside those triggers would delete each entry twice, which corrupts FTS5."""
    return forgetting._mark("messages", ids, sets, (forgotten_at,))


#: The SQLite migration from which the store, not a trigger a row, takes erased messages out
#: of recall's index.
SQLITE_ERASES_IN_BULK = next(m.number for m in schema.MIGRATIONS
                             if m.name.startswith("recall's messages erased in a few"))


def _erase_by_trigger(store: store_module.SQLiteStore, listed: str, reason: str,
                      erased_at: float) -> None:
    """Messages erased as the code before ``SQLITE_ERASES_IN_BULK`` erased them: an erasure
    recorded, then the row deleted, one message at a time, the schema's triggers taking
    each out of the index."""
    for message_id in json.loads(listed):
        store.execute("INSERT INTO erasures (message_id, reason, erased_at) VALUES (?,?,?)",
                      (message_id, reason, erased_at))
        store.execute("DELETE FROM messages WHERE id = ?", (message_id,))


@contextlib.contextmanager
def sqlite_schema_at_version(version: int) -> Iterator[None]:
    """Within it, every SQLite store opened (a forked child's too) knows the first
    ``version`` migrations only: it makes or upgrades a database to that version's
    schema, and forgets and erases messages, as that version's code did."""
    with pytest.MonkeyPatch.context() as old:
        old.setattr(schema, "MIGRATIONS", schema.MIGRATIONS[:version])
        old.setattr(connection, "SCHEMA_VERSION", version)
        if version < SQLITE_FORGETS_IN_BULK:
            old.setattr(SQLiteForgetting, "_forget_messages", _forget_by_trigger)
        if version < SQLITE_ERASES_IN_BULK:
            old.setattr(sqlite_messages, "erase_listed", _erase_by_trigger)
            old.setattr(sqlite_dump, "unindex_messages", lambda store: None)  # the triggers do
        yield


@contextlib.contextmanager
def sqlite_store_at_version(path: Path, version: int) -> Iterator[store_module.SQLiteStore]:
    """A SQLite store made with the first ``version`` migrations only, as that version's
    code made it, to write old rows into before today's code upgrades it; closed on exit."""
    with sqlite_schema_at_version(version):
        before = store_module.SQLiteStore(path)
        try:
            yield before
        finally:
            before.close()


def turn_filing_a_passage(m: HierarchicalMemory, said: str, filed: str) -> tuple[int, int]:
    """One turn as the agent runs it: the user's message goes to recall, then the model
    files ``filed`` with the ``archival_memory_insert`` tool. Returns the message's id and
    the passage's."""
    # Here, not at the top: most tests that use these helpers never touch the tools layer.
    from tiermem.tools.memory_tools import ToolContext, memory_toolbox

    with m.interaction() as turn:
        (message_id,) = m.recall.append_many([NewMessage("user", said, turn)])
        result = memory_toolbox().dispatch(
            "archival_memory_insert", json.dumps({"content": filed}), call_id="c1",
            context=ToolContext(memory=m, turn=turn, first_message_id=message_id))
        assert result.ok, result.content
    return message_id, m.store.passages.texts()[-1][0]


def token_count(text: str) -> int:
    return _COUNTER.count(text)


def check_core_invariants(m: HierarchicalMemory) -> None:
    """Core within its limit, its size recomputed from scratch, and the store in step."""
    facts = list(m.core)
    assert m.core.used <= m.core.limit, (m.core.used, m.core.limit)
    sizes = [token_count(f.text) if m.core.unit == "tokens" else 1 for f in facts]
    assert m.core.used == sum(sizes)
    assert m.core.tokens == sum(token_count(f.text) for f in facts)
    assert m.core_tokens() == m.core.tokens
    assert len(m.core) == len(facts) == len({f.id for f in facts})
    assert m.core.durable_count == sum(f.durability == "durable" for f in facts)
    assert all(f.tier == "core" for f in facts)
    stored = m.store.facts.in_core()
    assert [f.to_dict() for f in stored] == [f.to_dict() for f in facts]


def check_archival_consistent(m: HierarchicalMemory) -> None:
    """Every archived fact has its passage, and the vector index holds exactly the stored
    vectors."""
    archived = [f for f in m.store.facts.all() if f.tier == "archival"]
    passage_ids = [f.passage_id for f in archived if f.passage_id is not None]
    assert len(passage_ids) == len(archived)
    assert set(m.store.passages.get_many(passage_ids)) == set(passage_ids)
    assert m.archival.vectors.differences() == []
    stored = m.store.passages.count() - m.store.passages.count_without_vector(m.embedder.id)
    assert len(m.archival.vectors) == stored
    assert len(m.archival) == m.store.passages.count()


def evict_events(m: HierarchicalMemory, after: int = 0) -> list[dict[str, Any]]:
    """Evict events with an id above ``after``, oldest first."""
    return [e for e in m.events_since(after) if e["kind"] == "evict"]


def last_event_id(m: HierarchicalMemory) -> int:
    return m.last_event_id()


def fr_score(fact: Fact, now: float, tau: float) -> float:
    """Frequency x recency, written out independently of memory.tiers.policies."""
    return fact.access_count * math.exp(-(now - fact.last_access) / tau)


@contextlib.contextmanager
def mounted_tmpfs(root: Path, size: str = "4m") -> Iterator[Path]:
    """A fresh tmpfs of ``size`` mounted under ``root``; the test is skipped where
    mounting is not permitted."""
    mount_point = root / f"tmpfs-{uuid.uuid4().hex[:8]}"
    mount_point.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs",
                           str(mount_point)], capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({done.stderr.strip() or done.returncode})")
    try:
        yield mount_point
    finally:
        subprocess.run(["umount", "-l", str(mount_point)], check=False)


@contextlib.contextmanager
def child_process(args: Sequence[str], **popen: Any) -> Iterator[subprocess.Popen[str]]:
    """A child with text pipes for stdin and stdout, killed if the test leaves it running."""
    child = subprocess.Popen(list(args), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             text=True, **popen)
    try:
        yield child
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()


class PlacedEmbedder:
    """Puts each known text at a chosen cosine from every query (threshold 0.3, near 0.15);
    an unknown text at 0."""

    id = "placed-4"
    dim = 4
    min_similarity = 0.3

    def __init__(self, cosines: dict[str, float]) -> None:
        self.cosines = cosines

    def _vector(self, cos: float) -> np.ndarray:
        return np.array([cos, math.sqrt(1.0 - cos * cos), 0.0, 0.0], dtype=np.float32)

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return np.stack([self._vector(self.cosines.get(t, 0.0)) for t in texts])

    def embed_query(self, text: str) -> np.ndarray:
        return np.array([1.0, 0.0, 0.0, 0.0], dtype=np.float32)


def backend_place(request: pytest.FixtureRequest, tmp_path: Path, agent: str) -> dict[str, Any]:
    """Where a test's memory lives for a fixture parametrized by "sqlite" and "postgres":
    ``make_memory(**place)``. On PostgreSQL each test gets an agent of its own."""
    if request.param == "sqlite":
        return {"path": tmp_path / "home"}
    return {"store": request.getfixturevalue("postgres_dsn"),
            "agent": f"{agent}-{hashlib.sha256(request.node.nodeid.encode()).hexdigest()[:10]}"}


def migrate_cut_short(source_home: Path, place: tuple[str, str | None]) -> None:
    """A migrate of the agent home ``source_home`` into ``place`` (a path or DSN, and an
    agent) stopped mid-copy, as by Ctrl-C or a killed process."""
    from tiermem.memory.store.transfer import migrate, open_backend

    def killed(table: str, done: int, total: int) -> None:
        raise KeyboardInterrupt

    target = open_backend(*place, read_only=False)
    source = open_backend(str(source_home), None, read_only=True)
    try:
        with pytest.raises(KeyboardInterrupt):
            migrate(source, target, killed)
    finally:
        source.close()
        target.close()


@contextlib.contextmanager
def collector_off() -> Iterator[None]:
    """The automatic garbage collector off: only an explicit collection frees a cycle."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
