"""The PostgreSQL schema: numbered migrations, each recorded once it has run.

The migrations' SQL lives beside this module: the tables in
memory/store/postgres/schema_tables.py, full-text search in
memory/store/postgres/schema_search.py, the commit-time counts in
memory/store/postgres/folded_stats.py. Here is their order, which a stored
database's recorded version counts, so a new migration only ever goes last.
"""

from __future__ import annotations

import psycopg

from tiermem.memory.store.postgres import folded_stats
from tiermem.memory.store.postgres.schema_search import (
    AGENT_SCOPED_TEXT,
    LEXEME_STATS,
    RECALL_CONTEXT,
)
from tiermem.memory.store.postgres.schema_tables import (
    ERASED_ID_MARKS,
    EVENTS_WITHOUT_TEXT,
    PASSAGE_SOURCES,
    TABLES,
    TOMBSTONES,
    WRITER_SCOPE,
)

#: The advisory lock class of tiermem: (CLASS, agent id) is an agent's writer lock,
#: (CLASS, 0) serialises migrations.
LOCK_CLASS = 0x7E3A
SCHEMA = "tiermem"
#: The PostgreSQL extension that stores and compares vectors (pgvector).
VECTOR_EXTENSION = "vector"

MIGRATIONS: list[tuple[str, str]] = [
    ("agents, tiers, history and full-text search", TABLES),
    ("events without text, facts linked to their message", EVENTS_WITHOUT_TEXT),
    ("tombstones for forgotten rows, the forget audit", TOMBSTONES),
    ("full-text search scoped to the agent inside the GIN index", AGENT_SCOPED_TEXT),
    ("each lexeme's document count per agent, for BM25", LEXEME_STATS),
    ("the previous message as full-text context in recall", RECALL_CONTEXT),
    ("text and lexeme counts changed once per transaction, at commit",
     folded_stats.MIGRATION),
    ("forgotten rows left out of each table's row count, for BM25",
     folded_stats.LIVE_ROWS_MIGRATION),
    ("passages linked to their message", PASSAGE_SOURCES),
    ("erased facts' and passages' ids marked from the events and forget audit",
     ERASED_ID_MARKS),
    ("the process table a writer's pid belongs to", WRITER_SCOPE),
]

#: How many migrations a database with the whole schema has recorded.
SCHEMA_VERSION = len(MIGRATIONS)


def applied_version(conn: psycopg.Connection) -> int:
    """How many migrations the database has recorded (0: no tiermem schema yet)."""
    exists = conn.execute("SELECT to_regclass('tiermem.migrations')").fetchone()
    if exists is None or exists[0] is None:
        return 0
    row = conn.execute("SELECT coalesce(max(version), 0) FROM tiermem.migrations").fetchone()
    return int(row[0]) if row else 0


def migrate(conn: psycopg.Connection) -> None:
    """Run the migrations the database has not recorded, each in its own transaction.

    A transaction-scoped advisory lock makes concurrent openers take turns, so
    two processes never run the same migration.
    """
    if applied_version(conn) >= SCHEMA_VERSION:
        return
    for number, (name, script) in enumerate(MIGRATIONS, start=1):
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s, 0)", (LOCK_CLASS,))
            conn.execute("CREATE SCHEMA IF NOT EXISTS tiermem")
            conn.execute("CREATE TABLE IF NOT EXISTS tiermem.migrations (version INTEGER "
                         "PRIMARY KEY, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL "
                         "DEFAULT now())")
            if applied_version(conn) >= number:
                continue
            conn.execute(script.encode())
            conn.execute("INSERT INTO tiermem.migrations (version, name) VALUES (%s, %s)",
                         (number, name))
