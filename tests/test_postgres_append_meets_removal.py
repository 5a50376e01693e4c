"""A message another PostgreSQL connection erases or forgets while the store appends the
next one leaves no trace in the new message's context (``context_text``), whichever of the
two transactions began first: the append locks the message its context comes from
(memory/store/postgres/messages.py, ``_LOCK_CONTEXT_SOURCE``)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator

import psycopg
import pytest
from test_postgres_written_in_sql import _backend, _erase, _forget

from tiermem.memory.embed.embeddings import HashingEmbedder
from tiermem.memory.hierarchy import HierarchicalMemory

TakeOut = Callable[[psycopg.Connection, int, list[int]], None]
#: Enough rounds for any wait to show; reaching it means neither side moved.
_MAX_ROUNDS = 20_000


@pytest.fixture
def memory(postgres_dsn: str) -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(store=postgres_dsn, agent="bob",
                            embedder=HashingEmbedder()) as opened:
        yield opened


def _waits_on(admin: psycopg.Connection, waiter: int, holder: int,
              thread: threading.Thread) -> bool:
    """Whether backend ``waiter`` comes to wait for a lock ``holder`` holds before
    ``thread`` (which runs ``waiter``'s statement) ends: the server says which backends
    block which, so no timing decides it."""
    for _ in range(_MAX_ROUNDS):
        blocked_by = admin.execute("SELECT pg_blocking_pids(%s)", (waiter,)).fetchone()
        if blocked_by is not None and holder in blocked_by[0]:
            return True
        if not thread.is_alive():
            return False
        thread.join(0.001)  # a pause between questions, not a bound on the answer
    raise AssertionError("neither connection moved")


def _context(memory: HierarchicalMemory, message: int) -> str | None:
    backend = _backend(memory)
    row = backend.conn.execute(
        "SELECT context_text FROM tiermem.messages WHERE agent_id = %s AND id = %s",
        (backend.agent_id, message)).fetchone()
    assert row is not None
    return row[0]


@pytest.mark.parametrize("take_out", [_erase, _forget], ids=["erased", "forgotten"])
def test_an_append_waits_for_a_removal_begun_before_it(
        memory: HierarchicalMemory, postgres_dsn: str, take_out: TakeOut) -> None:
    kept = memory.recall.append("user", "the deploy window is friday", 1)
    secret = memory.recall.append("assistant", "the root password is hunter2", 1)
    appended: list[int] = []
    thread = threading.Thread(
        target=lambda: appended.append(memory.recall.append("user", "thanks", 2)))
    with psycopg.connect(postgres_dsn) as admin, psycopg.connect(postgres_dsn) as other:
        take_out(other, _backend(memory).agent_id, [secret])  # its transaction stays open
        thread.start()
        waited = _waits_on(admin, _backend(memory).conn.info.backend_pid,
                           other.info.backend_pid, thread)
        other.commit()
        thread.join()
    assert _context(memory, appended[0]) == "the deploy window is friday"
    assert [hit.id for hit in memory.recall.search("hunter2", k=5)] == []
    assert waited  # the append saw the removal only once it had committed
    assert kept in [hit.id for hit in memory.recall.search("deploy window", k=5)]


@pytest.mark.parametrize("take_out", [_erase, _forget], ids=["erased", "forgotten"])
def test_a_removal_waits_for_an_append_begun_before_it(
        memory: HierarchicalMemory, postgres_dsn: str, take_out: TakeOut) -> None:
    memory.recall.append("user", "the deploy window is friday", 1)
    secret = memory.recall.append("assistant", "the root password is hunter2", 1)
    agent = _backend(memory).agent_id
    with psycopg.connect(postgres_dsn) as admin, psycopg.connect(postgres_dsn) as other:
        thread = threading.Thread(target=lambda: take_out(other, agent, [secret]))
        with memory.store.transaction():
            appended = memory.recall.append("user", "thanks", 2)
            thread.start()
            waited = _waits_on(admin, other.info.backend_pid,
                               _backend(memory).conn.info.backend_pid, thread)
        thread.join()
        other.commit()
    assert _context(memory, appended) == "the deploy window is friday"
    assert [hit.id for hit in memory.recall.search("hunter2", k=5)] == []
    assert waited  # the removal found the append's message only once it had committed
