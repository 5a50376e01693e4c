"""The PostgreSQL schema: numbered migrations, each recorded once it has run.

The migrations' SQL lives beside this module: the tables in
memory/store/postgres/schema_tables.py, full-text search in
memory/store/postgres/schema_search.py, the commit-time counts in
memory/store/postgres/folded_stats.py. Here is their order, which a stored
database's recorded version counts, so a new migration only ever goes last.
"""

from __future__ import annotations

import itertools

import psycopg
from psycopg import errors as pg_errors

from tiermem.memory.store.postgres import folded_stats
from tiermem.memory.store.postgres.schema_search import (
    AGENT_SCOPED_TEXT,
    ERASE_IN_BULK,
    FORGET_IN_BULK,
    LEXEME_STATS,
    OUTSIDE_THE_STORE,
    RECALL_CONTEXT,
    WORDS_ACROSS_MARKS,
)
from tiermem.memory.store.postgres.schema_tables import (
    ERASED_ID_MARKS,
    EVENTS_WITHOUT_TEXT,
    PASSAGE_SOURCES,
    PASSAGE_TEXTS,
    TABLES,
    TOMBSTONES,
    UNDONE_EVICTIONS,
    WRITER_SCOPE,
)
from tiermem.memory.store.postgres.schema_times import TIMES_IN_SECONDS

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
    ("no eviction date on a fact back in core, nor on its passage", UNDONE_EVICTIONS),
    ("an index of passages by their text", PASSAGE_TEXTS),
    ("recall's messages forgotten in time that grows with their number",
     FORGET_IN_BULK + folded_stats.GROUPED_UPDATES),
    ("recall's messages erased in time that grows with their number", ERASE_IN_BULK),
    ("recall's messages forgotten or deleted by another program hand their context on",
     OUTSIDE_THE_STORE),
    ("times stored in milliseconds converted to seconds", TIMES_IN_SECONDS),
    ("a word split by a mark of no width indexed as it looks too", WORDS_ACROSS_MARKS),
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


def recorded_migrations(conn: psycopg.Connection) -> list[str]:
    """The names of the migrations the database has recorded, in the order they ran; one
    recorded under a name this version does not know is taken for this version's
    migration of its number, as when migrations were counted."""
    exists = conn.execute("SELECT to_regclass('tiermem.migrations')").fetchone()
    if exists is None or exists[0] is None:
        return []
    names = {name for name, _ in MIGRATIONS}
    return [name if name in names or not 1 <= version <= len(MIGRATIONS)
            else MIGRATIONS[version - 1][0]
            for version, name in conn.execute(
                "SELECT version, name FROM tiermem.migrations ORDER BY version")]


def migrate(conn: psycopg.Connection) -> None:
    """Run the migrations the database has not recorded, each in its own transaction.

    A migration is known by its name: the versions of tiermem that merged lines of work
    did not all number them alike (the merge that brought forgetting recorded the
    tombstones as migration 2, which is the events' migration here), so a database may
    hold a later migration and lack an earlier one; the one it lacks runs then, and each
    runs once, if it is one of those known to change nothing the later ones did
    (``_MAY_RUN_LATE``). Otherwise, and for a migration recorded before one that comes
    earlier here (a development version's), the upgrade is refused (SchemaMismatchError),
    and so is a migration that finds the tables otherwise than it expects; it is rolled
    back. A name this version does not know counts by its number. The versions recorded number the
    migrations run in this version's order (one run late renumbers them), so
    ``applied_version`` still counts them.

    A transaction-scoped advisory lock makes concurrent openers take turns, so
    two processes never run the same migration.
    """
    if applied_version(conn) >= SCHEMA_VERSION:
        return
    known = {name: number for number, (name, _) in enumerate(MIGRATIONS, start=1)}
    for name, script in MIGRATIONS:
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s, 0)", (LOCK_CLASS,))
            conn.execute("CREATE SCHEMA IF NOT EXISTS tiermem")
            conn.execute("CREATE TABLE IF NOT EXISTS tiermem.migrations (version INTEGER "
                         "PRIMARY KEY, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL "
                         "DEFAULT now())")
            done = recorded_migrations(conn)
            ahead = [(a, b) for a, b in itertools.pairwise(done) if known[a] > known[b]]
            if ahead:
                raise SchemaMismatchError(
                    f"it ran migration '{ahead[0][0]}' before '{ahead[0][1]}', which this "
                    f"version runs the other way round and cannot upgrade from")
            if name in done:
                continue
            later = [n for n in done if known[n] > known[name]]
            if later and name not in _MAY_RUN_LATE:
                raise SchemaMismatchError(
                    f"it ran migration '{later[0]}' without '{name}', which comes before "
                    f"it here and cannot run after it")
            try:
                conn.execute(script.encode())
            except _NOT_AS_EXPECTED as exc:
                raise SchemaMismatchError(
                    f"migration {len(done) + 1} ({name}) found the tables otherwise than "
                    f"it expects: {str(exc).splitlines()[0]}") from exc
            conn.execute("INSERT INTO tiermem.migrations (version, name) VALUES (%s, %s)",
                         (len(done) + 1, name))
            if done and known[done[-1]] > known[name]:
                # Run late: renumbered in this version's order, as if run in it.
                conn.execute("UPDATE tiermem.migrations SET version = -version")
                for rank, ran in enumerate(sorted([*done, name], key=known.__getitem__), 1):
                    conn.execute("UPDATE tiermem.migrations SET version = %s WHERE name = %s",
                                 (rank, ran))


#: The migrations a version of tiermem numbered after one that comes later here, and that
#: may run after it, changing nothing it did: the merge that brought forgetting (383af96)
#: recorded the tombstones as migration 2, before the events' one here; a development
#: version recorded the passages' sources before the live row counts.
_MAY_RUN_LATE = frozenset({
    "events without text, facts linked to their message",
    "forgotten rows left out of each table's row count, for BM25",
})

#: What a migration run on tables it does not expect fails with: what it adds is there
#: already, or what it changes is not.
_NOT_AS_EXPECTED = (pg_errors.DuplicateColumn, pg_errors.DuplicateTable,
                    pg_errors.DuplicateObject, pg_errors.DuplicateFunction,
                    pg_errors.UndefinedColumn, pg_errors.UndefinedTable,
                    pg_errors.UndefinedFunction)


class SchemaMismatchError(Exception):
    """The database's schema is not one a version of tiermem this one upgrades from wrote
    (a development version's); the message says how it differs, ``prepare`` what to do."""
