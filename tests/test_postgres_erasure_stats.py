"""An erasure on PostgreSQL leaves the erased text in no statistic a query reads: ``pg_stats``
shows a column's most common values and histogram bounds (whole messages, facts, words) to
any role that may read the table, so the vacuum after it analyzes the tables too, and clears
an emptied table's. A role that does not own the tables has the vacuum skipped, and the
erasure's report says so instead of claiming a vacuum that did not happen."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import psycopg
import pytest
from psycopg.conninfo import make_conninfo

from tiermem.cli import main
from tiermem.memory.embed.embeddings import HashingEmbedder
from tiermem.memory.hierarchy import HierarchicalMemory

CANARY = "canary-quokka-zulu"


def _open(dsn: str, agent: str = "alice") -> HierarchicalMemory:
    return HierarchicalMemory(store=dsn, agent=agent, embedder=HashingEmbedder())


def _stats_showing(dsn: str, text: str) -> list[tuple[str, str]]:
    """The (table, column) pairs of schema tiermem whose pg_stats values hold ``text``."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT tablename, attname, concat(most_common_vals::text, "
            "histogram_bounds::text, most_common_elems::text) FROM pg_stats "
            "WHERE schemaname = 'tiermem'").fetchall()
    return [(table, column) for table, column, values in rows if text in values]


def _analyze(dsn: str) -> None:
    """What autovacuum does to a table that has grown."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("ANALYZE")


def test_an_erased_text_leaves_the_planner_statistics(postgres_dsn: str) -> None:
    with _open(postgres_dsn) as memory:
        for i in range(20):
            memory.process_interaction(f"an ordinary remark number {i}", "ok")
        memory.process_interaction(f"My locker code is {CANARY}.", "Noted.")
        _analyze(postgres_dsn)
        shown = _stats_showing(postgres_dsn, "quokka")
        assert ("messages", "content") in shown and ("lexeme_stats", "lexeme") in shown

        result = memory.forget(f"My locker code is {CANARY}.", erase=True)
        assert result.outcome == "matched" and result.forgotten.messages

        assert _stats_showing(postgres_dsn, "quokka") == []
        # The rows left are still described: the analyze rebuilt what it cleared.
        assert _stats_showing(postgres_dsn, "ordinary remark")


def test_a_table_the_erasure_empties_keeps_no_statistics(postgres_dsn: str) -> None:
    with _open(postgres_dsn) as memory:
        ids = [memory.add_fact(f"the vault opens with {CANARY} number {i}", "durable")
               for i in range(3)]
        _analyze(postgres_dsn)
        assert ("facts", "text") in _stats_showing(postgres_dsn, CANARY)
        with psycopg.connect(postgres_dsn) as conn:
            found = conn.execute("SELECT to_regprocedure('pg_catalog.pg_clear_attribute_stats"
                                 "(text,text,text,boolean)')").fetchone()
        if found is None or found[0] is None:
            pytest.skip("the server cannot clear a table's statistics (PostgreSQL 18 can)")

        report = memory.erase(facts=ids, reason="asked")
        assert report.facts == 3

    assert _stats_showing(postgres_dsn, CANARY) == []


def test_drop_agent_leaves_nothing_of_it_in_the_statistics(
        postgres_dsn: str, capsys: pytest.CaptureFixture[str]) -> None:
    with _open(postgres_dsn, "bob") as memory:
        memory.process_interaction(f"My locker code is {CANARY}.", "Noted.")
    with _open(postgres_dsn, "carol") as memory:
        for i in range(20):
            memory.process_interaction(f"an ordinary remark number {i}", "ok")
    _analyze(postgres_dsn)
    assert _stats_showing(postgres_dsn, "quokka")

    assert main(["drop-agent", "--agent", "bob", "--store", postgres_dsn, "--yes"]) == 0

    assert _stats_showing(postgres_dsn, "quokka") == []
    assert "not reached" not in capsys.readouterr().err


@pytest.fixture
def writing_role(postgres_dsn: str) -> Iterator[str]:
    """A DSN of a new role that may read and write tiermem's tables but owns none of them."""
    with _open(postgres_dsn, "made-by-the-owner"):
        pass  # the schema, made by the owner
    name = f"writer_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(postgres_dsn, autocommit=True) as admin:
        try:
            admin.execute(f"CREATE ROLE {name} LOGIN")
        except psycopg.errors.InsufficientPrivilege:
            pytest.skip("the test server's user may not create roles")
        admin.execute(f"GRANT USAGE ON SCHEMA tiermem TO {name}")
        admin.execute(f"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA tiermem "
                      f"TO {name}")
        admin.execute(f"GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA tiermem "
                      f"TO {name}")
    yield make_conninfo(postgres_dsn, user=name)
    with psycopg.connect(postgres_dsn, autocommit=True) as admin:
        admin.execute(f"DROP OWNED BY {name}")
        admin.execute(f"DROP ROLE {name}")


def test_a_vacuum_the_role_may_not_run_is_reported(writing_role: str) -> None:
    with _open(writing_role, "dana") as memory:
        memory.process_interaction(f"My locker code is {CANARY}.", "Noted.")
        result = memory.forget(f"My locker code is {CANARY}.", erase=True)

    assert result.erasure is not None
    said = " ".join(result.erasure.not_reached)
    assert "skipped the VACUUM and ANALYZE" in said and "messages" in said
    assert "VACUUM (ANALYZE)" in said
