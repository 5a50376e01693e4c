"""The work of PostgreSQL's lexeme-counting update trigger grows with the rows an UPDATE
changes, not with their square (memory/store/postgres/folded_stats.py, ``UPDATED_LEXEMES``):
counted as the rows its plan's steps produce, from the plan the database runs."""

from __future__ import annotations

import json
import re
from typing import Any

from tiermem.memory.embed.embeddings import HashingEmbedder
from tiermem.memory.hierarchy import HierarchicalMemory
from tiermem.memory.store.postgres.backend import PostgresBackend
from tiermem.memory.store.records import Message

#: The installed trigger function's one query: the lexemes an update adds and removes.
_QUERY = re.compile(r"SELECT txid_current\(\).*?(?=;)", re.DOTALL)


def _explain_each_update(backend: PostgresBackend) -> None:
    """After each UPDATE of recall's table, the plan of the query the lexeme-counting
    trigger runs, run on the same rows (its transition tables) and kept in
    ``public.lexeme_plans`` (emptied first). Planned with nested loops for joins: the
    trigger's plan is made once a session, at its first UPDATE, often of a row or none,
    when a nested loop costs least, and kept for every UPDATE after, however many rows."""
    (source,) = backend.conn.execute(
        "SELECT prosrc FROM pg_proc WHERE proname = 'messages_lexemes_upd'"
        " AND pronamespace = 'tiermem'::regnamespace").fetchone() or ("",)
    query = _QUERY.search(source)
    assert query is not None, f"no lexeme query in the trigger function: {source}"
    body = f"EXPLAIN (ANALYZE, FORMAT JSON) {query.group(0)}"
    backend.conn.execute(f"""
        CREATE TABLE IF NOT EXISTS public.lexeme_plans (plan JSON NOT NULL);
        DELETE FROM public.lexeme_plans;
        CREATE OR REPLACE FUNCTION public.explain_lexemes() RETURNS trigger LANGUAGE plpgsql
        SET enable_hashjoin = off SET enable_mergejoin = off AS $f$
        DECLARE
            found JSON;
        BEGIN
            EXECUTE {_quoted(body)} INTO found;
            INSERT INTO public.lexeme_plans VALUES (found);
            RETURN NULL;
        END $f$;
        DROP TRIGGER IF EXISTS explain_lexemes ON tiermem.messages;
        CREATE TRIGGER explain_lexemes AFTER UPDATE ON tiermem.messages
            REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT
            EXECUTE FUNCTION public.explain_lexemes();""")


def _quoted(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _rows_produced(node: dict[str, Any]) -> int:
    """Rows the plan's steps produced, each step's over all its loops."""
    own = int(node.get("Actual Rows", 0)) * int(node.get("Actual Loops", 1))
    return own + sum(_rows_produced(child) for child in node.get("Plans", ()))


def _work_forgetting(dsn: str, messages: int) -> int:
    """Rows the lexeme-counting trigger's plans produced forgetting every message of a turn
    of ``messages`` (each forgotten message's words leave; each heir's context changes)."""
    with HierarchicalMemory(store=dsn, agent=f"a{messages}",
                            embedder=HashingEmbedder()) as memory:
        backend = memory.store
        assert isinstance(backend, PostgresBackend)
        with backend.transaction():
            ids = backend.messages.append_many([
                Message(turn=1, role=("user", "assistant")[i % 2], created_at=1.0,
                        content=f"line{i} fig") for i in range(messages)])
        _explain_each_update(backend)
        with backend.transaction():
            backend.forgetting.forget((), (), ids, 1.0)
        plans = [row[0] for row in backend.conn.execute(
            "SELECT plan FROM public.lexeme_plans").fetchall()]
    assert plans, "the update ran no lexeme-counting trigger"
    return sum(_rows_produced((p if isinstance(p, list) else json.loads(p))[0]["Plan"])
               for p in plans)


def test_the_lexeme_count_of_four_times_the_rows_updated_is_four_times_the_work(
        postgres_dsn: str) -> None:
    # The old and new sides of each row were joined, planned as a nested loop over the
    # transition tables (which have no index): four times the rows, sixteen times the work.
    assert _work_forgetting(postgres_dsn, 2000) <= 5 * _work_forgetting(postgres_dsn, 500)
