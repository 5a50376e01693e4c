"""The PostgreSQL schema: numbered migrations, each recorded once it has run.

Everything lives in the schema ``tiermem`` of the database, so tiermem can share
a database with an application's own tables. One database holds many agents:
every table carries ``agent_id`` first in its primary key, and ids (facts,
passages, messages, events) are numbered per agent, so two agents never see or
collide with each other's rows.

Full-text search reads a generated ``tsvector`` column (GIN-indexed) built from
the row's indexed text: the text itself, or, when it holds emoji or other
symbols, ``search_text`` with their stand-in words (memory/text/symbols.py), split
into words as SQLite's tokenizer splits it and stemmed with the English
Snowball stemmer keeping every word (no stopword list), plus one lexeme naming
the row's agent (``agent_lexeme``): every search ANDs it into its query, so the
GIN index itself narrows matches to the agent instead of collecting every
agent's matches and filtering them afterwards. It holds spaces, which no word
of a query can, so it never matches or scores as text. Each row also stores
``n_words``, its length in words, for BM25 (memory/store/postgres/lexical.py).
``tiermem.text_stats`` keeps each agent's row count and word total per table, and
``tiermem.lexeme_stats`` how many of the agent's rows hold each lexeme (BM25's
document frequency, read in one lookup instead of counting the matches), both
maintained by statement triggers and changed at the commit of the transaction
that writes the rows (memory/store/postgres/folded_stats.py). A lexeme no row
holds any more is deleted from it, so erased text leaves no word behind.

Vectors are pgvector ``vector`` columns of the embedder's dimension (384 for
the default MiniLM). Search is exact unless an HNSW index is asked for
(memory/store/postgres/vectors.py creates it per dimension).
"""

from __future__ import annotations

import psycopg

from tiermem.memory.store.postgres import folded_stats
from tiermem.memory.store.postgres.folded_stats import UPDATED_LEXEMES, lexemes_of

#: The advisory lock class of tiermem: (CLASS, agent id) is an agent's writer lock,
#: (CLASS, 0) serialises migrations.
LOCK_CLASS = 0x7E3A
SCHEMA = "tiermem"
#: The PostgreSQL extension that stores and compares vectors (pgvector).
VECTOR_EXTENSION = "vector"

_TEXT_COLUMNS = """
    search_text TEXT,
    n_words INTEGER NOT NULL DEFAULT 0,
    tsv TSVECTOR GENERATED ALWAYS AS (
        to_tsvector('tiermem.english_all',
                    regexp_replace(coalesce(search_text, {column}), '[^[:alnum:]]+', ' ', 'g'))
    ) STORED"""


#: The lexeme that marks a row of agent N in its ``tsv`` (memory/store/postgres/lexical.py).
AGENT_LEXEME = "tiermem agent {}"


def agent_lexeme(agent: int) -> str:
    return AGENT_LEXEME.format(int(agent))


def _agent_scoped_text(table: str, column: str) -> str:
    """Migration: rebuild ``table``'s ``tsv`` with its agent's lexeme, and its GIN index."""
    return f"""
    DROP INDEX tiermem.{table}_tsv;
    ALTER TABLE tiermem.{table} DROP COLUMN tsv;
    ALTER TABLE tiermem.{table} ADD COLUMN tsv TSVECTOR GENERATED ALWAYS AS (
        to_tsvector('tiermem.english_all',
                    regexp_replace(coalesce(search_text, {column}), '[^[:alnum:]]+', ' ', 'g'))
        || array_to_tsvector(ARRAY['{AGENT_LEXEME.format("' || agent_id::text")}])
    ) STORED;
    CREATE INDEX {table}_tsv ON tiermem.{table} USING gin (tsv);
    """


def _text_stats_triggers(table: str, words: str = "n_words", replace: bool = False) -> str:
    """Statement triggers keeping ``text_stats`` right for ``table`` (rows and ``words``, a
    row's length); ``replace`` redefines the functions of triggers that exist."""
    create = "CREATE OR REPLACE FUNCTION" if replace else "CREATE FUNCTION"
    script = f"""
    {create} tiermem.{table}_stats_ins() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        INSERT INTO tiermem.text_stats AS s (agent_id, tab, n_rows, n_words)
        SELECT agent_id, '{table}', count(*), sum({words}) FROM new_rows GROUP BY agent_id
        ON CONFLICT (agent_id, tab) DO UPDATE
            SET n_rows = s.n_rows + excluded.n_rows, n_words = s.n_words + excluded.n_words;
        RETURN NULL;
    END $$;
    {create} tiermem.{table}_stats_del() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        UPDATE tiermem.text_stats s SET n_rows = s.n_rows - d.n, n_words = s.n_words - d.w
        FROM (SELECT agent_id, count(*) AS n, sum({words}) AS w FROM old_rows
              GROUP BY agent_id) d
        WHERE s.agent_id = d.agent_id AND s.tab = '{table}';
        RETURN NULL;
    END $$;
    {create} tiermem.{table}_stats_upd() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        UPDATE tiermem.text_stats s SET n_words = s.n_words + d.w
        FROM (SELECT agent_id, sum(n_words) AS w FROM (
                  SELECT agent_id, {words} AS n_words FROM new_rows
                  UNION ALL SELECT agent_id, -({words}) FROM old_rows) both_sides
              GROUP BY agent_id) d
        WHERE s.agent_id = d.agent_id AND s.tab = '{table}';
        RETURN NULL;
    END $$;
    """
    if replace:
        return script
    return script + f"""
    CREATE TRIGGER {table}_stats_ins AFTER INSERT ON tiermem.{table}
        REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT
        EXECUTE FUNCTION tiermem.{table}_stats_ins();
    CREATE TRIGGER {table}_stats_del AFTER DELETE ON tiermem.{table}
        REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT
        EXECUTE FUNCTION tiermem.{table}_stats_del();
    CREATE TRIGGER {table}_stats_upd AFTER UPDATE ON tiermem.{table}
        REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT
        EXECUTE FUNCTION tiermem.{table}_stats_upd();
    """


# Forgetting (memory/ops/forget.py). A forgotten row's ``search_text`` becomes '' (so its
# tsvector is empty and full-text search no longer finds it) and its vector NULL.
_TOMBSTONES = """
    ALTER TABLE tiermem.facts ADD COLUMN forgotten_at DOUBLE PRECISION;
    ALTER TABLE tiermem.passages ADD COLUMN forgotten_at DOUBLE PRECISION;
    ALTER TABLE tiermem.messages ADD COLUMN forgotten_at DOUBLE PRECISION;
    CREATE FUNCTION tiermem.stays_forgotten() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        IF old.forgotten_at IS NOT NULL
           AND new.forgotten_at IS DISTINCT FROM old.forgotten_at THEN
            RAISE EXCEPTION 'a forgotten row stays forgotten';
        END IF;
        RETURN new;
    END $$;
    CREATE TRIGGER facts_stays_forgotten BEFORE UPDATE OF forgotten_at ON tiermem.facts
        FOR EACH ROW EXECUTE FUNCTION tiermem.stays_forgotten();
    CREATE TRIGGER passages_stays_forgotten BEFORE UPDATE OF forgotten_at ON tiermem.passages
        FOR EACH ROW EXECUTE FUNCTION tiermem.stays_forgotten();
    CREATE TRIGGER messages_stays_forgotten BEFORE UPDATE OF forgotten_at ON tiermem.messages
        FOR EACH ROW EXECUTE FUNCTION tiermem.stays_forgotten();

    -- Every forget request: a hash of its text (never the text), how it ended, the ids.
    CREATE TABLE tiermem.forget_requests (
        agent_id INTEGER NOT NULL REFERENCES tiermem.agents ON DELETE CASCADE,
        id BIGINT NOT NULL,
        created_at DOUBLE PRECISION NOT NULL,
        request_hash TEXT NOT NULL,
        mode TEXT NOT NULL,
        outcome TEXT NOT NULL CHECK (outcome IN ('matched', 'unmatched', 'ambiguous', 'failed')),
        facts TEXT NOT NULL DEFAULT '[]',
        passages TEXT NOT NULL DEFAULT '[]',
        messages TEXT NOT NULL DEFAULT '[]',
        detail TEXT NOT NULL DEFAULT '',
        PRIMARY KEY (agent_id, id)
    );
    -- Hashes of forgotten facts' norms: automatic extraction does not store them again.
    CREATE TABLE tiermem.forgotten_norms (
        agent_id INTEGER NOT NULL REFERENCES tiermem.agents ON DELETE CASCADE,
        id BIGINT NOT NULL,
        norm_hash TEXT NOT NULL,
        forgotten_at DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (agent_id, id),
        UNIQUE (agent_id, norm_hash)
    );
    """

def _lexeme_stats_triggers(table: str) -> str:
    """Statement triggers keeping ``lexeme_stats`` right for ``table``, and its counts for
    the rows already there."""
    def trigger(op: str, event: str, refs: str, changes: str) -> str:
        drop_empty = "" if op == "ins" else f"""
        DELETE FROM tiermem.lexeme_stats s
        USING (SELECT DISTINCT agent_id, lexeme FROM ({changes}) c) c
        WHERE s.agent_id = c.agent_id AND s.tab = '{table}' AND s.lexeme = c.lexeme
          AND s.n_rows <= 0;"""
        return f"""
    CREATE FUNCTION tiermem.{table}_lexemes_{op}() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        INSERT INTO tiermem.lexeme_stats AS s (agent_id, tab, lexeme, n_rows)
        SELECT agent_id, '{table}', lexeme, sum(delta) FROM ({changes}) c
        GROUP BY agent_id, lexeme HAVING sum(delta) <> 0
        ON CONFLICT (agent_id, tab, lexeme) DO UPDATE SET n_rows = s.n_rows + excluded.n_rows;
        {drop_empty}
        RETURN NULL;
    END $$;
    CREATE TRIGGER {table}_lexemes_{op} AFTER {event} ON tiermem.{table}
        REFERENCING {refs} FOR EACH STATEMENT EXECUTE FUNCTION tiermem.{table}_lexemes_{op}();
    """

    return (trigger("ins", "INSERT", "NEW TABLE AS new_rows", lexemes_of("new_rows", 1))
            + trigger("del", "DELETE", "OLD TABLE AS old_rows", lexemes_of("old_rows", -1))
            + trigger("upd", "UPDATE", "OLD TABLE AS old_rows NEW TABLE AS new_rows",
                      UPDATED_LEXEMES)
            + f"""
    INSERT INTO tiermem.lexeme_stats (agent_id, tab, lexeme, n_rows)
    SELECT agent_id, '{table}', lexeme, count(*) FROM ({lexemes_of(f"tiermem.{table}", 1)}) c
    GROUP BY agent_id, lexeme;
    """)


def _linked_to_their_message(table: str, sources: str, also: str = "TRUE") -> str:
    """Migration: ``table`` gets ``source_message_id``, and its rows stored in a turn
    before it existed (``source`` is one of ``sources``, then ``:turn:N``, and ``also``
    holds) are linked to turn N's first user message."""
    return f"""
    ALTER TABLE tiermem.{table} ADD COLUMN source_message_id BIGINT;
    CREATE INDEX {table}_source_message ON tiermem.{table} (agent_id, source_message_id);
    UPDATE tiermem.{table} r
       SET source_message_id = (
           SELECT min(m.id) FROM tiermem.messages m
            WHERE m.agent_id = r.agent_id AND m.role = 'user'
              AND m.turn = substring(r.source from ':turn:([0-9]+)$')::bigint)
     WHERE r.source ~ '^{sources}:turn:[0-9]+$' AND {also};
    """


#: A message that gives its text as context to the next one, and takes the previous one's.
_IN_CONTEXT = "{r}.forgotten_at IS NULL AND {r}.role IN ('user', 'assistant') AND {r}.content <> ''"

# Recall's full-text index also holds the text of the message before each one
# (memory/tiers/recall.py says why): ``context_text`` is that message's indexed text and
# ``context_words`` its length, which BM25 counts with the row's own. Triggers keep every
# context equal to the neighbour's current text: a message takes it when stored, and one
# that is erased or forgotten hands its successor the text of the message before it, so
# nothing of it stays reachable through a neighbour. Messages arrive in id order.
_RECALL_CONTEXT = f"""
    ALTER TABLE tiermem.messages ADD COLUMN context_text TEXT;
    ALTER TABLE tiermem.messages ADD COLUMN context_words INTEGER NOT NULL DEFAULT 0;
    {_text_stats_triggers("messages", words="n_words + context_words", replace=True)}
    ALTER TABLE tiermem.messages DROP COLUMN tsv;
    ALTER TABLE tiermem.messages ADD COLUMN tsv TSVECTOR GENERATED ALWAYS AS (
        to_tsvector('tiermem.english_all', regexp_replace(
            coalesce(search_text, content) || ' ' || coalesce(context_text, ''),
            '[^[:alnum:]]+', ' ', 'g'))
        || array_to_tsvector(ARRAY['{AGENT_LEXEME.format("' || agent_id::text")}])
    ) STORED;
    CREATE INDEX messages_tsv ON tiermem.messages USING gin (tsv);
    CREATE FUNCTION tiermem.message_context(agent INTEGER, below BIGINT,
                                            OUT txt TEXT, OUT words INTEGER)
    LANGUAGE sql STABLE AS $$
        SELECT coalesce(p.search_text, p.content), p.n_words FROM tiermem.messages p
         WHERE p.agent_id = agent AND p.id < below AND {_IN_CONTEXT.format(r="p")}
         ORDER BY p.id DESC LIMIT 1
    $$;
    UPDATE tiermem.messages m SET context_text = c.txt, context_words = coalesce(c.words, 0)
      FROM tiermem.messages m2, LATERAL tiermem.message_context(m2.agent_id, m2.id) c
     WHERE m.agent_id = m2.agent_id AND m.id = m2.id AND {_IN_CONTEXT.format(r="m2")};
    CREATE FUNCTION tiermem.messages_take_context() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        IF {_IN_CONTEXT.format(r="new")} THEN
            SELECT c.txt, coalesce(c.words, 0) INTO new.context_text, new.context_words
              FROM tiermem.message_context(new.agent_id, new.id) c;
        ELSE
            new.context_text := NULL;
            new.context_words := 0;
        END IF;
        RETURN new;
    END $$;
    CREATE TRIGGER messages_take_context BEFORE INSERT ON tiermem.messages
        FOR EACH ROW EXECUTE FUNCTION tiermem.messages_take_context();
    CREATE TRIGGER messages_forgotten_context BEFORE UPDATE OF forgotten_at ON tiermem.messages
        FOR EACH ROW WHEN (new.forgotten_at IS NOT NULL)
        EXECUTE FUNCTION tiermem.messages_take_context();
    CREATE FUNCTION tiermem.messages_hand_on_context() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
        successor BIGINT;
    BEGIN
        IF NOT ({_IN_CONTEXT.format(r="old")})
           OR current_setting('tiermem.clearing', true) = 'on'
           OR NOT EXISTS (SELECT 1 FROM tiermem.agents WHERE id = old.agent_id) THEN
            RETURN NULL;
        END IF;
        SELECT n.id INTO successor FROM tiermem.messages n
         WHERE n.agent_id = old.agent_id AND n.id > old.id AND {_IN_CONTEXT.format(r="n")}
         ORDER BY n.id LIMIT 1;
        IF successor IS NOT NULL THEN
            UPDATE tiermem.messages m SET context_text = c.txt,
                   context_words = coalesce(c.words, 0)
              FROM tiermem.message_context(old.agent_id, successor) c
             WHERE m.agent_id = old.agent_id AND m.id = successor;
        END IF;
        RETURN NULL;
    END $$;
    CREATE TRIGGER messages_erased_context AFTER DELETE ON tiermem.messages
        FOR EACH ROW EXECUTE FUNCTION tiermem.messages_hand_on_context();
    CREATE TRIGGER messages_forgotten_hand_on AFTER UPDATE OF forgotten_at ON tiermem.messages
        FOR EACH ROW WHEN (old.forgotten_at IS NULL AND new.forgotten_at IS NOT NULL)
        EXECUTE FUNCTION tiermem.messages_hand_on_context();
    """

MIGRATIONS: list[tuple[str, str]] = [
    ("agents, tiers, history and full-text search", f"""
    CREATE EXTENSION IF NOT EXISTS vector;
    CREATE SCHEMA IF NOT EXISTS tiermem;

    -- Stemming without a stopword list, as SQLite's porter tokenizer indexes every word.
    CREATE TEXT SEARCH DICTIONARY tiermem.english_stem_all (TEMPLATE = snowball,
                                                            Language = english);
    CREATE TEXT SEARCH CONFIGURATION tiermem.english_all (COPY = pg_catalog.english);
    ALTER TEXT SEARCH CONFIGURATION tiermem.english_all
        ALTER MAPPING FOR asciiword, word, hword, hword_part, hword_asciipart, asciihword
        WITH tiermem.english_stem_all;

    -- BM25 of one row, as SQLite's FTS5 computes it (k1 = 1.2, b = 0.75): the query's
    -- lexemes with their idf, the row's word count, and the table's mean word count.
    CREATE FUNCTION tiermem.bm25(doc TSVECTOR, doc_len INTEGER, lexemes TEXT[],
                                 idf DOUBLE PRECISION[], avg_len DOUBLE PRECISION)
    RETURNS DOUBLE PRECISION LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
        SELECT coalesce(sum(q.w * cardinality(u.positions) * 2.2
                            / (cardinality(u.positions)
                               + 1.2 * (0.25 + 0.75 * doc_len / greatest(avg_len, 1e-9)))), 0)
        FROM unnest(doc) u JOIN unnest(lexemes, idf) AS q(lexeme, w) ON q.lexeme = u.lexeme
    $$;

    CREATE TABLE tiermem.agents (
        id SERIAL PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        store_id TEXT NOT NULL,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now()
    );
    -- Who holds an agent's writer lock, for the message that refuses a second writer.
    CREATE TABLE tiermem.writers (
        agent_id INTEGER PRIMARY KEY REFERENCES tiermem.agents ON DELETE CASCADE,
        host TEXT NOT NULL,
        pid INTEGER NOT NULL,
        backend_pid INTEGER NOT NULL,
        since TIMESTAMPTZ NOT NULL DEFAULT now()
    );
    CREATE TABLE tiermem.settings (
        agent_id INTEGER NOT NULL REFERENCES tiermem.agents ON DELETE CASCADE,
        key TEXT NOT NULL,
        value TEXT NOT NULL,
        PRIMARY KEY (agent_id, key)
    );
    CREATE TABLE tiermem.text_stats (
        agent_id INTEGER NOT NULL,
        tab TEXT NOT NULL,
        n_rows BIGINT NOT NULL,
        n_words BIGINT NOT NULL,
        PRIMARY KEY (agent_id, tab)
    );

    CREATE TABLE tiermem.facts (
        agent_id INTEGER NOT NULL REFERENCES tiermem.agents ON DELETE CASCADE,
        id BIGINT NOT NULL,
        text TEXT NOT NULL,
        norm TEXT NOT NULL,
        durability TEXT NOT NULL CHECK (durability IN ('durable', 'short-lived')),
        tier TEXT NOT NULL CHECK (tier IN ('core', 'archival')),
        created_at DOUBLE PRECISION NOT NULL,
        created_tick DOUBLE PRECISION NOT NULL,
        entered_core_seq BIGINT NOT NULL DEFAULT 0,
        last_access DOUBLE PRECISION NOT NULL,
        access_count BIGINT NOT NULL DEFAULT 1,
        last_counted_tick DOUBLE PRECISION NOT NULL,
        source TEXT NOT NULL DEFAULT '',
        tokens INTEGER NOT NULL,
        passage_id BIGINT,
        evicted_at DOUBLE PRECISION,
        evicted_tick DOUBLE PRECISION,
        evictions INTEGER NOT NULL DEFAULT 0,
        promotions INTEGER NOT NULL DEFAULT 0,
        cycles INTEGER NOT NULL DEFAULT 0,
        hits_since_eviction INTEGER NOT NULL DEFAULT 0,
        {_TEXT_COLUMNS.format(column="text")},
        PRIMARY KEY (agent_id, id),
        UNIQUE (agent_id, norm)
    );
    CREATE INDEX facts_tier ON tiermem.facts (agent_id, tier);
    CREATE INDEX facts_tsv ON tiermem.facts USING gin (tsv);

    CREATE TABLE tiermem.passages (
        agent_id INTEGER NOT NULL REFERENCES tiermem.agents ON DELETE CASCADE,
        id BIGINT NOT NULL,
        text TEXT NOT NULL,
        created_at DOUBLE PRECISION NOT NULL,
        tags TEXT NOT NULL DEFAULT '[]',
        metadata TEXT NOT NULL DEFAULT '{{}}',
        source TEXT NOT NULL DEFAULT '',
        was_in_core BOOLEAN NOT NULL DEFAULT false,
        evicted_at DOUBLE PRECISION,
        fact_id BIGINT,
        embedder_id TEXT,
        embedding vector,
        {_TEXT_COLUMNS.format(column="text")},
        PRIMARY KEY (agent_id, id)
    );
    CREATE INDEX passages_created ON tiermem.passages (agent_id, created_at);
    CREATE INDEX passages_fact ON tiermem.passages (agent_id, fact_id);
    CREATE INDEX passages_tsv ON tiermem.passages USING gin (tsv);

    CREATE TABLE tiermem.messages (
        agent_id INTEGER NOT NULL REFERENCES tiermem.agents ON DELETE CASCADE,
        id BIGINT NOT NULL,
        turn BIGINT NOT NULL,
        role TEXT NOT NULL,
        content TEXT NOT NULL,
        tool_calls TEXT,
        tool_call_id TEXT,
        tool_name TEXT,
        created_at DOUBLE PRECISION NOT NULL,
        status TEXT NOT NULL DEFAULT 'ok',
        embedder_id TEXT,
        embedding vector,
        {_TEXT_COLUMNS.format(column="content")},
        PRIMARY KEY (agent_id, id)
    );
    CREATE INDEX messages_created ON tiermem.messages (agent_id, created_at);
    CREATE INDEX messages_turn ON tiermem.messages (agent_id, turn);
    CREATE INDEX messages_pending ON tiermem.messages (agent_id, id) WHERE status = 'pending';
    CREATE INDEX messages_tsv ON tiermem.messages USING gin (tsv);

    -- Recall is append-only: content never changes, and a message is deleted only
    -- after an erasure has been recorded for it.
    CREATE TABLE tiermem.erasures (
        agent_id INTEGER NOT NULL REFERENCES tiermem.agents ON DELETE CASCADE,
        id BIGINT NOT NULL,
        message_id BIGINT NOT NULL,
        reason TEXT NOT NULL,
        erased_at DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (agent_id, id)
    );
    CREATE INDEX erasures_message ON tiermem.erasures (agent_id, message_id);
    CREATE FUNCTION tiermem.messages_no_edit() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        IF (new.content, new.role, new.turn, new.created_at, new.tool_calls,
            new.tool_call_id, new.tool_name)
           IS DISTINCT FROM (old.content, old.role, old.turn, old.created_at,
                             old.tool_calls, old.tool_call_id, old.tool_name) THEN
            RAISE EXCEPTION 'recall is append-only: messages cannot be edited';
        END IF;
        RETURN new;
    END $$;
    CREATE TRIGGER messages_no_edit BEFORE UPDATE ON tiermem.messages
        FOR EACH ROW EXECUTE FUNCTION tiermem.messages_no_edit();
    CREATE FUNCTION tiermem.messages_no_delete() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        -- A restore that replaces the whole memory sets tiermem.clearing; dropping
        -- the agent deletes its messages with it.
        IF current_setting('tiermem.clearing', true) IS DISTINCT FROM 'on'
           AND NOT EXISTS (SELECT 1 FROM tiermem.erasures
                           WHERE agent_id = old.agent_id AND message_id = old.id)
           AND EXISTS (SELECT 1 FROM tiermem.agents WHERE id = old.agent_id) THEN
            RAISE EXCEPTION 'recall is append-only: use erase_messages() to remove a message';
        END IF;
        RETURN old;
    END $$;
    CREATE TRIGGER messages_no_delete BEFORE DELETE ON tiermem.messages
        FOR EACH ROW EXECUTE FUNCTION tiermem.messages_no_delete();

    CREATE TABLE tiermem.history (
        agent_id INTEGER NOT NULL REFERENCES tiermem.agents ON DELETE CASCADE,
        tick BIGINT NOT NULL,
        created_at DOUBLE PRECISION NOT NULL,
        core_facts INTEGER NOT NULL,
        core_size INTEGER NOT NULL,
        durable_in_core INTEGER NOT NULL,
        archival_passages BIGINT NOT NULL,
        recall_messages BIGINT NOT NULL,
        evictions INTEGER NOT NULL,
        promotions INTEGER NOT NULL,
        PRIMARY KEY (agent_id, tick)
    );
    CREATE TABLE tiermem.events (
        agent_id INTEGER NOT NULL REFERENCES tiermem.agents ON DELETE CASCADE,
        id BIGINT NOT NULL,
        tick BIGINT NOT NULL,
        kind TEXT NOT NULL,
        fact_id BIGINT,
        text TEXT NOT NULL DEFAULT '',
        detail TEXT NOT NULL DEFAULT '',
        created_at DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (agent_id, id)
    );
    CREATE INDEX events_tick ON tiermem.events (agent_id, tick);
    """ + _text_stats_triggers("facts") + _text_stats_triggers("passages")
     + _text_stats_triggers("messages")),
    # Events keep no text: the fact's row holds it, and a replace keeps only the
    # replaced text's length (memory/text/digest.py, the same form). A fact links the
    # message it was learned from, so erasing the message erases it; facts learned
    # before are linked through the turn that ends their source.
    ("events without text, facts linked to their message", """
    UPDATE tiermem.events
       SET detail = 'old_chars=' || char_length(detail)
     WHERE kind = 'replace';
    UPDATE tiermem.events SET text = '' WHERE text <> '';
    """ + _linked_to_their_message("facts", "(extracted|tool)")),
    ("tombstones for forgotten rows, the forget audit", _TOMBSTONES),
    ("full-text search scoped to the agent inside the GIN index",
     _agent_scoped_text("facts", "text") + _agent_scoped_text("passages", "text")
     + _agent_scoped_text("messages", "content")),
    ("each lexeme's document count per agent, for BM25", """
    CREATE TABLE tiermem.lexeme_stats (
        agent_id INTEGER NOT NULL,
        tab TEXT NOT NULL,
        lexeme TEXT NOT NULL,
        n_rows BIGINT NOT NULL,
        PRIMARY KEY (agent_id, tab, lexeme)
    );
    -- BM25 is computed inline from ts_rank_cd term counts (memory/store/postgres/lexical.py).
    DROP FUNCTION tiermem.bm25(TSVECTOR, INTEGER, TEXT[], DOUBLE PRECISION[], DOUBLE PRECISION);
    """ + _lexeme_stats_triggers("facts") + _lexeme_stats_triggers("passages")
     + _lexeme_stats_triggers("messages")),
    ("the previous message as full-text context in recall", _RECALL_CONTEXT),
    ("text and lexeme counts changed once per transaction, at commit",
     folded_stats.MIGRATION),
    ("forgotten rows left out of each table's row count, for BM25",
     folded_stats.LIVE_ROWS_MIGRATION),
    # A passage links the message it was filed from, as a fact does, so erasing or
    # forgetting the message takes it too; those filed by a tool call before are linked
    # through their turn (SQLite's migration 9 says more).
    ("passages linked to their message",
     _linked_to_their_message("passages", "tool", also="r.fact_id IS NULL")),
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
