"""Forgetting many of recall's messages at once in PostgreSQL: each message after them takes
the context a fresh computation gives it (the text of the message in context before it),
and the work grows with the number forgotten, not with its square
(memory/store/postgres/forgetting.py)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

import pytest

from tiermem.memory.embed.embeddings import HashingEmbedder
from tiermem.memory.hierarchy import HierarchicalMemory
from tiermem.memory.store.postgres import context_heirs
from tiermem.memory.store.postgres.backend import PostgresBackend
from tiermem.memory.store.postgres.schema_search import IN_CONTEXT
from tiermem.memory.store.records import Message

_ROLES = ("user", "assistant", "tool", "assistant", "user")


def _channel(backend: PostgresBackend, messages: int, per_turn: int = 0) -> list[int]:
    """A turn of ``messages`` messages (or turns of ``per_turn``): a tool result and empty
    replies among them, which give no context."""
    with backend.transaction():
        return backend.messages.append_many([
            Message(turn=i // per_turn if per_turn else 20, role=_ROLES[i % len(_ROLES)],
                    created_at=1.0,
                    content="" if i % 7 == 3 else f"line{i} fig")
            for i in range(messages)])


@contextlib.contextmanager
def channel_of(dsn: str, agent: str, messages: int,
               per_turn: int = 0) -> Iterator[tuple[PostgresBackend, list[int]]]:
    """The store of a new agent whose recall is one turn of ``messages`` (or turns of
    ``per_turn``; ``_channel``), and their ids."""
    with HierarchicalMemory(store=dsn, agent=agent, embedder=HashingEmbedder()) as memory:
        backend = memory.store
        assert isinstance(backend, PostgresBackend)
        yield backend, _channel(backend, messages, per_turn)


def _stale_contexts(backend: PostgresBackend) -> list[int]:
    """The messages whose stored context is not what a fresh computation gives."""
    return [int(r[0]) for r in backend.conn.execute(
        "SELECT m.id FROM tiermem.messages m"
        " LEFT JOIN LATERAL tiermem.message_context(m.agent_id, m.id) c ON true"
        " WHERE m.agent_id = %s AND (CASE WHEN " + IN_CONTEXT.format(r="m") +
        " THEN c.txt ELSE NULL END) IS DISTINCT FROM m.context_text",
        (backend.agent_id,)).fetchall()]


@pytest.mark.parametrize("chosen", [
    lambda ids: ids[::2],
    lambda ids: ids[3:40] + ids[55:56] + ids[-5:],
    lambda ids: [i for i in ids if i % 5 in (1, 2, 4)],
])
@pytest.mark.parametrize("heirs_found_by", ["one pass over the span", "a lookup each"])
def test_many_messages_forgotten_at_once_leave_each_heir_its_context(
        postgres_dsn: str, chosen: Callable[[list[int]], list[int]], heirs_found_by: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    if heirs_found_by == "a lookup each":  # as for a few messages spread over a long recall
        monkeypatch.setattr(context_heirs, "_SPAN_PER_MESSAGE", 0)
        monkeypatch.setattr(context_heirs, "_SPAN_ALWAYS_READ", 0)
    with HierarchicalMemory(store=postgres_dsn, agent="noisy",
                            embedder=HashingEmbedder()) as memory:
        backend = memory.store
        assert isinstance(backend, PostgresBackend)
        ids = _channel(backend, 80)
        with backend.transaction():
            backend.forgetting.forget((), (), ids[10:12], 1.0)  # forgotten before, named again
            done = backend.forgetting.forget((), (), chosen(ids) + ids[10:12], 2.0)
        assert set(done.messages) == set(chosen(ids)) - set(ids[10:12])
        assert _stale_contexts(backend) == []
        memory.recall.erase(ids[::3], "not to be kept")
        assert _stale_contexts(backend) == []


def _rows_read_forgetting(dsn: str, messages: int,
                          chosen: Callable[[list[int]], list[int]] = list) -> int:
    """Rows of recall's table read (by scans and index lookups) forgetting the ``chosen``
    messages (all unless told) of a turn of ``messages``, just written (the planner has no
    statistics of them)."""
    with channel_of(dsn, f"a{messages}", messages) as (backend, ids):
        with backend.transaction():
            before = _rows_read(backend)
            done = backend.forgetting.forget((), (), chosen(ids), 1.0)
            read = _rows_read(backend) - before
        assert list(done.messages) == chosen(ids)
        assert _stale_contexts(backend) == []
        return read


def _rows_read(backend: PostgresBackend) -> int:
    row = backend.conn.execute(
        "SELECT coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0)"
        " FROM pg_stat_xact_user_tables WHERE schemaname = 'tiermem'"
        " AND relname = 'messages'").fetchone()
    return int(row[0]) if row else 0


def test_forgetting_four_times_the_messages_reads_four_times_the_rows(
        postgres_dsn: str) -> None:
    # A trigger per message searched past the ones forgotten before it for the next in
    # context: four times the messages read sixteen times the rows.
    assert (_rows_read_forgetting(postgres_dsn, 1000)
            <= 5 * _rows_read_forgetting(postgres_dsn, 250))


def test_messages_spread_over_a_long_recall_are_looked_up_reading_it_once(
        postgres_dsn: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # A few messages over a long recall take a lookup each (as if the span were too long to
    # read), on rows just written, of which the planner has no statistics: each lookup read
    # every row past its message, so the messages forgotten multiplied the rows read.
    monkeypatch.setattr(context_heirs, "_SPAN_PER_MESSAGE", 0)
    monkeypatch.setattr(context_heirs, "_SPAN_ALWAYS_READ", 0)
    # Finding the heirs, marking the messages, and writing the heirs' contexts each read
    # recall about once; a lookup each past its message read it ten times over.
    assert _rows_read_forgetting(postgres_dsn, 5000, lambda ids: ids[5::100]) <= 4 * 5000
