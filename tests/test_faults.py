"""The fault harness (`tiermem benchmark --faults`).

Every class runs here in a tiny configuration and must produce a well-formed
row; and each kind of finding (a lost write, a divergence, a crash) is shown
to be reported when the engine is broken on purpose, so a passing row means
something.
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

import tiermem.cli as cli
from tiermem.agent.loop import Agent
from tiermem.bench import fault_fuzz, fault_kill, fault_provider
from tiermem.bench.fault_disk import run_disk
from tiermem.bench.fault_files import damaged_wal, garbled_faiss, replaced_database
from tiermem.bench.fault_fuzz import fuzz_dispatch, fuzz_loop
from tiermem.bench.fault_kill_child import UNIT_FACTS, open_memory
from tiermem.bench.fault_os import tmpfs
from tiermem.bench.fault_readonly import run_readonly
from tiermem.bench.fault_result import FaultResult
from tiermem.bench.fault_snapshot import fuzz_snapshot
from tiermem.bench.fault_snapshot_file import damaged_snapshots, kill_snapshot_writes
from tiermem.bench.faults import CLASSES, print_table, report_json, select_classes
from tiermem.memory import HierarchicalMemory
from tiermem.memory.store.sqlite.vectors import FaissIndex
from tiermem.memory.tiers.archival import ArchivalTier

COUNTS = ("trials", "clear_errors", "crashes", "lost", "diverged")


def check_row(row: FaultResult) -> None:
    """A row the table and the JSON can show: counts that add up, a verdict that follows."""
    record = row.to_dict()
    assert all(isinstance(record[key], int) and record[key] >= 0 for key in COUNTS)
    assert row.skipped or row.trials > 0, row.name
    assert record["passed"] == (row.crashes == row.lost == row.diverged == 0)
    for kind, expected in (("crash", row.crashes), ("lost", row.lost),
                           ("diverged", row.diverged)):
        assert bool(row.notes.get(kind)) == bool(expected), (row.name, kind, row.notes)
    json.dumps(record)


@pytest.fixture(autouse=True)
def _quiet_engine() -> Iterator[None]:
    from tiermem.bench.faults import _quiet_engine

    with _quiet_engine():
        yield


# -- every class, tiny ---------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("workload", ["turns", "batches", "reindex", "restore"])
def test_each_sigkill_workload_reports_a_row(workload: str) -> None:
    row = fault_kill.run_kill(workload, seed=0, quick=True, trials=3)
    check_row(row)
    assert row.trials == 3
    assert row.figures["kills_from_inside"] + row.figures["kills_after_reports"] == 3
    assert row.passed, row.notes
    if workload in ("turns", "batches"):
        assert row.figures["ops_reported_committed"] > 0


@pytest.mark.slow
def test_file_damage_classes_report_rows() -> None:
    for row in (garbled_faiss(0, True, trials=2), replaced_database(0, True, trials=1),
                damaged_wal(0, True, trials=2)):
        check_row(row)
        assert row.passed, row.notes
    wal = damaged_wal(1, True, trials=2)
    assert wal.passed, wal.notes
    assert wal.figures["units_written"] > 0


def test_disk_full_injected_at_commit_reports_a_row() -> None:
    row = run_disk(0, True, trials=2, force_injected=True)
    check_row(row)
    assert row.figures["mode"] == "injected SQLITE_FULL"
    assert row.figures["writes_failed_for_space"] == 2
    assert row.crashes == 0 and row.clear_errors == 2, row.notes  # StoreFullError each time
    assert row.passed, row.notes


def test_disk_full_on_a_real_tmpfs_when_the_machine_allows_it() -> None:
    with tmpfs("1m") as mount:
        if mount is None:
            pytest.skip("mounting a tmpfs needs root on Linux")
    row = run_disk(0, True, trials=1)
    check_row(row)
    assert row.figures["mode"].startswith("tmpfs")
    assert row.passed, row.notes


def test_read_only_home_reports_a_row() -> None:
    row = run_readonly(0, True, homes=1)
    check_row(row)
    if row.skipped:  # root without a tmpfs: said as a skip, not passed having checked nothing
        pytest.skip(f"the read-only class skipped itself: {row.skipped}")
    assert row.trials >= 4
    assert row.passed, row.notes


def test_fuzzers_report_rows() -> None:
    from tiermem.bench.fault_cli import fuzz_cli

    rows = [fuzz_dispatch(0, True, examples=15), fuzz_loop(0, True, examples=6),
            fuzz_cli(0, True, examples=10)]
    for row in rows:
        check_row(row)
        assert row.trials >= 6
        assert row.passed, row.notes


@pytest.mark.slow
def test_snapshot_fuzzer_runs_the_known_attacks_then_mutations() -> None:
    from tiermem.bench.fault_snapshot import ATTACKS

    row = fuzz_snapshot(0, True, examples=4)
    check_row(row)
    assert row.trials == len(ATTACKS) + 4
    assert row.passed, row.notes


def test_snapshot_file_classes_report_rows() -> None:
    from tiermem.bench.fault_snapshot_file import DAMAGES, REFUSED

    killed = kill_snapshot_writes(0, True, trials=6)
    check_row(killed)
    assert killed.trials == 6 and killed.passed, killed.notes
    assert killed.figures["kills_from_inside"] + killed.figures["kills_after_reports"] == 6
    damaged = damaged_snapshots(0, True)
    check_row(damaged)
    assert damaged.figures["damage"] == dict.fromkeys(DAMAGES, 1)
    assert damaged.clear_errors >= len(REFUSED) and damaged.passed, damaged.notes


def test_a_snapshot_written_in_place_is_reported_half_written(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A writer that writes over the file instead of renaming a whole one into place: a
    kill leaves half a snapshot, which the class must count."""
    from collections.abc import Iterable

    import tiermem.memory.output_file as output_file

    def in_place(path: Path, pieces: Iterable[str], private: bool = False) -> None:
        with path.open("w") as stream:
            for piece in pieces:
                stream.write(piece)
                stream.flush()

    monkeypatch.setattr(output_file, "write_atomic_pieces", in_place)
    row = kill_snapshot_writes(0, True, trials=8)
    assert not row.passed and row.crashes == 0, row.to_dict()
    # Killed in its first write, or in a later one over the snapshot it reported written.
    found = row.notes.get("diverged", []) + row.notes.get("lost", [])
    assert any("not the one there before or the new one whole" in note
               or "reported written is not the one written" in note for note in found), found


def test_a_refused_restore_that_changed_the_memory_is_reported(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import tiermem.memory.ops.snapshot as snapshot

    read = snapshot.read_snapshot

    def written_first(source: Any, progress: Any = None) -> Any:
        with open_memory(Path(os.environ["TIERMEM_HOME"]) / "agents" / "ada") as memory:
            memory.add_fact("written before the file was checked", "durable")
        return read(source, progress)

    monkeypatch.setattr(snapshot, "read_snapshot", written_first)
    row = damaged_snapshots(0, True, trials=2)
    assert row.diverged == 2, row.to_dict()
    assert "refused, yet the agent's memory changed" in row.first_problem()


def test_provider_chaos_reports_a_row_per_kind(capsys: pytest.CaptureFixture[str]) -> None:
    rows = fault_provider.run_provider(0, True, trials=1)
    # The REPL's messages to its user are the trial's: the report's output holds the table.
    assert capsys.readouterr().err == ""
    assert [row.name for row in rows] == [f"provider: {kind}" for kind in fault_provider.KINDS]
    for row in rows:
        check_row(row)
    held = {row.name: row for row in rows}
    for row in rows:
        assert row.passed, row.notes
    for kind in ("HTTP 500", "HTTP 429", "truncated body", "hang"):
        assert held[f"provider: {kind}"].passed, held[f"provider: {kind}"].notes
        assert held[f"provider: {kind}"].clear_errors == 1


def test_the_engine_s_warnings_stay_out_of_the_fault_report(
        caplog: pytest.LogCaptureFixture) -> None:
    # A damaged index rebuilt on purpose warns each time; the table reports it instead.
    from tiermem.bench.faults import _quiet_engine

    with _quiet_engine():
        logging.getLogger("tiermem.memory.store.sqlite.vectors").warning("index rebuilt")
    assert not [r for r in caplog.records if r.getMessage() == "index rebuilt"]


# -- the harness finds what it is meant to find ----------------------------------------------
@pytest.mark.slow
def test_a_write_the_engine_drops_is_reported_lost(monkeypatch: pytest.MonkeyPatch) -> None:
    real = ArchivalTier.insert_many

    def drop_after_commit(self: ArchivalTier, items: Any) -> list[int]:
        ids = real(self, items)
        # Broken on purpose: the passage is deleted again, yet reported as filed.
        for passage_id in ids:
            self.store.execute("DELETE FROM passages WHERE id = ?", (passage_id,))
        return ids

    monkeypatch.setattr(ArchivalTier, "insert_many", drop_after_commit)
    row = fault_kill.run_kill("batches", seed=0, quick=True, trials=3)
    assert row.lost > 0
    assert not row.passed


def test_a_half_written_unit_is_reported() -> None:
    with open_memory(None) as memory:  # type: ignore[arg-type]
        for j in range(UNIT_FACTS // 2):
            memory.add_fact(f"Unit fact [b1o1] item {j}", "durable")
        lost, torn = fault_kill._batch_units(memory, [("unit", "b1o1")])
    assert lost == ["unit b1o1"]
    assert torn and "b1o1" in torn[0]


@pytest.mark.slow
def test_an_index_that_disagrees_with_sqlite_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    real = FaissIndex.rebuild

    def rebuild_one_short(self: FaissIndex) -> None:
        real(self)
        if self.index.ntotal:  # broken on purpose: the newest vector is left out
            self.index.remove_ids(_last_id(self))

    monkeypatch.setattr(FaissIndex, "rebuild", rebuild_one_short)
    row = damaged_wal(0, True, trials=1)
    assert row.diverged > 0
    assert "with a vector in SQLite but not in FAISS" in row.first_problem()


def _last_id(index: FaissIndex) -> Any:
    import faiss
    import numpy as np

    return np.asarray([faiss.vector_to_array(index.index.id_map)[-1]], dtype=np.int64)


def test_a_tool_that_raises_unexpectedly_is_a_crash(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: Any, **kwargs: Any) -> None:
        raise KeyError("broken on purpose")

    from hypothesis import strategies as st

    # Core edits look up the last event first; with this, each valid edit call fails. The
    # calls are one valid edit, so the test does not rest on a few fuzzed calls being valid.
    monkeypatch.setattr(HierarchicalMemory, "last_event_id", broken)
    monkeypatch.setattr(fault_fuzz, "tool_calls", lambda: st.just(
        ("core_memory_append", {"content": "User likes green tea", "durability": "durable"})))
    row = fuzz_dispatch(0, True, examples=5)
    assert any("raised KeyError" in note for note in row.notes["crash"]), row.notes


def test_a_failed_turn_that_keeps_data_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    real = Agent.step

    def leaky_step(self: Agent, text: str) -> Any:
        # Broken on purpose: a passage filed before the turn fails survives the failure.
        self.memory.archival_insert(f"Leaked before the failure: {text}")
        return real(self, text)

    monkeypatch.setattr(Agent, "step", leaky_step)
    rows = fault_provider.run_provider(0, True, trials=1)
    assert rows[0].diverged > 0
    assert "changed stored data" in rows[0].first_problem()


# -- the command ---------------------------------------------------------------------------
def test_the_table_and_json_show_every_row(tmp_path: Path) -> None:
    ok, bad, skipped = FaultResult("a", "g", trials=3), FaultResult("b", "g", trials=2), \
        FaultResult("c", "g")
    bad.lose("committed op x is missing")
    skipped.skipped = "not here"
    console = Console(file=io.StringIO(), width=100)
    print_table(console, [ok, bad, skipped], 1.0, "fault harness")
    text = console.file.getvalue()  # type: ignore[attr-defined]
    for word in ("fault class", "trials", "crashes", "lost", "diverged", "pass", "FAIL",
                 "skipped", "committed op x is missing", "1 of 3 fault classes failed; 1 skipped"):
        assert word in text
    # Without the failure, the class that skipped is not counted among those that passed.
    console = Console(file=io.StringIO(), width=100)
    print_table(console, [ok, skipped], 1.0, "fault harness")
    text = console.file.getvalue()  # type: ignore[attr-defined]
    assert "all 1 fault classes that ran passed; 1 skipped" in text
    assert "all 2 fault classes passed" not in text
    report = json.loads(json.dumps(report_json([ok, bad, skipped], seed=1)))
    assert report["passed"] is False
    assert [c["name"] for c in report["classes"]] == ["a", "b", "c"]
    assert report["classes"][1]["lost"] == 1


def test_benchmark_faults_on_the_command_line(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "faults.json"
    code = cli.main(["benchmark", "--faults", "--quick", "--only", "fuzz-cli",
                     "--json", str(out)])
    report = json.loads(out.read_text())
    assert [c["name"] for c in report["classes"]] == ["fuzz: CLI arguments"]
    assert code == (0 if report["passed"] else 1)
    assert "fuzz: CLI arguments" in capsys.readouterr().out


def test_benchmark_faults_json_on_standard_output(capsys: pytest.CaptureFixture[str]) -> None:
    code = cli.main(["benchmark", "--faults", "--quick", "--only", "fuzz-cli", "--json"])
    captured = capsys.readouterr()
    report = json.loads(captured.out)
    assert [c["name"] for c in report["classes"]] == ["fuzz: CLI arguments"]
    assert code == (0 if report["passed"] else 1)
    assert "fuzz: CLI arguments" in captured.err


def test_benchmark_faults_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["benchmark", "--faults", "--only", "no-such-class"]) == 2
    assert "choose from" in capsys.readouterr().err
    assert cli.main(["benchmark", "--faults", "--perf"]) == 2
    assert "--faults and --perf are separate runs" in capsys.readouterr().err
    # Perf options without --perf: the message names them, not a --perf never given.
    assert cli.main(["benchmark", "--faults", "--recall-dense"]) == 2
    assert capsys.readouterr().err == ("tiermem: --recall-dense goes with --perf, not --faults; "
                                       "drop it, or run --perf instead\n")
    assert cli.main(["benchmark", "--faults", "--sizes", "1000", "--recall-dense"]) == 2
    assert "--sizes and --recall-dense go with --perf" in capsys.readouterr().err
    assert select_classes(None) == list(CLASSES)
    assert select_classes(["provider,kill-turns"]) == ["kill-turns", "provider"]


def test_a_class_whose_harness_raises_is_a_crashed_row(monkeypatch: pytest.MonkeyPatch) -> None:
    from tiermem.bench import faults

    def boom(seed: int, quick: bool) -> list[FaultResult]:
        raise RuntimeError("harness bug")

    monkeypatch.setitem(faults.CLASSES, "provider", ("provider chaos", boom))
    with contextlib.redirect_stdout(io.StringIO()):
        rows = faults.run_faults(only=["provider"])
    assert len(rows) == 1 and rows[0].crashes == 1 and "harness bug" in rows[0].first_problem()
