"""The tables of the SQLite schema and the migrations that changed them, apart from
full-text search (memory/store/sqlite/schema_search.py); memory/store/sqlite/schema.py
runs them in order.
"""

from __future__ import annotations

import sqlite3

from tiermem.memory.store.records import ERASED_ID_KEYS
from tiermem.memory.text.digest import replaced_detail

#: The messages that are neither the user's nor the assistant's, and the index of their ids.
UNSPOKEN = "role NOT IN ('user', 'assistant')"
UNSPOKEN_INDEX = "messages_unspoken"

#: Migration 1: the three tiers, their full-text indexes, history and audit tables.
TIERS = """
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

#: Migration 5, besides the tombstones (memory/store/sqlite/schema_search.py): the forget audit.
FORGET_TABLES = """
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

#: A fact learned in a turn, by the rule-based extraction or by a tool call, came from that
#: turn's user message; its number ends the fact's ``source``.
_TURN_SOURCE = "(source LIKE 'extracted:turn:%' OR source LIKE 'tool:turn:%')"


def content_free_events_and_fact_sources(conn: sqlite3.Connection) -> None:
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


def passage_sources(conn: sqlite3.Connection) -> None:
    """Migration 9: a passage links the message it was filed from, as a fact does.

    A passage filed by a tool call in a turn often quotes that turn's user message; with
    the link, erasing or forgetting the message takes the passage too. Passages filed
    before are linked through the turn that ends their ``source`` (``tool:turn:N``), to
    that turn's first user message. A fact's own passage is left out: it goes with its
    fact, which holds the link already.
    """
    _link_to_their_message(conn, "passages", "source GLOB 'tool:turn:[0-9]*'"
                           " AND source NOT GLOB 'tool:turn:*[^0-9]*' AND fact_id IS NULL")


def _named_ids(column: str) -> str:
    """The positive integer ids in ``forget_requests.{column}`` (JSON lists of ids); a value
    that is not valid JSON names none, rather than stopping the upgrade."""
    return (f"SELECT j.value AS id FROM forget_requests AS r, json_each(CASE WHEN"
            f" json_valid(r.{column}) THEN r.{column} ELSE '[]' END) AS j"
            f" WHERE j.type = 'integer' AND j.value > 0")


def _mark(table: str, named: str) -> str:
    """Raise ``table``'s erased-id setting to the highest id ``named`` that is no row of it."""
    key = ERASED_ID_KEYS[table]
    return (f"INSERT INTO meta (key, value) SELECT '{key}', CAST(top AS TEXT) FROM"
            f" (SELECT max(id) AS top FROM ({named}) WHERE id NOT IN (SELECT id FROM {table}))"
            f" WHERE top IS NOT NULL ON CONFLICT (key) DO UPDATE"
            f" SET value = max(CAST(value AS INTEGER), CAST(excluded.value AS INTEGER));")


#: Migration 11. Versions before the erased-id settings (memory/store/sqlite/ids.py) erased
#: facts and passages without a mark, so the newest one's id could be given again. Rows are
#: deleted only by an erasure, and events and the forget audit keep the ids they name: the
#: highest of those that no row holds is the highest erased. A passage erased directly
#: (not forgotten first) is named by nothing, so it stays unmarked.
ERASED_ID_MARKS = (
    _mark("facts", f"SELECT fact_id AS id FROM events WHERE fact_id > 0"
                   f" UNION ALL {_named_ids('facts')}")
    + "\n" + _mark("passages", _named_ids("passages")))


#: Migration 13. Versions before promotion cleared them left a fact promoted back to core
#: with the date and tick of the eviction it undid, and its passage dated by it too: a
#: search showed the fact as evicted while it was in core. A fact in core carries no
#: eviction date, and neither does its passage (the next eviction sets both anew).
UNDONE_EVICTIONS = """
UPDATE facts SET evicted_at = NULL, evicted_tick = NULL
 WHERE tier = 'core' AND (evicted_at IS NOT NULL OR evicted_tick IS NOT NULL);
UPDATE passages SET evicted_at = NULL
 WHERE evicted_at IS NOT NULL AND fact_id IN (SELECT id FROM facts WHERE tier = 'core');
"""


#: How many characters of a passage's text its index of texts holds: enough to tell most
#: passages apart, without a second copy of every long one.
TEXT_PREFIX = 200

#: Migration 14. The memory tools file a passage only once (tools/memory_tools.py), asking
#: for the passages holding a text exactly (``SQLitePassages.holding``): this index finds
#: them by the start of their text.
PASSAGE_TEXTS = (f"CREATE INDEX passages_text ON passages (substr(text, 1, {TEXT_PREFIX}))"
                 " WHERE forgotten_at IS NULL;")


#: The SQL function every connection this version opens registers (schema.register_functions)
#: and the guard triggers call; its name is what an older tiermem, which does not have it,
#: says when it tries to write: "no such function: tiermem_needs_a_newer_version".
NEWER_VERSION_FUNCTION = "tiermem_needs_a_newer_version"
#: Every table tiermem writes to (the full-text indexes take only what is written to
#: these).
_GUARDED = ("meta", "facts", "passages", "messages", "erasures", "history", "events",
            "forget_requests", "forgotten_norms")


def _guard(table: str, operation: str) -> str:
    return (f"CREATE TRIGGER {table}_needs_this_version_{operation.lower()} BEFORE {operation} "
            f"ON {table} WHEN {NEWER_VERSION_FUNCTION}() BEGIN SELECT RAISE(ABORT, "
            f"'{NEWER_VERSION_FUNCTION}'); END;")


#: Migration 12. Versions before the check of the schema version on every open (commit
#: 612317d) wrote into a memory a newer version had upgraded: new rows beside columns and
#: invariants they do not know, ids an erasure had retired given out again. They cannot be
#: changed, so the database stops them: each write to a table runs a trigger that calls a
#: function only this version and later ones register (it says no), and SQLite refuses the
#: statement of a connection without it, before it writes anything. Readers never call it.
NEWER_VERSION_GUARDS = "\n".join(
    _guard(table, operation)
    for table in _GUARDED for operation in ("INSERT", "UPDATE", "DELETE"))
