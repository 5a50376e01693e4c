"""Erasing many of recall's messages at once in PostgreSQL: each message after them takes
the context a fresh computation gives it, and the work grows with the number erased, not
with its square (memory/store/postgres/context_heirs.py)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from test_postgres_forget_many import _channel, _stale_contexts, channel_of

from tiermem.memory.embed.embeddings import HashingEmbedder
from tiermem.memory.hierarchy import HierarchicalMemory
from tiermem.memory.store.postgres import context_heirs
from tiermem.memory.store.postgres.backend import PostgresBackend

_LOOKUPS = "a lookup each"


def _heirs_found_by(how: str, monkeypatch: pytest.MonkeyPatch) -> None:
    if how == _LOOKUPS:  # as for a few messages spread over a long recall
        monkeypatch.setattr(context_heirs, "_SPAN_PER_MESSAGE", 0)
        monkeypatch.setattr(context_heirs, "_SPAN_ALWAYS_READ", 0)


@pytest.mark.parametrize("chosen", [
    lambda ids: ids[::2],
    lambda ids: ids[3:40] + ids[55:56] + ids[-5:],
    lambda ids: [i for i in ids if i % 5 in (1, 2, 4)],
])
@pytest.mark.parametrize("heirs_found_by", ["one pass over the span", _LOOKUPS])
def test_many_messages_erased_at_once_leave_each_heir_its_context(
        postgres_dsn: str, chosen: Callable[[list[int]], list[int]], heirs_found_by: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    _heirs_found_by(heirs_found_by, monkeypatch)
    with HierarchicalMemory(store=postgres_dsn, agent="noisy",
                            embedder=HashingEmbedder()) as memory:
        backend = memory.store
        assert isinstance(backend, PostgresBackend)
        ids = _channel(backend, 80)
        backend.forgetting.forget((), (), ids[10:13], 1.0)  # erased too, forgotten before
        assert _stale_contexts(backend) == []
        erased = backend.messages.erase(chosen(ids) + ids[10:13], "not to be kept", 2.0)
        assert sorted(m.id for m in erased) == sorted(set(chosen(ids) + ids[10:13]))
        assert _stale_contexts(backend) == []
        assert memory.recall.erase(ids[1::3], "the heirs' new contexts hand on too") > 0
        assert _stale_contexts(backend) == []


def _blocks_read_erasing(dsn: str, messages: int, how: str,
                         monkeypatch: pytest.MonkeyPatch) -> int:
    """Blocks of recall's table and its indexes read erasing every message of a turn of
    ``messages``, just written (the planner has no statistics of them)."""
    _heirs_found_by(how, monkeypatch)
    with channel_of(dsn, f"a{messages}", messages) as (backend, ids):
        with backend.transaction():
            before = _blocks_read(backend)
            erased = backend.messages.erase(ids, "not to be kept", 1.0)
            read = _blocks_read(backend) - before
        assert len(erased) == messages and backend.messages.count() == 0
        return read


def _blocks_read(backend: PostgresBackend) -> int:
    """Blocks of recall's table and its indexes the transaction asked for (a deleted row
    an index scan passes is no row fetched, but its block is read)."""
    row = backend.conn.execute(
        "SELECT sum(pg_stat_get_xact_blocks_fetched(c.oid)) FROM pg_class c"
        " WHERE c.oid = 'tiermem.messages'::regclass OR c.oid IN"
        " (SELECT indexrelid FROM pg_index WHERE indrelid = 'tiermem.messages'::regclass)"
    ).fetchone()
    return int(row[0]) if row and row[0] is not None else 0


@pytest.mark.parametrize("heirs_found_by", ["one pass over the span", _LOOKUPS])
def test_erasing_four_times_the_messages_reads_four_times_the_blocks(
        postgres_dsn: str, heirs_found_by: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # A trigger per erased message searched past the ones the same DELETE had removed for
    # the next in context: four times the messages read sixteen times the blocks.
    assert (_blocks_read_erasing(postgres_dsn, 2000, heirs_found_by, monkeypatch)
            <= 5 * _blocks_read_erasing(postgres_dsn, 500, heirs_found_by, monkeypatch))
