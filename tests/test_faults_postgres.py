"""The SIGKILL loops on PostgreSQL (`tiermem benchmark --faults --only kill-pg`).

A few seeded kills of each workload against the test server must leave nothing
for the audit to find; and the audit must find what is broken on purpose (a
row without its vector, BM25 counters that disagree with the rows, an erasure
left owed), so its silence means something.
"""

from __future__ import annotations

import itertools
import os
import signal
from collections import Counter
from collections.abc import Iterator, Sequence
from typing import Any

import pytest
from backends import unavailable

from tiermem.bench import fault_kill, fault_kill_child, fault_kill_pg
from tiermem.bench.fault_audit import audit
from tiermem.bench.fault_kill_child import open_memory, talk_text
from tiermem.bench.fault_os import Report, run_forked
from tiermem.bench.fault_result import FaultResult
from tiermem.bench.postgres_only import PgAgent, agent_exists
from tiermem.memory.errors import UnfinishedRestoreError
from tiermem.memory.ops.erase import promise_erasure
from tiermem.memory.store.postgres.backend import PostgresBackend
from tiermem.memory.store.records import DUMP_TABLES, RESTORING_KEY, DumpRow, DumpTable
from tiermem.memory.store.transfer import open_backend
from tiermem.memory.tiers.archival import ArchivalTier

pytestmark = pytest.mark.skipif(unavailable("postgres") is not None,
                                reason=unavailable("postgres") or "")


@pytest.fixture(autouse=True)
def _quiet_engine() -> Iterator[None]:
    from tiermem.bench.faults import _quiet_engine

    with _quiet_engine():
        yield


@pytest.mark.slow
def test_seeded_kills_of_every_workload_leave_nothing_to_find(postgres_server: str) -> None:
    rows = fault_kill_pg.run_kill_pg(0, True, trials=4, server=postgres_server)
    assert [row.name for row in rows] == [fault_kill_pg.label(name)
                                          for name in fault_kill_pg.PG_WORKLOADS]
    for row in rows:
        assert row.trials == 4 and not row.skipped
        assert row.figures["kills_from_inside"] + row.figures["kills_after_reports"] == 4
        assert row.passed, (row.name, row.notes)
    assert sum(row.figures["ops_reported_committed"] for row in rows) > 0


def test_a_restore_killed_after_marking_its_agent_is_restored_again(
        postgres_dsn: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # Killed at its first row, inside its transaction: the mark committed before it stays
    # (every open says UnfinishedRestoreError), and restoring again, as the error says,
    # writes the agent whole. That state is documented, not a half-restored memory.
    snapshot = fault_kill._seed_snapshot(postgres_dsn)
    parent = os.getpid()
    real_import, real_restore = PostgresBackend.import_rows, fault_kill_child.restore

    def import_rows(self: PostgresBackend, table: DumpTable, rows: Sequence[DumpRow]) -> None:
        if os.getpid() != parent:  # the forked writer only
            os.kill(os.getpid(), signal.SIGKILL)
        real_import(self, table, rows)

    marks: list[str | None] = []

    def restore(snapshot: dict[str, Any], target: PgAgent) -> Any:
        if os.getpid() == parent:
            store = open_backend(target.dsn, target.agent, read_only=True)
            try:
                marks.append(store.settings.get(RESTORING_KEY))
            finally:
                store.close()
        return real_restore(snapshot, target)

    monkeypatch.setattr(PostgresBackend, "import_rows", import_rows)
    monkeypatch.setattr(fault_kill_child, "restore", restore)
    result = FaultResult("kill pg: snapshot restore", "kill")
    assert fault_kill._restore_trial(snapshot, postgres_dsn, 0, None, None, result) == 0
    assert result.passed, result.notes
    assert marks == ["a snapshot"]  # restored again over the mark, once
    with open_memory(PgAgent(postgres_dsn, "r0o0")) as memory:
        assert memory.snapshot()["tables"] == snapshot["tables"]


@pytest.mark.slow
def test_a_restore_killed_at_any_statement_before_its_rows_commit_leaves_a_marked_agent_or_none(
        postgres_dsn: str) -> None:
    # Killed before each statement in turn, from its first to the COMMIT of its rows: the
    # new agent is not there, or it is marked (every open says so) and a restore again
    # fills it. Never an empty agent that opens as a memory.
    snapshot = fault_kill._seed_snapshot(postgres_dsn)
    outcomes: Counter[str] = Counter()
    for at in itertools.count(1):
        target = PgAgent(postgres_dsn, f"k{at}")

        def work(report: Report, at: int = at, target: PgAgent = target) -> None:
            fault_kill_child.Tripwire(at).arm()
            fault_kill_child.restore(snapshot, target).close()
            report("restored")

        outcome = run_forked(work)
        assert outcome.killed, (at, outcome)
        if not agent_exists(target):
            outcomes["no agent"] += 1
            continue
        store = open_backend(target.dsn, target.agent, read_only=True)
        try:
            mark = store.settings.get(RESTORING_KEY)
            rows = sum(1 for table in DUMP_TABLES for _ in store.export_rows(table))
        finally:
            store.close()
        if mark is None:  # the rows committed: the kill came after the restore's last step
            assert rows > 0, f"killed before statement {at}: an empty agent, unmarked"
            with open_memory(target) as memory:
                assert memory.snapshot()["tables"] == snapshot["tables"]
            break
        assert rows == 0, (at, rows)
        outcomes["marked"] += 1
        with pytest.raises(UnfinishedRestoreError, match="run the restore again"):
            open_memory(target)
        fault_kill_child.restore(snapshot, target).close()
        with open_memory(target) as memory:
            assert memory.snapshot()["tables"] == snapshot["tables"]
    # Killed before the agent's creation commits, and at each statement after it.
    assert outcomes["no agent"] > 0 and outcomes["marked"] > 10, outcomes


def test_a_row_stripped_of_its_vector_is_reported(postgres_server: str,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    real = ArchivalTier.insert_many

    def strip_vectors(self: ArchivalTier, items: Any) -> list[int]:
        ids = real(self, items)
        # Broken on purpose: the vectors go, behind the engine's back, once committed.
        store = self.store
        assert isinstance(store, PostgresBackend)
        store.conn.execute("UPDATE tiermem.passages SET embedding = NULL "
                           "WHERE agent_id = %s AND id = ANY(%s)", (store.agent_id, ids))
        return ids

    monkeypatch.setattr(ArchivalTier, "insert_many", strip_vectors)
    [row] = fault_kill_pg.run_kill_pg(0, True, trials=2, server=postgres_server,
                                      names=("batches",))
    assert row.diverged > 0 and not row.passed
    assert "have no vector" in row.first_problem()


def test_counters_that_disagree_with_the_rows_are_reported(postgres_dsn: str) -> None:
    with open_memory(PgAgent(postgres_dsn, "planted")) as memory:
        memory.archival_insert("A passage about the eu-west-1 region [b1o1]")
        memory.add_fact("The production region is eu-west-1 [b1o2]", "durable")
        assert audit(memory) == []
        store = memory.store
        assert isinstance(store, PostgresBackend)
        # Broken on purpose: a row deleted with the triggers that count it switched off.
        store.conn.execute("ALTER TABLE tiermem.passages DISABLE TRIGGER USER")
        store.conn.execute("DELETE FROM tiermem.passages WHERE agent_id = %s",
                           (store.agent_id,))
        store.conn.execute("ALTER TABLE tiermem.passages ENABLE TRIGGER USER")
        problems = audit(memory)
    assert any("passages: text_stats" in p for p in problems), problems
    assert any("lexeme_stats differ" in p for p in problems), problems


def test_without_a_server_the_class_is_skipped_saying_what_to_install(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fault_kill_pg, "unavailable", lambda: "psycopg not installed: pip ...")
    rows = fault_kill_pg.run_kill_pg(0, True)
    assert len(rows) == len(fault_kill_pg.PG_WORKLOADS)
    assert all(row.skipped == "psycopg not installed: pip ..." and row.passed for row in rows)


def test_an_erasure_left_owed_is_reported(postgres_dsn: str) -> None:
    with open_memory(PgAgent(postgres_dsn, "owed")) as memory:
        memory.process_interaction(talk_text("b1o1"), "Noted [b1o1].")
        # Broken on purpose: an erasure marked owed that the open did not finish.
        with memory.store.transaction():
            promise_erasure(memory.store, 1)
        problems = audit(memory)
    assert any("still owed" in p for p in problems), problems
