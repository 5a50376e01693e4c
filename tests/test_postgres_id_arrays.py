"""The PostgreSQL store sends lists of ids as ``bigint[]``, the type of the columns it
compares them with. psycopg sends a list of small ints as ``smallint[]`` or ``integer[]``,
and a bigint column compared with ``= ANY`` of such an array is no hashed lookup: a scan
compares each row with the whole list (40,000 facts against 20,000 message ids: 2 s,
against 0.13 s as ``bigint[]``). The plan names the array's type, which is what is
checked: a count of the work the server is set to do, not a time."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from psycopg import sql

from tiermem.memory.embed.embeddings import HashingEmbedder
from tiermem.memory.hierarchy import HierarchicalMemory
from tiermem.memory.store.postgres.backend import PostgresBackend
from tiermem.memory.store.postgres.removal import delete_agent

#: An array constant compared with ``= ANY`` in an EXPLAIN (VERBOSE) plan, and its type.
_ARRAY_COMPARED = re.compile(r"(\w+) = ANY \('\{[^}]*\}'::(\w+)\[\]\)")
#: The connection's own ``execute``, which the fixture wraps.
_EXECUTE = psycopg.Connection.execute


@pytest.fixture
def statements(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[str, Any]]]:
    """Every statement holding ``= ANY`` run on a connection, with its parameters; one
    composed of parts (``psycopg.sql``) as the text the server is sent."""
    ran: list[tuple[str, Any]] = []
    def recorded(self: psycopg.Connection, query: Any, params: Any = None,
                 **kwargs: Any) -> Any:
        text = query.as_string(self) if isinstance(query, sql.Composable) else query
        if isinstance(text, str) and "= ANY(" in text:
            ran.append((text, params))
        return _EXECUTE(self, query, params, **kwargs)

    monkeypatch.setattr(psycopg.Connection, "execute", recorded)
    yield ran


def _compared_arrays(dsn: str, ran: list[tuple[str, Any]]) -> set[tuple[str, str]]:
    """The (column, array type) pairs the plans of ``ran`` compare with ``= ANY``."""
    found: set[tuple[str, str]] = set()
    with psycopg.connect(dsn) as conn:
        for query, params in ran:
            plan = "\n".join(str(row[0]) for row in _EXECUTE(
                conn, "EXPLAIN (VERBOSE) " + query, params))
            found.update(_ARRAY_COMPARED.findall(plan))
        conn.rollback()
    return found


def test_lists_of_ids_reach_the_server_as_bigint_arrays(
        postgres_dsn: str, statements: list[tuple[str, Any]]) -> None:
    with HierarchicalMemory(store=postgres_dsn, agent="ann",
                            embedder=HashingEmbedder()) as memory:
        memory.process_interaction("The deploy is on Friday.", "Noted.")
        memory.process_interaction("My sister lives in Lisbon.", "Good to know.")
        said = memory.store.messages.max_id() - 1
        memory.add_fact("Deploys happen on Fridays", source_message_id=said)
        memory.archival_insert("deploy calendar notes", source_message_id=said)
        assert memory.recall_search("deploy").hits
        memory.forget("sister")
        report = memory.erase(messages=[said, said - 2], reason="not to be kept")
        assert report.messages == 2 and report.facts >= 1 and report.passages >= 1
    compared = _compared_arrays(postgres_dsn, statements)
    # What the erasure reads: the facts learned and passages filed from the messages.
    assert ("source_message_id", "bigint") in compared
    assert {kind for _, kind in compared if kind != "text"} == {"bigint"}


def test_statements_given_lists_of_ids_are_planned_for_each_list(postgres_dsn: str) -> None:
    # psycopg prepares a statement on its fifth run on a connection, and PostgreSQL may
    # then run the prepared one's generic plan, in which ``= ANY`` of a parameter compares
    # each row with the whole list (memory/store/postgres/scope.py, ``execute``). A
    # statement the server never prepared has no generic plan.
    with HierarchicalMemory(store=postgres_dsn, agent="ann",
                            embedder=HashingEmbedder()) as memory:
        said = [memory.recall.append("user", f"note{n} quince{n}", n) for n in range(36)]
        for n, message in enumerate(said):
            memory.add_fact(f"Deploy{n} happens on Fridays", source_message_id=message)
        # One removal after another, no search between (a search's ROLLBACK empties
        # psycopg's cache of prepared statements).
        for first in range(0, 24, 2):
            report = memory.erase(messages=said[first:first + 2], reason="expired")
            assert report.messages == 2 and report.facts == 2
        backend = memory.store
        assert isinstance(backend, PostgresBackend)
        for message in said[24:]:
            facts = backend.facts.learned_from([message])
            assert backend.forgetting.forget(facts, (), [message], 9.0).messages == (message,)
        prepared = [str(r[0]) for r in backend.conn.execute(
            "SELECT statement FROM pg_prepared_statements").fetchall()]
    assert any("INSERT INTO tiermem.erasures" in s for s in prepared), "others are prepared"
    assert [s for s in prepared if "= ANY(" in s] == []


def test_a_deleted_agents_statistics_are_compared_with_an_integer_array(
        postgres_dsn: str, statements: list[tuple[str, Any]]) -> None:
    with HierarchicalMemory(store=postgres_dsn, agent="gone",
                            embedder=HashingEmbedder()) as memory:
        memory.archival_insert("deploy calendar notes")
    statements.clear()
    delete_agent(postgres_dsn, "gone")
    # agent_id is an integer column; its statistics' rows are deleted by it.
    assert _compared_arrays(postgres_dsn, statements) == {("agent_id", "integer")}
