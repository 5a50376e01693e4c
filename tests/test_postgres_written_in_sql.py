"""A message a program erases or forgets in SQL on PostgreSQL, as the schema lets it (an
erasure recorded before the row is deleted; a ``forgotten_at`` set, never cleared), leaves
recall's full-text search as the store's own erasing and forgetting do: the next message's
context no longer holds it, and a forgotten row keeps no words nor vector
(memory/store/postgres/schema_search.py, ``OUTSIDE_THE_STORE``)."""

from __future__ import annotations

from collections.abc import Callable

import psycopg
import pytest
from memory_helpers import postgres_schema_at_version
from test_postgres_forget_many import _stale_contexts
from test_postgres_stats_fold import _true_counts

from tiermem.memory.embed.embeddings import HashingEmbedder
from tiermem.memory.hierarchy import HierarchicalMemory
from tiermem.memory.store.postgres.backend import PostgresBackend
from tiermem.memory.store.postgres.schema import MIGRATIONS, SCHEMA_VERSION
from tiermem.memory.store.postgres.schema_search import OUTSIDE_THE_STORE

#: How many migrations a database had before the one that hands on what other programs
#: take out.
_BEFORE_HANDING_ON = [script for _, script in MIGRATIONS].index(OUTSIDE_THE_STORE)


def _erase(conn: psycopg.Connection, agent: int, messages: list[int]) -> None:
    conn.execute("INSERT INTO tiermem.erasures (agent_id, id, message_id, reason, erased_at)"
                 " SELECT %s, 1000 + m, m, 'by hand', 0 FROM unnest(%s::bigint[]) m",
                 (agent, messages))
    conn.execute("DELETE FROM tiermem.messages WHERE agent_id = %s AND id = ANY(%s::bigint[])",
                 (agent, messages))


def _forget(conn: psycopg.Connection, agent: int, messages: list[int]) -> None:
    conn.execute("UPDATE tiermem.messages SET forgotten_at = 5"
                 " WHERE agent_id = %s AND id = ANY(%s::bigint[])", (agent, messages))


def _found(memory: HierarchicalMemory, query: str) -> list[int]:
    return sorted(hit.id for hit in memory.recall.search(query, k=20))


def _backend(memory: HierarchicalMemory) -> PostgresBackend:
    assert isinstance(memory.store, PostgresBackend)
    return memory.store


def _assert_counts_right(backend: PostgresBackend) -> None:
    """BM25's counts are those of the rows: a forgotten row counts no row and no word."""
    stored = dict(backend.conn.execute(
        "SELECT lexeme, n_rows FROM tiermem.lexeme_stats WHERE agent_id = %s"
        " AND tab = 'messages'", (backend.agent_id,)).fetchall())
    assert stored == _true_counts(backend, "messages")
    assert backend.conn.execute(
        "SELECT n_rows, n_words FROM tiermem.text_stats WHERE agent_id = %s"
        " AND tab = 'messages'", (backend.agent_id,)).fetchone() == backend.conn.execute(
        "SELECT count(*) FILTER (WHERE forgotten_at IS NULL), sum(n_words + context_words)"
        " FROM tiermem.messages WHERE agent_id = %s", (backend.agent_id,)).fetchone()
    assert backend.conn.execute(
        "SELECT count(*) FROM tiermem.messages WHERE agent_id = %s AND forgotten_at"
        " IS NOT NULL AND n_words + context_words > 0", (backend.agent_id,)).fetchone() == (0,)


def _nine_messages(memory: HierarchicalMemory) -> list[int]:
    return [memory.recall.append("user" if i % 2 == 0 else "assistant",
                                 f"note{i} quince{i}", 1) for i in range(9)]


def _take_out_some(dsn: str, agent: int, ids: list[int],
                   take_out: Callable[[psycopg.Connection, int, list[int]], None]) -> None:
    with psycopg.connect(dsn) as other, other.transaction():
        take_out(other, agent, [ids[2], ids[3], ids[6]])  # two in a row, one apart
        take_out(other, agent, [ids[8]])  # the last: no heir


def _assert_taken_out(memory: HierarchicalMemory, ids: list[int]) -> None:
    """What ``_take_out_some`` took out is nowhere in recall's full-text search."""
    backend = _backend(memory)
    assert _stale_contexts(backend) == []
    for gone in (2, 3, 6, 8):
        assert _found(memory, f"quince{gone}") == []
    # The next message kept holds the one before those taken out as context.
    assert _found(memory, "quince1") == [ids[1], ids[4]]
    assert _found(memory, "quince5") == [ids[5], ids[7]]
    assert backend.conn.execute(
        "SELECT count(*) FROM tiermem.messages WHERE agent_id = %s AND"
        " (tsv @@ 'quince2'::tsquery OR forgotten_at IS NOT NULL AND (n_words <> 0"
        " OR embedding IS NOT NULL OR context_text IS NOT NULL))", (backend.agent_id,)
    ).fetchone() == (0,)
    _assert_counts_right(backend)


@pytest.mark.parametrize("take_out", [_erase, _forget])
def test_a_message_taken_out_in_sql_by_another_program_hands_its_context_on(
        postgres_dsn: str,
        take_out: Callable[[psycopg.Connection, int, list[int]], None]) -> None:
    # The next message kept the removed one's text as its context, so a search for its
    # words still found that message; a forgotten row kept its words and vector.
    with HierarchicalMemory(store=postgres_dsn, agent="ann",
                            embedder=HashingEmbedder()) as memory:
        ids = _nine_messages(memory)
        agent = _backend(memory).agent_id
    _take_out_some(postgres_dsn, agent, ids, take_out)
    with HierarchicalMemory(store=postgres_dsn, agent="ann",
                            embedder=HashingEmbedder()) as memory:
        _assert_taken_out(memory, ids)
        backend = _backend(memory)
        # The store's own removals after them hand on what is left.
        backend.forgetting.forget((), (), [ids[4]], 6.0)
        assert [m.id for m in backend.messages.erase([ids[5]], "gone", 7.0)] == [ids[5]]
        assert _stale_contexts(backend) == []
        assert _found(memory, "quince1") == [ids[1], ids[7]]


@pytest.mark.parametrize("take_out", [_erase, _forget])
def test_what_another_program_took_out_before_the_upgrade_leaves_search_with_it(
        postgres_dsn: str, monkeypatch: pytest.MonkeyPatch,
        take_out: Callable[[psycopg.Connection, int, list[int]], None]) -> None:
    # Taken out under migration 15, the messages stayed in their heirs' contexts and a
    # forgotten row kept its words after the upgrade: only what came later was handed on.
    postgres_schema_at_version(monkeypatch, _BEFORE_HANDING_ON)
    with HierarchicalMemory(store=postgres_dsn, agent="ann",
                            embedder=HashingEmbedder()) as memory:
        ids = _nine_messages(memory)
        agent = _backend(memory).agent_id
    _take_out_some(postgres_dsn, agent, ids, take_out)
    monkeypatch.undo()
    with HierarchicalMemory(store=postgres_dsn, agent="ann",
                            embedder=HashingEmbedder()) as memory:
        assert _backend(memory).conn.execute(
            "SELECT max(version) FROM tiermem.migrations").fetchone() == (SCHEMA_VERSION,)
        _assert_taken_out(memory, ids)
