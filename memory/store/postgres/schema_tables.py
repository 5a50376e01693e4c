"""The tables of the PostgreSQL schema and the migrations that changed them, apart from
full-text search (memory/store/postgres/schema_search.py); memory/store/postgres/schema.py
runs them in order.

Everything lives in the schema ``tiermem`` of the database, so tiermem can share
a database with an application's own tables. One database holds many agents:
every table carries ``agent_id`` first in its primary key, and ids (facts,
passages, messages, events) are numbered per agent, so two agents never see or
collide with each other's rows.

Vectors are pgvector ``vector`` columns of the embedder's dimension (384 for
the default MiniLM). Search is exact unless an HNSW index is asked for
(memory/store/postgres/vectors.py creates it per dimension).
"""

from __future__ import annotations

from tiermem.memory.store.postgres.schema_search import TEXT_COLUMNS, text_stats_triggers
from tiermem.memory.store.records import ERASED_ID_KEYS

#: Migration 1: agents, tiers, history and full-text search.
TABLES = f"""
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
        {TEXT_COLUMNS.format(column="text")},
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
        {TEXT_COLUMNS.format(column="text")},
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
        {TEXT_COLUMNS.format(column="content")},
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
    """ + (text_stats_triggers("facts") + text_stats_triggers("passages")
           + text_stats_triggers("messages"))


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


#: Migration 2. Events keep no text: the fact's row holds it, and a replace keeps only
#: the replaced text's length (memory/text/digest.py, the same form). A fact links the
#: message it was learned from, so erasing the message erases it; facts learned
#: before are linked through the turn that ends their source.
EVENTS_WITHOUT_TEXT = """
    UPDATE tiermem.events
       SET detail = 'old_chars=' || char_length(detail)
     WHERE kind = 'replace';
    UPDATE tiermem.events SET text = '' WHERE text <> '';
    """ + _linked_to_their_message("facts", "(extracted|tool)")


#: Migration 3, forgetting (memory/ops/forget.py). A forgotten row's ``search_text``
#: becomes '' (so its tsvector is empty and full-text search no longer finds it) and its
#: vector NULL.
TOMBSTONES = """
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


#: Migration 9. A passage links the message it was filed from, as a fact does, so
#: erasing or forgetting the message takes it too; those filed by a tool call before are
#: linked through their turn (SQLite's migration 9 says more).
PASSAGE_SOURCES = _linked_to_their_message("passages", "tool", also="r.fact_id IS NULL")


def _named_ids(column: str) -> str:
    """Each agent's ids in ``forget_requests.{column}`` (JSON lists of ids); a value that is
    no such list names none, rather than stopping the upgrade. Only ASCII digits match (``\\d``
    may take others, which no cast reads), and an id past the range of BIGINT, which no row
    can hold, names none rather than failing its cast (CASE decides before casting)."""
    digits = f"btrim(n, {_BLANKS})"
    return (f"SELECT r.agent_id, CASE WHEN {digits}::numeric <= {2**63 - 1} "
            f"THEN {digits}::bigint END AS id FROM tiermem.forget_requests AS r, "
            f"unnest(string_to_array(CASE WHEN r.{column} ~ "
            rf"'^\[{_BLANK}*([0-9]{{1,19}}{_BLANK}*(,{_BLANK}*[0-9]{{1,19}}{_BLANK}*)*)?\]$' "
            f"THEN btrim(r.{column}, '[]' || {_BLANKS}) ELSE '' END, ',')) AS n")


#: JSON's whitespace, as a regular expression and as the characters btrim takes off.
_BLANK = r"[ \t\n\r]"
_BLANKS = "' ' || chr(9) || chr(10) || chr(13)"


def _mark(table: str, named: str, agent: int | None) -> str:
    """Raise each agent's erased-id setting of ``table`` (``agent``'s only, when given) to the
    highest id ``named`` that is no row of it."""
    only = "" if agent is None else f" AND named.agent_id = {int(agent)}"
    return (f"INSERT INTO tiermem.settings (agent_id, key, value) "
            f"SELECT named.agent_id, '{ERASED_ID_KEYS[table]}', max(named.id)::text "
            f"FROM ({named}) AS named WHERE named.id > 0{only} AND NOT EXISTS (SELECT 1 FROM "
            f"tiermem.{table} AS t WHERE t.agent_id = named.agent_id AND t.id = named.id) "
            f"GROUP BY named.agent_id ON CONFLICT (agent_id, key) DO UPDATE SET value = "
            f"greatest(tiermem.settings.value::bigint, excluded.value::bigint)::text;")


def erased_id_marks(agent: int | None = None) -> str:
    """The statements that mark erased facts' and passages' ids from what names them, for
    every agent or for ``agent`` alone (rows a snapshot without the marks restored)."""
    return (_mark("facts", f"SELECT agent_id, fact_id AS id FROM tiermem.events "
                           f"UNION ALL {_named_ids('facts')}", agent)
            + "\n" + _mark("passages", _named_ids("passages"), agent))


#: Migration 10: erased facts' and passages' ids marked from what names them (SQLite's
#: migration 11 says why).
ERASED_ID_MARKS = erased_id_marks()

def undone_evictions(agent: int | None = None) -> str:
    """The statements that take the eviction date off each fact back in core and off its
    passage, for every agent or for ``agent`` alone (SQLite's migration 13 says why)."""
    only = "" if agent is None else f" AND agent_id = {int(agent)}"
    return (f"UPDATE tiermem.facts SET evicted_at = NULL, evicted_tick = NULL WHERE tier = "
            f"'core' AND (evicted_at IS NOT NULL OR evicted_tick IS NOT NULL){only};\n"
            f"UPDATE tiermem.passages AS p SET evicted_at = NULL FROM tiermem.facts AS f "
            f"WHERE p.evicted_at IS NOT NULL AND f.agent_id = p.agent_id AND f.id = p.fact_id "
            f"AND f.tier = 'core'{only.replace('agent_id', 'p.agent_id')};")


#: Migration 12: no eviction date on a fact back in core, nor on its passage.
UNDONE_EVICTIONS = undone_evictions()

#: Migration 11: where a writer's pid means something. Two writers on machines of one name,
#: or in containers sharing their host's name (host networking), give pids of different
#: process tables; the boot id and pid namespace of the writer tell them apart, so an
#: opener waits only for a holder of its own process table that has exited
#: (memory/store/postgres/writer_lock.py). NULL: written by a version before this one.
WRITER_SCOPE = "ALTER TABLE tiermem.writers ADD COLUMN process_scope TEXT;"

#: Migration 13: an index of passages by a digest of their text, for the passages holding
#: a text exactly (``PgPassages.holding``; SQLite's migration 14 says why). A digest, as a
#: B-tree entry holds at most about 2,700 bytes, and a passage may be longer.
PASSAGE_TEXTS = ("CREATE INDEX passages_text ON tiermem.passages (agent_id, md5(text)) "
                 "WHERE forgotten_at IS NULL;")
