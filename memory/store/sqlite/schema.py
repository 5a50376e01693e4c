"""The SQLite schema: numbered migrations, run in order on a writer's open.

Each migration is a function of the connection, listed in ``MIGRATIONS``
under its number. A database records in ``user_version`` the number of the
last one it has run, and a writer runs the rest in order, each in its own
transaction together with the record of it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass

from tiermem.memory.store.sqlite.errors import interruptible
from tiermem.memory.store.sqlite.files import ARCHIVAL_REWRITES_KEY
from tiermem.memory.text.digest import replaced_detail
from tiermem.memory.text.symbols import SQL_FUNCTION as _FTS
from tiermem.memory.text.symbols import indexed_text

#: The messages that are neither the user's nor the assistant's, and the index of their ids.
UNSPOKEN = "role NOT IN ('user', 'assistant')"
UNSPOKEN_INDEX = "messages_unspoken"


def _indexed_through_function(table: str, column: str, updates: bool) -> str:
    """Migration 3 for one table: its full-text triggers index ``indexed_text`` of the
    column, and the rows whose indexed text that changes are indexed again."""
    fts, text = f"{table}_fts", f"{_FTS}(new.{column})"
    delete = (f"INSERT INTO {fts} ({fts}, rowid, {column}) "
              f"VALUES ('delete', old.id, {_FTS}(old.{column}));")
    insert = f"INSERT INTO {fts} (rowid, {column}) VALUES (new.id, {text});"
    changed = f"WHERE {_FTS}({column}) != {column}"
    script = f"""
    DROP TRIGGER {table}_ai;
    DROP TRIGGER {table}_ad;
    CREATE TRIGGER {table}_ai AFTER INSERT ON {table} BEGIN {insert} END;
    CREATE TRIGGER {table}_ad AFTER DELETE ON {table} BEGIN {delete} END;
    INSERT INTO {fts} ({fts}, rowid, {column})
        SELECT 'delete', id, {column} FROM {table} {changed};
    INSERT INTO {fts} (rowid, {column}) SELECT id, {_FTS}({column}) FROM {table} {changed};
    """
    if updates:
        script += f"""
    DROP TRIGGER {table}_au;
    CREATE TRIGGER {table}_au AFTER UPDATE OF {column} ON {table} BEGIN {delete} {insert} END;
    """
    return script


def _tombstones(table: str, column: str, updates: bool) -> str:
    """Migration 5 for one table: a ``forgotten_at`` column, and full-text triggers that
    index only rows not forgotten. A row leaves the index when it is forgotten, so the
    delete and update triggers must not remove it a second time (FTS5 would corrupt)."""
    fts, live = f"{table}_fts", "forgotten_at IS NULL"
    delete = (f"INSERT INTO {fts} ({fts}, rowid, {column}) "
              f"VALUES ('delete', old.id, {_FTS}(old.{column}));")
    insert = f"INSERT INTO {fts} (rowid, {column}) VALUES (new.id, {_FTS}(new.{column}));"
    script = f"""
    ALTER TABLE {table} ADD COLUMN forgotten_at REAL;
    DROP TRIGGER {table}_ai;
    DROP TRIGGER {table}_ad;
    CREATE TRIGGER {table}_ai AFTER INSERT ON {table} WHEN new.{live} BEGIN {insert} END;
    CREATE TRIGGER {table}_ad AFTER DELETE ON {table} WHEN old.{live} BEGIN {delete} END;
    CREATE TRIGGER {table}_forget AFTER UPDATE OF forgotten_at ON {table}
    WHEN old.{live} AND new.forgotten_at IS NOT NULL BEGIN {delete} END;
    CREATE TRIGGER {table}_stays_forgotten BEFORE UPDATE OF forgotten_at ON {table}
    WHEN old.forgotten_at IS NOT NULL AND new.forgotten_at IS NOT old.forgotten_at
    BEGIN
        SELECT RAISE(ABORT, 'a forgotten row stays forgotten');
    END;
    """
    if updates:
        script += f"""
    DROP TRIGGER {table}_au;
    CREATE TRIGGER {table}_au AFTER UPDATE OF {column} ON {table}
    WHEN old.{live} AND new.{live} BEGIN {delete} {insert} END;
    """
    return script


#: A message that gives its text as context to the next one, and takes the previous one's.
def _in_context(row: str) -> str:
    return (f"{row}.forgotten_at IS NULL AND {row}.role IN ('user', 'assistant')"
            f" AND {row}.content != ''")


def _previous_text(before: str) -> str:
    """The indexed text of the last message in context before id ``before`` ('' if none)."""
    return (f"{_FTS}(coalesce((SELECT p.content FROM messages p WHERE p.id < {before}"
            f" AND {_in_context('p')} ORDER BY p.id DESC LIMIT 1), ''))")


def _next_in_context(after: str) -> str:
    return (f"(SELECT n.id FROM messages n WHERE n.id > {after} AND {_in_context('n')}"
            " ORDER BY n.id LIMIT 1)")


def context_of(row: str) -> str:
    """SQL for what the index holds as the context of message ``row``: the text of the
    message in context before it, when it is in context itself; else ''."""
    return f"CASE WHEN {_in_context(row)} THEN {_previous_text(row + '.id')} ELSE '' END"


def _leaves_context(old: str) -> str:
    """Trigger statements for a message leaving the index (erased or forgotten): its own
    entry goes, and the next message's context, which was its text, becomes the text of
    the message before it, so nothing of it stays reachable through a neighbour."""
    fts = "messages_fts"
    successor = (f"FROM messages s WHERE {_in_context(old)}"
                 f" AND s.id = {_next_in_context(old + '.id')}")
    return f"""
        INSERT INTO {fts} ({fts}, rowid, content, context)
            VALUES ('delete', {old}.id, {_FTS}({old}.content), {context_of(old)});
        INSERT INTO {fts} ({fts}, rowid, content, context)
            SELECT 'delete', s.id, {_FTS}(s.content), {_FTS}({old}.content) {successor};
        INSERT INTO {fts} (rowid, content, context)
            SELECT s.id, {_FTS}(s.content), {_previous_text('s.id')} {successor};"""


#: Migration 6: recall's full-text index holds, besides each message, the text of the
#: message before it (memory/tiers/recall.py says why). The index keeps no copy of any
#: text (it is contentless); the triggers keep every context equal to the neighbour's
#: current text, and a message that is erased or forgotten leaves its neighbour's too.
_RECALL_CONTEXT = f"""
    DROP TRIGGER messages_ai;
    DROP TRIGGER messages_ad;
    DROP TRIGGER messages_forget;
    DROP TABLE messages_fts;
    CREATE VIRTUAL TABLE messages_fts USING fts5 (
        content, context, content='', tokenize='porter unicode61'
    );
    INSERT INTO messages_fts (rowid, content, context)
        SELECT m.id, {_FTS}(m.content), {context_of('m')} FROM messages m
        WHERE m.forgotten_at IS NULL;
    CREATE TRIGGER messages_ai AFTER INSERT ON messages WHEN new.forgotten_at IS NULL BEGIN
        INSERT INTO messages_fts (rowid, content, context)
            VALUES (new.id, {_FTS}(new.content), {context_of('new')});
    END;
    CREATE TRIGGER messages_ad AFTER DELETE ON messages WHEN old.forgotten_at IS NULL
    BEGIN {_leaves_context('old')}
    END;
    CREATE TRIGGER messages_forget AFTER UPDATE OF forgotten_at ON messages
    WHEN old.forgotten_at IS NULL AND new.forgotten_at IS NOT NULL
    BEGIN {_leaves_context('old')}
    END;
    """


_FORGET_TABLES = """
    -- Every forget request: a hash of its text (never the text), how it ended, the ids.
    CREATE TABLE forget_requests (
        id INTEGER PRIMARY KEY,
        created_at REAL NOT NULL,
        request_hash TEXT NOT NULL,
        mode TEXT NOT NULL,
        outcome TEXT NOT NULL CHECK (outcome IN ('matched', 'unmatched', 'ambiguous', 'failed')),
        facts TEXT NOT NULL DEFAULT '[]',
        passages TEXT NOT NULL DEFAULT '[]',
        messages TEXT NOT NULL DEFAULT '[]',
        detail TEXT NOT NULL DEFAULT ''
    );
    -- Hashes of forgotten facts' norms: automatic extraction does not store them again.
    CREATE TABLE forgotten_norms (
        id INTEGER PRIMARY KEY,
        norm_hash TEXT NOT NULL UNIQUE,
        forgotten_at REAL NOT NULL
    );
    """


_COUNT_REWRITE = (f"INSERT INTO meta (key, value) VALUES ('{ARCHIVAL_REWRITES_KEY}', '1')"
                  " ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1;")
#: Every change to archival's full-text index other than a passage added is counted, so a
#: process holding archival's words in memory can take the passages added since as appends
#: (memory/store/sqlite/lexical_appends.py) and start over after anything else.
_ARCHIVAL_REWRITES = f"""
    CREATE TRIGGER passages_rewritten_ad AFTER DELETE ON passages BEGIN {_COUNT_REWRITE} END;
    CREATE TRIGGER passages_rewritten_au AFTER UPDATE OF text ON passages
    BEGIN {_COUNT_REWRITE} END;
    CREATE TRIGGER passages_rewritten_forget AFTER UPDATE OF forgotten_at ON passages
    BEGIN {_COUNT_REWRITE} END;
"""


def _run(script: str) -> Callable[[sqlite3.Connection], None]:
    """A migration that runs the statements of ``script`` in order."""

    def run(conn: sqlite3.Connection) -> None:
        for statement in _split_sql(script):
            conn.execute(statement)

    return run


@dataclass(frozen=True)
class Migration:
    number: int
    name: str
    apply: Callable[[sqlite3.Connection], None]


_TIERS = """
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);

    CREATE TABLE facts (
        id INTEGER PRIMARY KEY,
        text TEXT NOT NULL,
        norm TEXT NOT NULL UNIQUE,
        durability TEXT NOT NULL CHECK (durability IN ('durable', 'short-lived')),
        tier TEXT NOT NULL CHECK (tier IN ('core', 'archival')),
        created_at REAL NOT NULL,
        created_tick REAL NOT NULL,
        entered_core_seq INTEGER NOT NULL DEFAULT 0,
        last_access REAL NOT NULL,
        access_count INTEGER NOT NULL DEFAULT 1,
        last_counted_tick REAL NOT NULL,
        source TEXT NOT NULL DEFAULT '',
        tokens INTEGER NOT NULL,
        passage_id INTEGER,
        evicted_at REAL,
        evicted_tick REAL,
        evictions INTEGER NOT NULL DEFAULT 0,
        promotions INTEGER NOT NULL DEFAULT 0,
        cycles INTEGER NOT NULL DEFAULT 0,
        hits_since_eviction INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX facts_tier ON facts (tier);
    CREATE VIRTUAL TABLE facts_fts USING fts5 (
        text, content='facts', content_rowid='id', tokenize='porter unicode61'
    );
    CREATE TRIGGER facts_ai AFTER INSERT ON facts BEGIN
        INSERT INTO facts_fts (rowid, text) VALUES (new.id, new.text);
    END;
    CREATE TRIGGER facts_ad AFTER DELETE ON facts BEGIN
        INSERT INTO facts_fts (facts_fts, rowid, text) VALUES ('delete', old.id, old.text);
    END;
    CREATE TRIGGER facts_au AFTER UPDATE OF text ON facts BEGIN
        INSERT INTO facts_fts (facts_fts, rowid, text) VALUES ('delete', old.id, old.text);
        INSERT INTO facts_fts (rowid, text) VALUES (new.id, new.text);
    END;

    CREATE TABLE passages (
        id INTEGER PRIMARY KEY,
        text TEXT NOT NULL,
        created_at REAL NOT NULL,
        tags TEXT NOT NULL DEFAULT '[]',
        metadata TEXT NOT NULL DEFAULT '{}',
        source TEXT NOT NULL DEFAULT '',
        was_in_core INTEGER NOT NULL DEFAULT 0,
        evicted_at REAL,
        fact_id INTEGER,
        embedder_id TEXT,
        embedding BLOB
    );
    CREATE INDEX passages_created ON passages (created_at);
    CREATE INDEX passages_fact ON passages (fact_id);
    CREATE VIRTUAL TABLE passages_fts USING fts5 (
        text, content='passages', content_rowid='id', tokenize='porter unicode61'
    );
    CREATE TRIGGER passages_ai AFTER INSERT ON passages BEGIN
        INSERT INTO passages_fts (rowid, text) VALUES (new.id, new.text);
    END;
    CREATE TRIGGER passages_ad AFTER DELETE ON passages BEGIN
        INSERT INTO passages_fts (passages_fts, rowid, text) VALUES ('delete', old.id, old.text);
    END;
    CREATE TRIGGER passages_au AFTER UPDATE OF text ON passages BEGIN
        INSERT INTO passages_fts (passages_fts, rowid, text) VALUES ('delete', old.id, old.text);
        INSERT INTO passages_fts (rowid, text) VALUES (new.id, new.text);
    END;

    CREATE TABLE messages (
        id INTEGER PRIMARY KEY,
        turn INTEGER NOT NULL,
        role TEXT NOT NULL,
        content TEXT NOT NULL,
        tool_calls TEXT,
        tool_call_id TEXT,
        tool_name TEXT,
        created_at REAL NOT NULL,
        status TEXT NOT NULL DEFAULT 'ok',
        embedder_id TEXT,
        embedding BLOB
    );
    CREATE INDEX messages_created ON messages (created_at);
    CREATE INDEX messages_turn ON messages (turn);
    CREATE VIRTUAL TABLE messages_fts USING fts5 (
        content, content='messages', content_rowid='id', tokenize='porter unicode61'
    );
    CREATE TRIGGER messages_ai AFTER INSERT ON messages BEGIN
        INSERT INTO messages_fts (rowid, content) VALUES (new.id, new.content);
    END;
    CREATE TRIGGER messages_ad AFTER DELETE ON messages BEGIN
        INSERT INTO messages_fts (messages_fts, rowid, content)
            VALUES ('delete', old.id, old.content);
    END;

    -- Recall is append-only: content can never change, and a row can only be
    -- deleted after an erasure has been recorded for it.
    CREATE TABLE erasures (
        id INTEGER PRIMARY KEY,
        message_id INTEGER NOT NULL,
        reason TEXT NOT NULL,
        erased_at REAL NOT NULL
    );
    CREATE TRIGGER messages_no_edit BEFORE UPDATE OF content, role, turn, created_at,
        tool_calls, tool_call_id, tool_name ON messages
    BEGIN
        SELECT RAISE(ABORT, 'recall is append-only: messages cannot be edited');
    END;
    CREATE TRIGGER messages_no_delete BEFORE DELETE ON messages
    WHEN NOT EXISTS (SELECT 1 FROM erasures WHERE message_id = old.id)
    BEGIN
        SELECT RAISE(ABORT, 'recall is append-only: use erase_messages() to remove a message');
    END;

    -- One row per interaction, for diagnostics over time.
    CREATE TABLE history (
        tick INTEGER PRIMARY KEY,
        created_at REAL NOT NULL,
        core_facts INTEGER NOT NULL,
        core_size INTEGER NOT NULL,
        durable_in_core INTEGER NOT NULL,
        archival_passages INTEGER NOT NULL,
        recall_messages INTEGER NOT NULL,
        evictions INTEGER NOT NULL,
        promotions INTEGER NOT NULL
    );

    -- What happened to facts, for timelines and audits.
    CREATE TABLE events (
        id INTEGER PRIMARY KEY,
        tick INTEGER NOT NULL,
        kind TEXT NOT NULL,
        fact_id INTEGER,
        text TEXT NOT NULL DEFAULT '',
        detail TEXT NOT NULL DEFAULT '',
        created_at REAL NOT NULL
    );
    CREATE INDEX events_tick ON events (tick);
    """

#: A fact learned in a turn, by the rule-based extraction or by a tool call, came from that
#: turn's user message; its number ends the fact's ``source``.
_TURN_SOURCE = "(source LIKE 'extracted:turn:%' OR source LIKE 'tool:turn:%')"


def _content_free_events_and_fact_sources(conn: sqlite3.Connection) -> None:
    """Migration 4: events keep no text, and a fact links the message it came from.

    An event shows the fact's current text (its row holds it), and a replace names
    the replaced text by digest and length, so an edit or an erasure leaves no copy
    in the log. A fact's ``source_message_id`` lets erasing a message erase the
    facts learned from it; facts learned before are linked through their turn.
    """
    replaced = conn.execute("SELECT id, detail FROM events WHERE kind = 'replace'").fetchall()
    conn.executemany("UPDATE events SET detail = ? WHERE id = ?",
                     [(replaced_detail(detail), event_id)
                      for event_id, detail in replaced])
    conn.execute("UPDATE events SET text = '' WHERE text != ''")
    _link_to_their_message(conn, "facts", _TURN_SOURCE)


def _link_to_their_message(conn: sqlite3.Connection, table: str, stored_in_a_turn: str) -> None:
    """``table`` gets ``source_message_id``, and the rows that ``stored_in_a_turn`` selects
    (their ``source`` ends in ``:turn:N``) are linked to turn N's first user message."""
    conn.execute(f"ALTER TABLE {table} ADD COLUMN source_message_id INTEGER")
    conn.execute(f"CREATE INDEX {table}_source_message ON {table} (source_message_id)")
    conn.execute(
        f"UPDATE {table} SET source_message_id = (SELECT min(m.id) FROM messages m"
        f" WHERE m.role = 'user' AND m.turn = CAST(substr({table}.source,"
        f" instr({table}.source, ':turn:') + 6) AS INTEGER)) WHERE {stored_in_a_turn}")


def _passage_sources(conn: sqlite3.Connection) -> None:
    """Migration 9: a passage links the message it was filed from, as a fact does.

    A passage filed by a tool call in a turn often quotes that turn's user message; with
    the link, erasing or forgetting the message takes the passage too. Passages filed
    before are linked through the turn that ends their ``source`` (``tool:turn:N``), to
    that turn's first user message. A fact's own passage is left out: it goes with its
    fact, which holds the link already.
    """
    _link_to_their_message(conn, "passages", "source GLOB 'tool:turn:[0-9]*'"
                           " AND source NOT GLOB 'tool:turn:*[^0-9]*' AND fact_id IS NULL")


MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "the three tiers, their full-text indexes, history and audit tables",
              _run(_TIERS)),
    # So the messages a killed turn left pending are found without scanning recall.
    Migration(2, "an index of pending messages", _run(
        "CREATE INDEX messages_pending ON messages (id) WHERE status = 'pending';")),
    # The full-text indexes read each text with its symbols replaced by stand-in words
    # (memory/text/symbols.py), and the rows indexed before are indexed again where that
    # changes the words. Messages are never edited (recall is append-only), so they have
    # no update trigger.
    Migration(3, "emoji and other symbols searchable", _run(
        _indexed_through_function("facts", "text", updates=True)
        + _indexed_through_function("passages", "text", updates=True)
        + _indexed_through_function("messages", "content", updates=False))),
    Migration(4, "events without text, facts linked to their message",
              _content_free_events_and_fact_sources),
    # Forgetting (memory/ops/forget.py): tombstones that leave the full-text index, and
    # the audit of requests.
    Migration(5, "tombstones for forgotten rows, the forget audit", _run(
        _tombstones("facts", "text", updates=True)
        + _tombstones("passages", "text", updates=True)
        + _tombstones("messages", "content", updates=False) + _FORGET_TABLES)),
    Migration(6, "the previous message as full-text context in recall", _run(_RECALL_CONTEXT)),
    # Recall's searches keep user and assistant messages (memory/store/sqlite/filters.py):
    # they test each word match against this small index of the others instead of
    # reading its row, which holds the text and the vector.
    Migration(7, "an index of messages that are not the user's or the assistant's", _run(
        f"CREATE INDEX {UNSPOKEN_INDEX} ON messages (id) WHERE {UNSPOKEN};")),
    Migration(8, "a count of archival passages deleted, forgotten or edited",
              _run(_ARCHIVAL_REWRITES)),
    Migration(9, "passages linked to their message", _passage_sources),
)

#: The user_version of a database with every migration run.
SCHEMA_VERSION = MIGRATIONS[-1].number


def register_functions(conn: sqlite3.Connection) -> None:
    """The SQL functions the schema's triggers call; every connection that writes needs them
    (a tool without them cannot insert into the tiers: SQLite says "no such function")."""
    conn.create_function(_FTS, 1, interruptible(indexed_text), deterministic=True)


def migrate(conn: sqlite3.Connection) -> None:
    """Run the migrations ``conn``'s database has not run yet."""
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    for migration in MIGRATIONS:
        if migration.number <= version:
            continue
        conn.execute("BEGIN IMMEDIATE")
        try:
            migration.apply(conn)
            conn.execute(f"PRAGMA user_version = {int(migration.number)}")
            conn.execute("COMMIT")
        except Exception:
            conn.execute("ROLLBACK")
            raise


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
