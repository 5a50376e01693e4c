"""BM25's statistics in PostgreSQL, changed once per transaction however many rows it writes.

``tiermem.text_stats`` (each agent's rows and words per table) and
``tiermem.lexeme_stats`` (how many of the agent's rows hold each lexeme) are
kept by statement triggers (memory/store/postgres/schema_search.py). Updating a
counter row in every statement made one transaction's writes quadratic: nearly
every row holds the agent's lexeme and a few common words, so the same counters
changed once per statement, and the row versions an open transaction leaves
behind cannot be pruned, so each later update or lookup walked all of them.

Instead the statement triggers append each statement's changes to
``tiermem.lexeme_pending`` and ``tiermem.text_pending`` (new rows only, never an
update), keyed by the transaction's id, and register the transaction once in
``tiermem.stats_folds``. That table's deferred constraint trigger runs when the
transaction commits: it adds the transaction's changes to the counters in one
grouped upsert per table, drops lexemes no row holds any more, and deletes the
pending rows. Pending rows are visible only to the transaction that wrote them,
so a reader adds the ones it sees to the counters and gets the counts of exactly
the rows it sees; a savepoint rolled back takes its pending rows with it.
"""

from __future__ import annotations

#: Where changes wait for the commit: their dead rows held an erased row's lexemes until
#: VACUUM (the erasure runs it on them too).
PENDING_TABLES = ("lexeme_pending", "text_pending")


def lexemes_of(rows: str, delta: int | str, column: str = "tsv") -> str:
    """(agent_id, lexeme, delta): one row per lexeme of each row of ``rows``; ``delta`` a
    number or an SQL expression of the row ``r``."""
    return (f"SELECT r.agent_id, l.lexeme, {delta} AS delta FROM {rows} r "
            f"CROSS JOIN LATERAL unnest(tsvector_to_array(r.{column})) AS l(lexeme)")


#: The lexemes an update adds (+1) and removes (-1): only rows whose words changed
#: count (setting a status or a vector changes none), as the two sides of a row whose
#: words stayed cancel out. The sides are grouped, not joined: the transition tables have
#: no index, and their join was planned as a nested loop, so updating n rows compared n
#: squared pairs (forgetting 4,000 messages took 5 s in this trigger alone).
_CHANGED = ("(SELECT agent_id, tsv, sum(side) AS side FROM ("
            "SELECT agent_id, id, tsv, 1 AS side FROM new_rows UNION ALL "
            "SELECT agent_id, id, tsv, -1 FROM old_rows) sides "
            "GROUP BY agent_id, id, tsv HAVING sum(side) <> 0)")
UPDATED_LEXEMES = lexemes_of(_CHANGED, "r.side")

#: Registers the transaction for the fold at commit (once: later statements find its row).
_FOLD_AT_COMMIT = """
        IF FOUND THEN
            INSERT INTO tiermem.stats_folds (xid) VALUES (txid_current()) ON CONFLICT DO NOTHING;
        END IF;"""


def _pending_lexemes(table: str, ops: tuple[str, ...] = ("ins", "del", "upd")) -> str:
    """``table``'s lexeme triggers' functions (of ``ops``), appending to ``lexeme_pending``."""
    changes = {"ins": lexemes_of("new_rows", 1), "del": lexemes_of("old_rows", -1),
               "upd": UPDATED_LEXEMES}
    return "".join(f"""
    CREATE OR REPLACE FUNCTION tiermem.{table}_lexemes_{op}() RETURNS trigger
    LANGUAGE plpgsql AS $$
    BEGIN
        INSERT INTO tiermem.lexeme_pending (xid, agent_id, tab, lexeme, delta)
        SELECT txid_current(), agent_id, '{table}', lexeme, sum(delta) FROM ({change}) c
        GROUP BY agent_id, lexeme HAVING sum(delta) <> 0;{_FOLD_AT_COMMIT}
        RETURN NULL;
    END $$;""" for op, change in changes.items() if op in ops)


def _pending_text(table: str, words: str, live_only: bool = False) -> str:
    """``table``'s row and word triggers' functions, appending to ``text_pending``;
    ``words`` is a row's length. ``live_only`` counts only rows not forgotten, as FTS5
    does in SQLite, where forgetting takes a row out of the index (a forgotten row's
    words are 0 either way)."""
    one = "(forgotten_at IS NULL)::int" if live_only else "1"
    same = one if live_only else "0"
    changes = {"ins": f"SELECT agent_id, {one} AS n, {words} AS w FROM new_rows",
               "del": f"SELECT agent_id, -{one} AS n, -({words}) AS w FROM old_rows",
               "upd": f"SELECT agent_id, {same} AS n, {words} AS w FROM new_rows UNION ALL "
                      f"SELECT agent_id, -{same}, -({words}) FROM old_rows"}
    return "".join(f"""
    CREATE OR REPLACE FUNCTION tiermem.{table}_stats_{op}() RETURNS trigger
    LANGUAGE plpgsql AS $$
    BEGIN
        INSERT INTO tiermem.text_pending (xid, agent_id, tab, n_rows, n_words)
        SELECT txid_current(), agent_id, '{table}', sum(n), sum(w) FROM ({change}) c
        GROUP BY agent_id HAVING sum(n) <> 0 OR sum(w) <> 0;{_FOLD_AT_COMMIT}
        RETURN NULL;
    END $$;""" for op, change in changes.items())


#: The migration that moves the counters' changes to commit time. The counters already
#: hold the committed rows' counts, and nothing is pending between transactions.
MIGRATION = """
    CREATE TABLE tiermem.lexeme_pending (
        xid BIGINT NOT NULL,
        agent_id INTEGER NOT NULL,
        tab TEXT NOT NULL,
        lexeme TEXT NOT NULL,
        delta BIGINT NOT NULL
    );
    CREATE INDEX lexeme_pending_key ON tiermem.lexeme_pending (xid, agent_id, tab, lexeme);
    CREATE TABLE tiermem.text_pending (
        xid BIGINT NOT NULL,
        agent_id INTEGER NOT NULL,
        tab TEXT NOT NULL,
        n_rows BIGINT NOT NULL,
        n_words BIGINT NOT NULL
    );
    CREATE INDEX text_pending_key ON tiermem.text_pending (xid, agent_id, tab);
    -- One row per transaction with pending changes, from its first change to its commit.
    CREATE TABLE tiermem.stats_folds (xid BIGINT PRIMARY KEY);

    CREATE FUNCTION tiermem.fold_stats() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
        empty_agents INTEGER[];
        empty_tabs TEXT[];
        empty_lexemes TEXT[];
    BEGIN
        WITH pending AS (
            DELETE FROM tiermem.text_pending WHERE xid = new.xid
            RETURNING agent_id, tab, n_rows, n_words)
        INSERT INTO tiermem.text_stats AS s (agent_id, tab, n_rows, n_words)
        SELECT agent_id, tab, sum(n_rows), sum(n_words) FROM pending GROUP BY agent_id, tab
        ON CONFLICT (agent_id, tab) DO UPDATE
            SET n_rows = s.n_rows + excluded.n_rows, n_words = s.n_words + excluded.n_words;
        WITH pending AS (
            DELETE FROM tiermem.lexeme_pending WHERE xid = new.xid
            RETURNING agent_id, tab, lexeme, delta),
        folded AS (
            INSERT INTO tiermem.lexeme_stats AS s (agent_id, tab, lexeme, n_rows)
            SELECT agent_id, tab, lexeme, sum(delta) FROM pending
            GROUP BY agent_id, tab, lexeme HAVING sum(delta) <> 0
            ON CONFLICT (agent_id, tab, lexeme) DO UPDATE SET n_rows = s.n_rows + excluded.n_rows
            RETURNING s.agent_id, s.tab, s.lexeme, s.n_rows)
        SELECT array_agg(agent_id), array_agg(tab), array_agg(lexeme)
          INTO empty_agents, empty_tabs, empty_lexemes
          FROM folded WHERE n_rows <= 0;
        -- A lexeme no row holds any more leaves the counts (erased text leaves no word).
        DELETE FROM tiermem.lexeme_stats s
         USING unnest(empty_agents, empty_tabs, empty_lexemes) AS e(agent_id, tab, lexeme)
         WHERE s.agent_id = e.agent_id AND s.tab = e.tab AND s.lexeme = e.lexeme;
        DELETE FROM tiermem.stats_folds WHERE xid = new.xid;
        RETURN NULL;
    END $$;
    CREATE CONSTRAINT TRIGGER stats_folds_at_commit AFTER INSERT ON tiermem.stats_folds
        DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION tiermem.fold_stats();
    """ + "".join(_pending_lexemes(t) for t in ("facts", "passages", "messages")) + (
    _pending_text("facts", "n_words") + _pending_text("passages", "n_words")
    + _pending_text("messages", "n_words + context_words"))

# Readers: the committed counts plus this transaction's pending changes (no other
# transaction's are visible; a transaction without an id has written none).
DOCUMENT_COUNTS = """
    SELECT lexeme, sum(n) FROM (
        SELECT lexeme, n_rows AS n FROM tiermem.lexeme_stats
         WHERE agent_id = %(agent)s AND tab = %(tab)s AND lexeme = ANY(%(lexemes)s)
        UNION ALL
        SELECT lexeme, delta FROM tiermem.lexeme_pending
         WHERE xid = txid_current_if_assigned() AND agent_id = %(agent)s AND tab = %(tab)s
           AND lexeme = ANY(%(lexemes)s)) c
    GROUP BY lexeme"""
TABLE_SIZE = """
    SELECT coalesce(sum(n_rows), 0), coalesce(sum(n_words), 0) FROM (
        SELECT n_rows, n_words FROM tiermem.text_stats
         WHERE agent_id = %(agent)s AND tab = %(tab)s
        UNION ALL
        SELECT n_rows, n_words FROM tiermem.text_pending
         WHERE xid = txid_current_if_assigned() AND agent_id = %(agent)s
           AND tab = %(tab)s) c"""


#: The migration that stops counting forgotten rows among a table's rows: BM25's idf and
#: mean length then equal SQLite's, whose full-text index drops a row when it is forgotten.
#: Between transactions nothing is pending, so the counters are set from the rows.
LIVE_ROWS_MIGRATION = "".join(
    _pending_text(table, words, live_only=True) + f"""
    UPDATE tiermem.text_stats s SET n_rows = (
        SELECT count(*) FROM tiermem.{table} t
         WHERE t.agent_id = s.agent_id AND t.forgotten_at IS NULL)
     WHERE s.tab = '{table}';"""
    for table, words in (("facts", "n_words"), ("passages", "n_words"),
                         ("messages", "n_words + context_words")))


#: The update triggers' functions counting lexemes with ``UPDATED_LEXEMES`` as it is now
#: (part of a migration of memory/store/postgres/schema.py).
GROUPED_UPDATES = "".join(_pending_lexemes(table, ("upd",))
                          for table in ("facts", "passages", "messages"))
