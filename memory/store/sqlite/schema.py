"""The SQLite schema: numbered migrations, run in order on a writer's open.

Each migration is a function of the connection, listed in ``MIGRATIONS``
under its number. A database records in ``user_version`` the number of the
last one it has run, and a writer runs the rest in order, each in its own
transaction together with the record of it.

The migrations' SQL lives beside this module: the tables in
memory/store/sqlite/schema_tables.py, the full-text indexes' triggers in
memory/store/sqlite/schema_search.py. Here is their order, which a stored
database's ``user_version`` counts, so a new migration only ever goes last.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass

from tiermem.memory.store.sqlite.errors import interruptible
from tiermem.memory.store.sqlite.schema_search import (
    ARCHIVAL_REWRITES,
    ERASE_IN_BULK,
    ERASE_OUTSIDE_THE_STORE,
    FORGET_IN_BULK,
    FORGET_OUTSIDE_THE_STORE,
    INDEX_PER_TRANSACTION,
    RECALL_CONTEXT,
    TEXT_INDEXES_PER_TRANSACTION,
    indexed_through_function,
    tombstones,
    words_across_marks,
)
from tiermem.memory.store.sqlite.schema_tables import (
    ERASED_ID_MARKS,
    FORGET_TABLES,
    NEWER_VERSION_FUNCTION,
    NEWER_VERSION_GUARDS,
    PASSAGE_TEXTS,
    TIERS,
    UNDONE_EVICTIONS,
    UNSPOKEN,
    UNSPOKEN_INDEX,
    content_free_events_and_fact_sources,
    passage_sources,
)
from tiermem.memory.store.sqlite.schema_times import times_in_seconds
from tiermem.memory.text.symbols import SQL_FUNCTION as _FTS
from tiermem.memory.text.symbols import indexed_text


def _run(script: str) -> Callable[[sqlite3.Connection], None]:
    """A migration that runs the statements of ``script`` in order."""

    def run(conn: sqlite3.Connection) -> None:
        run_script(script, conn.execute)

    return run


def run_script(script: str, execute: Callable[[str], object]) -> None:
    """Each statement of ``script`` in order, through ``execute``."""
    for statement in _split_sql(script):
        execute(statement)


@dataclass(frozen=True)
class Migration:
    number: int
    name: str
    apply: Callable[[sqlite3.Connection], None]


MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "the three tiers, their full-text indexes, history and audit tables",
              _run(TIERS)),
    # So the messages a killed turn left pending are found without scanning recall.
    Migration(2, "an index of pending messages", _run(
        "CREATE INDEX messages_pending ON messages (id) WHERE status = 'pending';")),
    # The full-text indexes read each text with its symbols replaced by stand-in words
    # (memory/text/symbols.py), and the rows indexed before are indexed again where that
    # changes the words. Messages are never edited (recall is append-only), so they have
    # no update trigger.
    Migration(3, "emoji and other symbols searchable", _run(
        indexed_through_function("facts", "text", updates=True)
        + indexed_through_function("passages", "text", updates=True)
        + indexed_through_function("messages", "content", updates=False))),
    Migration(4, "events without text, facts linked to their message",
              content_free_events_and_fact_sources),
    # Forgetting (memory/ops/forget.py): tombstones that leave the full-text index, and
    # the audit of requests.
    Migration(5, "tombstones for forgotten rows, the forget audit", _run(
        tombstones("facts", "text", updates=True)
        + tombstones("passages", "text", updates=True)
        + tombstones("messages", "content", updates=False) + FORGET_TABLES)),
    Migration(6, "the previous message as full-text context in recall", _run(RECALL_CONTEXT)),
    # Recall's searches keep user and assistant messages (memory/store/sqlite/filters.py):
    # they test each word match against this small index of the others instead of
    # reading its row, which holds the text and the vector.
    Migration(7, "an index of messages that are not the user's or the assistant's", _run(
        f"CREATE INDEX {UNSPOKEN_INDEX} ON messages (id) WHERE {UNSPOKEN};")),
    Migration(8, "a count of archival passages deleted, forgotten or edited",
              _run(ARCHIVAL_REWRITES)),
    Migration(9, "passages linked to their message", passage_sources),
    # A new message's id is past the highest id erased (memory/store/sqlite/ids.py), read
    # from this index on each append; the check before a message is deleted uses it too.
    Migration(10, "an index of erased messages' ids", _run(
        "CREATE INDEX erasures_message ON erasures (message_id);")),
    Migration(11, "erased facts' and passages' ids marked from the events and forget audit",
              _run(ERASED_ID_MARKS)),
    # Versions that do not check the schema version fail at their first write
    # (memory/store/sqlite/schema_tables.py); every connection of this one registers the
    # function (``register_functions``).
    Migration(12, "writes refused to versions that ignore the schema version",
              _run(NEWER_VERSION_GUARDS)),
    Migration(13, "no eviction date on a fact back in core, nor on its passage",
              _run(UNDONE_EVICTIONS)),
    Migration(14, "an index of passages by their text", _run(PASSAGE_TEXTS)),
    Migration(15, "recall's full-text index written once a transaction",
              _run(INDEX_PER_TRANSACTION)),
    Migration(16, "core's and archival's full-text indexes written once a transaction",
              _run(TEXT_INDEXES_PER_TRANSACTION)),
    Migration(17, "recall's messages forgotten in a few statements, not a trigger a row",
              _run(FORGET_IN_BULK)),
    Migration(18, "recall's messages erased in a few statements, not a trigger a row",
              _run(ERASE_IN_BULK)),
    Migration(19, "recall's messages a program deletes in SQL leave the index again",
              _run(ERASE_OUTSIDE_THE_STORE)),
    Migration(20, "recall's messages a program forgets in SQL leave the index again",
              _run(FORGET_OUTSIDE_THE_STORE)),
    # Older versions took any clock, and one in milliseconds stored times the live API
    # refuses to copy (memory/store/millisecond_times.py).
    Migration(21, "times stored in milliseconds converted to seconds", times_in_seconds),
    Migration(22, "a word split by a mark of no width indexed as it looks too",
              words_across_marks),
)

#: The user_version of a database with every migration run.
SCHEMA_VERSION = MIGRATIONS[-1].number
#: From which migration on the store, not a trigger, writes each table's rows appended into
#: its full-text index (memory/store/sqlite/schema_search.py, ``APPENDED_INTO_INDEX``).
STORE_INDEXES = {"messages": 15, "facts": 16, "passages": 16}
#: The number of the migration that takes the text out of events (``migrate`` says why).
_EVENTS_WITHOUT_TEXT = 4


def _has_column(conn: sqlite3.Connection, table: str, column: str) -> bool:
    return any(row[1] == column for row in conn.execute(f"PRAGMA table_info({table})"))


def register_functions(conn: sqlite3.Connection) -> None:
    """The SQL functions the schema's triggers call; every connection that writes needs them
    (a tool without them cannot insert into the tiers: SQLite says "no such function")."""
    conn.create_function(_FTS, 1, interruptible(indexed_text), deterministic=True)
    # The guard triggers' question "does this write need a newer version?": never.
    conn.create_function(NEWER_VERSION_FUNCTION, 0, _no, deterministic=True)


def _no() -> int:
    return 0


def migrate(conn: sqlite3.Connection) -> None:
    """Run the migrations ``conn``'s database has not run yet.

    The merge that brought forgetting (383af96) numbered the tombstones 5 without a
    migration 4, so a database it wrote is at 5 without the events' migration (4); so is
    one a later version upgraded from there, up to this check. Migration 4 runs then,
    first: it changes nothing the later ones did (events lose their text, facts gain
    the message they were learned from), and the schema's version stays as it was.
    """
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    events = next((m for m in MIGRATIONS if m.number == _EVENTS_WITHOUT_TEXT), None)
    if (events is not None and version >= events.number
            and not _has_column(conn, "facts", "source_message_id")):
        conn.execute("BEGIN IMMEDIATE")
        try:
            events.apply(conn)
            conn.execute("COMMIT")
        except Exception:
            _roll_back(conn)
            raise
    for migration in MIGRATIONS:
        if migration.number <= version:
            continue
        conn.execute("BEGIN IMMEDIATE")
        try:
            migration.apply(conn)
            conn.execute(f"PRAGMA user_version = {int(migration.number)}")
            conn.execute("COMMIT")
        except Exception:
            _roll_back(conn)
            raise


def _roll_back(conn: sqlite3.Connection) -> None:
    """End a failed migration's transaction, if SQLite has not: on some errors (a full
    disk, SQLITE_FULL; an I/O error) it rolls the transaction back itself, and a ROLLBACK
    then raises "cannot rollback - no transaction is active", which would be reported in
    place of what went wrong."""
    if conn.in_transaction:
        conn.execute("ROLLBACK")


def _split_sql(script: str) -> list[str]:
    """Split a migration into statements, keeping trigger bodies whole."""
    statements, current = [], []
    for line in script.splitlines():
        if not line.strip() or line.strip().startswith("--"):
            continue
        current.append(line)
        joined = "\n".join(current)
        if sqlite3.complete_statement(joined):
            statements.append(joined)
            current = []
    if current:
        statements.append("\n".join(current))
    return statements
