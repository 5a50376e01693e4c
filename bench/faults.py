"""``tiermem benchmark --faults``: the fault harness, one table row per fault class.

Every class drives the real engine under one kind of fault and counts trials,
clear errors (documented exceptions, ``Error:`` tool messages), crashes (any
other exception or a traceback), data lost (committed operations missing)
and data diverged (FAISS and SQLite disagreeing, a limit broken, a unit of
writes half there, a search answering data that was never committed or was
replaced). A class passes with 0 crashes, 0 lost and 0 diverged.
"""

from __future__ import annotations

import contextlib
import importlib.util
import logging
import time
import traceback
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from tiermem.bench.fault_result import FaultResult, describe

Runner = Callable[[int, bool], list[FaultResult]]


def _one(module: str, function: str, *args: Any) -> Runner:
    """A class whose ``module.function(*args, seed, quick)`` returns its row.

    ``module`` is named relative to this package (``.fault_kill``).
    """
    def run(seed: int, quick: bool) -> list[FaultResult]:
        found = importlib.import_module(module, __package__)
        return [getattr(found, function)(*args, seed, quick)]
    return run


def _fuzz(function: str, label: str, module: str = ".fault_fuzz") -> Runner:
    def run(seed: int, quick: bool) -> list[FaultResult]:
        if importlib.util.find_spec("hypothesis") is None:
            skipped = FaultResult(label, "fuzz")
            skipped.skipped = "needs hypothesis: pip install -e '.[test]' in the tiermem checkout"
            return [skipped]
        return _one(module, function)(seed, quick)
    return run


def _kill_pg(seed: int, quick: bool) -> list[FaultResult]:
    from tiermem.bench.fault_kill_pg import run_kill_pg

    return run_kill_pg(seed, quick)


def _provider(seed: int, quick: bool) -> list[FaultResult]:
    from tiermem.bench.fault_provider import run_provider

    return run_provider(seed, quick)


CLASSES: dict[str, tuple[str, Runner]] = {
    "kill-turns": ("kill: agent turns", _one(".fault_kill", "run_kill", "turns")),
    "kill-batches": ("kill: batches and erasures",
                     _one(".fault_kill", "run_kill", "batches")),
    "kill-reindex": ("kill: reindex", _one(".fault_kill", "run_kill", "reindex")),
    "kill-restore": ("kill: snapshot restore", _one(".fault_kill", "run_kill", "restore")),
    "kill-snapshot": ("kill: snapshot file writes",
                      _one(".fault_snapshot_file", "kill_snapshot_writes")),
    "kill-pg": ("kill pg", _kill_pg),
    "disk-full": ("disk full at COMMIT", _one(".fault_disk", "run_disk")),
    "read-only": ("read-only home", _one(".fault_readonly", "run_readonly")),
    "garbled-faiss": ("garbled FAISS file", _one(".fault_files", "garbled_faiss")),
    "replaced-db": ("replaced database", _one(".fault_files", "replaced_database")),
    "damaged-wal": ("damaged WAL", _one(".fault_files", "damaged_wal")),
    "damaged-snapshot": ("damaged snapshot file",
                         _one(".fault_snapshot_file", "damaged_snapshots")),
    "fuzz-tools": ("fuzz: tool arguments", _fuzz("fuzz_dispatch", "fuzz: tool arguments")),
    "fuzz-loop": ("fuzz: agent loop", _fuzz("fuzz_loop", "fuzz: agent loop")),
    "fuzz-snapshot": ("fuzz: snapshot restore", _fuzz("fuzz_snapshot", "fuzz: snapshot restore",
                                                      ".fault_snapshot")),
    "fuzz-cli": ("fuzz: CLI arguments", _fuzz("fuzz_cli", "fuzz: CLI arguments",
                                              ".fault_cli")),
    "provider": ("provider chaos", _provider),
}


def select_classes(only: Sequence[str] | None) -> list[str]:
    """Class keys to run, in harness order; ``only`` items may be comma lists."""
    if not only:
        return list(CLASSES)
    wanted = {name.strip() for item in only for name in item.split(",") if name.strip()}
    unknown = sorted(wanted - set(CLASSES))
    if unknown or not wanted:
        raise ValueError(f"unknown fault class {', '.join(unknown) or '(none named)'}; "
                         f"choose from {', '.join(CLASSES)}")
    return [name for name in CLASSES if name in wanted]


@contextlib.contextmanager
def _quiet_engine() -> Iterator[None]:
    # Rebuilding a damaged index logs a warning each time; the table reports it instead.
    logger = logging.getLogger("tiermem.memory")
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.setLevel(level)


def run_faults(seed: int = 0, quick: bool = False, only: Sequence[str] | None = None,
               on_result: Callable[[FaultResult], None] | None = None) -> list[FaultResult]:
    """Run the selected fault classes; a class whose harness raises is reported as crashed."""
    from tiermem.memory.store.sqlite.vectors import single_thread_search

    single_thread_search()  # forked trials must not inherit a busy OpenMP pool
    results: list[FaultResult] = []
    with _quiet_engine():
        for key in select_classes(only):
            label, runner = CLASSES[key]
            start = time.perf_counter()
            try:
                rows = runner(seed, quick)
            except Exception as exc:
                row = FaultResult(label, key.split("-")[0])
                row.crash(f"the class stopped on {describe(exc)} at {_where(exc)}")
                rows = [row]
            seconds = (time.perf_counter() - start) / len(rows)
            for row in rows:
                row.seconds = seconds
                results.append(row)
                if on_result is not None:
                    on_result(row)
    return results


def _where(exc: BaseException) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    return f"{Path(frames[-1].filename).name}:{frames[-1].lineno}" if frames else "?"


def _verdict(row: FaultResult) -> str:
    if row.skipped:
        return "[yellow]skipped[/yellow]"
    return "[green]pass[/green]" if row.passed else "[bold red]FAIL[/bold red]"


def print_table(console: Any, results: Sequence[FaultResult], seconds: float, title: str) -> None:
    from rich import box
    from rich.table import Table

    from tiermem.agent.terminal import escape

    # Seconds per class are in the progress lines and the JSON; the table fits 80 columns.
    table = Table(title=f"{title} ({seconds:.1f} s)", box=box.SIMPLE_HEAD,
                  padding=(0, 1, 0, 0), pad_edge=False)
    table.add_column("fault class", no_wrap=True)
    for column in ("trials", "clear\nerrors", "crashes", "lost", "diverged", "result"):
        table.add_column(column, justify="right",
                         min_width=max(map(len, column.split("\n"))))
    for r in results:
        table.add_row(r.name, str(r.trials), str(r.clear_errors), str(r.crashes), str(r.lost),
                      str(r.diverged), _verdict(r))
    console.print(table)
    for r in results:
        if r.skipped:
            console.print(f"[yellow]skipped[/yellow] {escape(r.name)}: {escape(r.skipped)}")
        elif not r.passed:
            console.print(f"[bold red]FAIL[/bold red] {escape(r.name)}: "
                          f"{escape(r.first_problem())}", highlight=False)
    failed = sum(not r.passed for r in results)
    # A skipped class checked nothing: it is counted as skipped, never among those passed.
    skipped = sum(bool(r.skipped) for r in results)
    also = f"; {skipped} skipped" if skipped else ""
    ran = len(results) - skipped
    console.print(f"[bold red]{failed} of {len(results)} fault classes failed{also}[/bold red]"
                  if failed else
                  f"[green]all {ran} fault classes {'that ran ' if skipped else ''}passed"
                  f"{also}[/green]")


def report_json(results: Sequence[FaultResult], **meta: Any) -> dict[str, Any]:
    return {**meta, "passed": all(r.passed for r in results),
            "classes": [r.to_dict() for r in results]}


def main(seed: int = 0, quick: bool = False, json_path: Path | None = None,
         only: Sequence[str] | None = None, json_stdout: bool = False) -> int:
    """Run the harness and print the table; 1 if any class failed.

    The JSON report goes to ``json_path``, or with ``json_stdout`` to standard
    output (the table then goes to standard error).
    """
    from rich.console import Console

    from tiermem.agent.terminal import escape
    from tiermem.memory.output_file import emit_json

    select_classes(only)  # a usage error before anything runs
    console = Console(stderr=json_stdout)
    start = time.perf_counter()

    def progress(row: FaultResult) -> None:
        console.print(f"{escape(row.name)}: {_verdict(row)} ({row.seconds:.1f} s)",
                      highlight=False)

    results = run_faults(seed=seed, quick=quick, only=only, on_result=progress)
    seconds = time.perf_counter() - start
    mode = "quick" if quick else "full"
    print_table(console, results, seconds, f"fault harness, {mode} run, seed {seed}")
    if json_path is not None or json_stdout:
        emit_json(report_json(results, seed=seed, quick=quick, seconds=round(seconds, 2)),
                  json_path)
    return 0 if all(r.passed for r in results) else 1
