"""The full-text side of the SQLite schema: the FTS5 triggers that keep each tier's index,
the statements the store writes rows appended with, and the migrations that changed them
(memory/store/sqlite/schema.py runs them in order).

Each index holds ``indexed_text`` of each text (memory/text/symbols.py; the SQL function
that memory/store/sqlite/schema.py registers), only rows not forgotten, and recall's
messages with the text of the message before them as context.
"""

from __future__ import annotations

import sqlite3

from tiermem.memory.store.sqlite.files import ARCHIVAL_REWRITES_KEY, REWRITES_KEY
from tiermem.memory.text.padding import NO_WIDTH
from tiermem.memory.text.symbols import SQL_FUNCTION as _FTS


def indexed_through_function(table: str, column: str, updates: bool) -> str:
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


def tombstones(table: str, column: str, updates: bool) -> str:
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


def context_source(row: str) -> str:
    """SQL for the id of the message whose text the index holds as the context of message
    ``row`` (NULL when it holds none)."""
    return (f"CASE WHEN {_in_context(row)} THEN (SELECT p.id FROM messages p"
            f" WHERE p.id < {row}.id AND {_in_context('p')} ORDER BY p.id DESC LIMIT 1) END")


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
RECALL_CONTEXT = f"""
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


#: What the full-text index holds for each message ``m``: its id, its text and its context
#: (memory/tiers/recall.py), as ``INDEX_APPENDED`` writes them and ``TermCache`` reads them
#: back.
INDEXED_ROWS = f"SELECT m.id, {_FTS}(m.content), {context_of('m')} FROM messages m"


def _past_the_index(table: str, row: str) -> str:
    """SQL for the rows ``row`` of ``table`` its full-text index does not hold yet: past the
    highest id the index holds (its ``docsize`` table has a row per row in it), not forgotten. A row
    is given an id past every other (memory/store/sqlite/ids.py), and the index is written
    up to it before anything leaves the index, so no row below that id is missing."""
    return (f" WHERE {row}.id > (SELECT coalesce(max(id), 0) FROM {table}_fts_docsize)"
            f" AND {row}.forgotten_at IS NULL")


#: Recall's messages not in its full-text index yet, into it in one statement.
INDEX_APPENDED = (f"INSERT INTO messages_fts (rowid, content, context) {INDEXED_ROWS}"
                  f"{_past_the_index('messages', 'm')};")


def _text_appended(table: str) -> str:
    return (f"INSERT INTO {table}_fts (rowid, text) SELECT t.id, {_FTS}(t.text) FROM {table} t"
            f"{_past_the_index(table, 't')};")


#: Each table's statement that writes the rows appended to it since into its full-text index
#: (``INDEX_PER_TRANSACTION`` for recall's, ``TEXT_INDEXES_PER_TRANSACTION`` for the others).
APPENDED_INTO_INDEX = {"messages": INDEX_APPENDED, "facts": _text_appended("facts"),
                       "passages": _text_appended("passages")}

#: Whether some row of each table waits for ``APPENDED_INTO_INDEX``: read from the table and
#: the index's ``docsize`` table only, so damage to the index's own pages is found where it
#: is searched.
UNINDEXED_ROW = {table: f"SELECT 1 FROM {table} t{_past_the_index(table, 't')} LIMIT 1"
                 for table in APPENDED_INTO_INDEX}

#: Migration 15. The index took each message from a trigger, one statement per message; a
#: statement that writes through a trigger opens a savepoint, and FTS5 writes its pending
#: words out as a new segment at each one, so a turn wrote about seven one-page segments and
#: merged them every dozen turns. The store writes a transaction's messages in one statement
#: (``INDEX_APPENDED``) before it commits and before it searches the index
#: (memory/store/sqlite/transactions.py); a message leaving the index, forgotten or erased,
#: has the index written first, in SQL, so its removal and its neighbour's new context find
#: every row they change.
INDEX_PER_TRANSACTION = f"""
    DROP TRIGGER messages_ai;
    CREATE TRIGGER messages_indexed_before_forget BEFORE UPDATE OF forgotten_at ON messages
    WHEN old.forgotten_at IS NULL BEGIN {INDEX_APPENDED} END;
    CREATE TRIGGER messages_indexed_before_delete BEFORE DELETE ON messages
    WHEN old.forgotten_at IS NULL BEGIN {INDEX_APPENDED} END;
    """


def _text_index_per_transaction(table: str) -> str:
    fts, appended = f"{table}_fts", APPENDED_INTO_INDEX[table]
    live, edited = "old.forgotten_at IS NULL", "new.text IS NOT old.text"
    delete = (f"INSERT INTO {fts} ({fts}, rowid, text) "
              f"VALUES ('delete', old.id, {_FTS}(old.text));")
    insert = f"INSERT INTO {fts} (rowid, text) VALUES (new.id, {_FTS}(new.text));"
    return f"""
    DROP TRIGGER {table}_ai;
    DROP TRIGGER {table}_au;
    CREATE TRIGGER {table}_au AFTER UPDATE OF text ON {table}
    WHEN {live} AND new.forgotten_at IS NULL AND {edited} BEGIN {delete} {insert} END;
    CREATE TRIGGER {table}_indexed_before_edit BEFORE UPDATE OF text ON {table}
    WHEN {live} AND {edited} BEGIN {appended} END;
    CREATE TRIGGER {table}_indexed_before_forget BEFORE UPDATE OF forgotten_at ON {table}
    WHEN {live} BEGIN {appended} END;
    CREATE TRIGGER {table}_indexed_before_delete BEFORE DELETE ON {table}
    WHEN {live} BEGIN {appended} END;
    """


#: Migration 16: core's and archival's full-text indexes are written as recall's is since
#: migration 15, once a transaction (``APPENDED_INTO_INDEX``). A turn whose eviction files
#: the evicted fact's passage beside the one the model files wrote two one-page segments
#: into archival's index, one per statement. And a fact is saved whole at every eviction,
#: promotion or count of its use: its text, unchanged, was taken out of the index and put
#: back each time, a segment more; only a changed text is now.
TEXT_INDEXES_PER_TRANSACTION = (_text_index_per_transaction("facts")
                                + _text_index_per_transaction("passages"))


#: The ids of a JSON list of them, the one parameter of the statements below.
_LISTED = "(SELECT value FROM json_each(?1))"

#: The messages whose index entries hold one of the listed messages' text as context (the
#: next message in context after each listed one in context), not listed themselves: read
#: before any of the listed ones is forgotten, when each finds its neighbour a step away.
CONTEXT_HEIRS = (
    f"SELECT DISTINCT heir FROM (SELECT {_next_in_context('m.id')} AS heir FROM messages m"
    f" WHERE m.id IN {_LISTED} AND {_in_context('m')})"
    f" WHERE heir IS NOT NULL AND heir NOT IN {_LISTED}")

#: The listed messages leave the index, each entry deleted with the context it was indexed
#: with (the one FTS5 needs to delete it).
UNINDEX_LISTED = (
    "INSERT INTO messages_fts (messages_fts, rowid, content, context)"
    f" SELECT 'delete', m.id, {_FTS}(m.content), {context_of('m')} FROM messages m"
    f" WHERE m.id IN {_LISTED} AND m.forgotten_at IS NULL")

#: The listed messages enter the index with the context they have now.
INDEX_LISTED = (f"INSERT INTO messages_fts (rowid, content, context) {INDEXED_ROWS}"
                f" WHERE m.id IN {_LISTED} AND m.forgotten_at IS NULL")

#: Migration 17. Forgetting took each message out of the index by a trigger, one row at a
#: time: each searched back past the messages forgotten before it in the same statement for
#: its context, so forgetting n messages took time in n squared (20,000 took half a
#: minute). The store now takes them out in a few statements (memory/store/sqlite/
#: forgetting.py): their entries, then their heirs' (``CONTEXT_HEIRS``), which it writes
#: again once the tombstones are in place.
FORGET_IN_BULK = """
    DROP TRIGGER messages_forget;
    DROP TRIGGER messages_indexed_before_forget;
    """

#: Migration 18. Erasing took each message out of the index by triggers too, as its row was
#: deleted: two statements a message, each a savepoint at which FTS5 wrote its pending
#: changes out as a segment and rewrote its list of segments, which grew with them (1,000
#: messages wrote 2,785 blocks of an index of 7; 20,000 took 2.4 s of CPU, 0.6 s now). The
#: store erases them as it forgets them, in a few statements (memory/store/sqlite/
#: messages.py), and a restore's clear takes every message out the same way
#: (memory/store/sqlite/dump.py).
ERASE_IN_BULK = """
    DROP TRIGGER messages_ad;
    DROP TRIGGER messages_indexed_before_delete;
    """

#: A message recall's index still holds, by its docsize record: never one the store deletes
#: (it takes them out first), always one a program deleting in SQL leaves behind.
_STILL_INDEXED = ("old.forgotten_at IS NULL"
                  " AND EXISTS (SELECT 1 FROM messages_fts_docsize WHERE id = old.id)")

#: Migration 19. The schema lets a program delete a message in SQL once its erasure is
#: recorded, and without migration 18's triggers the index kept its entry: the erased text
#: stayed findable through the next message's context, and taking that message out later
#: deleted an entry FTS5 did not hold, which corrupts the index. The triggers are back for
#: such a row alone; for the store's own deletes they read a row of an index and write
#: nothing, so an erasure stays a few statements.
ERASE_OUTSIDE_THE_STORE = f"""
    CREATE TRIGGER messages_indexed_before_delete BEFORE DELETE ON messages
    WHEN {_STILL_INDEXED} BEGIN {INDEX_APPENDED} END;
    CREATE TRIGGER messages_ad AFTER DELETE ON messages WHEN {_STILL_INDEXED}
    BEGIN {_leaves_context('old')}
    END;
    """

#: Migration 20. A program may forget a message in SQL too (``forgotten_at`` set, which the
#: schema lets it do once), and migration 17 left such a row's entry in the index, as 18
#: did a deleted one's. Its triggers come back on the same terms as migration 19's.
FORGET_OUTSIDE_THE_STORE = f"""
    CREATE TRIGGER messages_indexed_before_forget BEFORE UPDATE OF forgotten_at ON messages
    WHEN {_STILL_INDEXED} BEGIN {INDEX_APPENDED} END;
    CREATE TRIGGER messages_forget AFTER UPDATE OF forgotten_at ON messages
    WHEN new.forgotten_at IS NOT NULL AND {_STILL_INDEXED}
    BEGIN {_leaves_context('old')}
    END;
    """


_COUNT_REWRITE = (f"INSERT INTO meta (key, value) VALUES ('{ARCHIVAL_REWRITES_KEY}', '1')"
                  " ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1;")
#: Every change to archival's full-text index other than a passage added is counted, so a
#: process holding archival's words in memory can take the passages added since as appends
#: (memory/store/sqlite/lexical_appends.py) and start over after anything else.
ARCHIVAL_REWRITES = f"""
    CREATE TRIGGER passages_rewritten_ad AFTER DELETE ON passages BEGIN {_COUNT_REWRITE} END;
    CREATE TRIGGER passages_rewritten_au AFTER UPDATE OF text ON passages
    BEGIN {_COUNT_REWRITE} END;
    CREATE TRIGGER passages_rewritten_forget AFTER UPDATE OF forgotten_at ON passages
    BEGIN {_COUNT_REWRITE} END;
"""


def words_across_marks(conn: sqlite3.Connection) -> None:
    """Migration 22: the full-text index holds a word split by a mark of no width
    ("867\u20605309") also as it looks ("8675309", memory/text/symbols.py). A table with
    such a text has its index written again: FTS5 must be given the words a row was
    indexed with to take it out, so no row may keep the words of the older reading."""
    for table, column in (("facts", "text"), ("passages", "text"), ("messages", "content")):
        if conn.execute(f"SELECT 1 FROM {table} WHERE forgotten_at IS NULL AND {column}"
                        " GLOB ? LIMIT 1", (f"*[{NO_WIDTH}]*",)).fetchone() is None:
            continue
        conn.execute(f"INSERT INTO {table}_fts ({table}_fts) VALUES ('delete-all')")
        conn.execute(APPENDED_INTO_INDEX[table])
        # A process holding the index's words in memory reads them again.
        key = {"messages": REWRITES_KEY, "passages": ARCHIVAL_REWRITES_KEY}.get(table)
        if key is not None:
            conn.execute("INSERT INTO meta (key, value) VALUES (?, '1') ON CONFLICT (key) DO "
                         "UPDATE SET value = CAST(value AS INTEGER) + 1", (key,))
