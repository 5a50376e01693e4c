"""What the bench does only on the PostgreSQL backend: a throwaway local server and a
fresh database per run, waiting for the server to end a killed writer's session, and a
recount of the statistics its triggers keep beside the rows.

Everything else the bench checks goes through the storage contract. Nothing here
imports psycopg until it is used, so a SQLite-only install still loads the bench.
"""

from __future__ import annotations

import contextlib
import importlib.util
import shutil
import tempfile
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from tiermem.memory import HierarchicalMemory

#: A throwaway server needs no durability (the bench kills clients, never the server).
THROWAWAY_SETTINGS = {"fsync": "off", "synchronous_commit": "off", "full_page_writes": "off"}
#: The tables with BM25 counters: each table's row count and its words per row.
_COUNTED = {"facts": "n_words", "passages": "n_words", "messages": "n_words + context_words"}


@dataclass(frozen=True)
class PgAgent:
    """One agent in a PostgreSQL database: where a memory lives on that backend."""

    dsn: str
    agent: str

    @property
    def name(self) -> str:
        return self.agent


def unavailable() -> str | None:
    """Why no throwaway PostgreSQL server can run here, or None when one can."""
    from tiermem.memory.store.postgres import local_server  # imports no driver

    missing = [name for name in ("psycopg", "pgvector") if importlib.util.find_spec(name) is None]
    if missing:
        return (f"{', '.join(missing)} not installed: python -m pip install -e '.[postgres]' "
                f"in the tiermem checkout")
    try:
        local_server.binaries()
    except local_server.LocalServerError as exc:
        return f"no PostgreSQL server binaries: {exc}"
    return None


@contextlib.contextmanager
def throwaway_server() -> Iterator[str]:
    """The DSN of a local server started for the caller, stopped and removed afterwards."""
    from tiermem.memory.store.postgres.local_server import LocalPostgres

    # Not under a private directory: as root the server runs as an unprivileged account,
    # which must pass through the base (0711) to reach the data directory.
    base = Path(tempfile.mkdtemp(prefix="tiermem-pg-"))
    base.chmod(0o711)
    server = LocalPostgres(base / "data", settings=THROWAWAY_SETTINGS)
    try:
        yield server.start()
    finally:
        try:
            server.stop()
        finally:
            shutil.rmtree(base, ignore_errors=True)


@contextlib.contextmanager
def fresh_database(server: str, prefix: str = "tiermem_test") -> Iterator[str]:
    """The DSN of a new, empty database on ``server``, dropped afterwards."""
    import psycopg
    from psycopg import sql
    from psycopg.conninfo import make_conninfo

    name = f"{prefix}_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(server, autocommit=True) as admin:
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    try:
        yield make_conninfo(server, dbname=name)
    finally:
        with psycopg.connect(server, autocommit=True) as admin:
            admin.execute(sql.SQL("DROP DATABASE {} WITH (FORCE)").format(sql.Identifier(name)))


def agent_exists(place: PgAgent) -> bool:
    """Whether the database holds the agent (created on a writer's first open)."""
    import psycopg

    with psycopg.connect(place.dsn, autocommit=True) as conn:
        found = conn.execute("SELECT to_regclass('tiermem.agents')").fetchone()
        if found is None or found[0] is None:
            return False
        return conn.execute("SELECT 1 FROM tiermem.agents WHERE name = %s",
                            (place.agent,)).fetchone() is not None


def stats_problems(memory: HierarchicalMemory) -> list[str]:
    """The BM25 counters and the writer record against the rows they describe (nothing
    to check on another backend): each table's live rows and words, each lexeme's row
    count, no change left pending outside a transaction, and the writer named is this
    session."""
    from tiermem.memory.store.postgres.backend import PostgresBackend

    store = memory.store
    if not isinstance(store, PostgresBackend):
        return []
    agent, problems = store.agent_id, []
    for table, words in _COUNTED.items():
        counted = store.conn.execute(
            "SELECT coalesce(sum(n_rows), 0), coalesce(sum(n_words), 0) FROM tiermem.text_stats "
            "WHERE agent_id = %s AND tab = %s", (agent, table)).fetchone()
        actual = store.conn.execute(
            f"SELECT count(*) FILTER (WHERE forgotten_at IS NULL), coalesce(sum({words}), 0) "
            f"FROM tiermem.{table} WHERE agent_id = %s", (agent,)).fetchone()
        if tuple(map(int, counted or (0, 0))) != tuple(map(int, actual or (0, 0))):
            problems.append(f"{table}: text_stats count (rows, words) {tuple(counted or ())}, "
                            f"the rows {tuple(actual or ())}")
        wrong = store.conn.execute(
            f"SELECT count(*) FROM (SELECT l.lexeme, count(*) AS n FROM tiermem.{table} r "
            f"CROSS JOIN LATERAL unnest(tsvector_to_array(r.tsv)) AS l(lexeme) "
            f"WHERE r.agent_id = %s GROUP BY l.lexeme) c FULL JOIN (SELECT lexeme, n_rows "
            f"FROM tiermem.lexeme_stats WHERE agent_id = %s AND tab = %s) s "
            f"ON s.lexeme = c.lexeme WHERE c.n IS DISTINCT FROM s.n_rows",
            (agent, agent, table)).fetchone()
        if wrong and wrong[0]:
            problems.append(f"{table}: {wrong[0]} lexemes counted in lexeme_stats differ "
                            f"from the rows holding them")
    pending = store.conn.execute(
        "SELECT (SELECT count(*) FROM tiermem.text_pending WHERE agent_id = %s) "
        "+ (SELECT count(*) FROM tiermem.lexeme_pending WHERE agent_id = %s)",
        (agent, agent)).fetchone()
    if pending and pending[0]:
        problems.append(f"{pending[0]} statistics changes pending with no transaction open")
    writer = store.conn.execute("SELECT backend_pid = pg_backend_pid() FROM tiermem.writers "
                                "WHERE agent_id = %s", (agent,)).fetchone()
    if not store.read_only and (writer is None or not writer[0]):
        problems.append("tiermem.writers does not name the session holding the writer lock")
    return problems
