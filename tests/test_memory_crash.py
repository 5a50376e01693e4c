"""The harness that kills a writer after a number of committed operations
(bench/kill_after_ops.py), which the crash test of every backend uses
(tests/conformance/test_conformance_crash.py): kills come after the operations a
writer reports, never after a delay, so a loaded machine cannot change how much work
a round does."""

from __future__ import annotations

import signal
import sys
import textwrap
from pathlib import Path

import pytest

from tiermem.bench.kill_after_ops import kill_after_ops

REPO = Path(__file__).resolve().parents[1]


def _writer(body: str) -> list[str]:
    return [sys.executable, "-c", textwrap.dedent(body)]


def test_the_kill_comes_after_the_requested_number_of_operations() -> None:
    # Counts are printed in bursts with no pause, so only the line count can stop it.
    run = kill_after_ops(_writer("""
        import itertools
        print("READY", flush=True)
        for i in itertools.count():
            print("op", i, flush=True)
    """), 25)
    assert run.killed_as_planned and run.returncode == -signal.SIGKILL
    assert len(run.ops) >= 25
    assert run.ops == [f"op {i}" for i in range(len(run.ops))]


def test_a_writer_that_stops_early_or_never_gets_ready_is_reported() -> None:
    early = kill_after_ops(_writer("""
        print("READY", flush=True)
        print("op 0", flush=True)
        print("op 1", flush=True)
        print("op 2 cut off by the end", end="", flush=True)
    """), 5)
    assert not early.killed_as_planned
    assert (early.ready, early.returncode, early.ops, early.hung) == (True, 0, ["op 0", "op 1"],
                                                                      False)
    broken = kill_after_ops(_writer("raise SystemExit(3)"), 1)
    assert (broken.ready, broken.returncode, broken.ops) == (False, 3, [])
    with pytest.raises(ValueError, match="at least 1"):
        kill_after_ops(_writer("pass"), 0)


def test_a_writer_that_hangs_is_ended_by_the_guard() -> None:
    # The guard is the only thing that can end this writer: it waits forever.
    run = kill_after_ops(_writer("""
        import threading
        print("READY", flush=True)
        print("op 0", flush=True)
        threading.Event().wait()
    """), 2, hang_guard_s=0.5)
    assert run.hung and not run.killed_as_planned
    assert run.ops == ["op 0"] and run.returncode == -signal.SIGKILL
