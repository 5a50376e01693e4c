"""Crash safety: a writer killed with SIGKILL mid-operation never leaves SQLite and
FAISS disagreeing, and never loses an operation it reported as committed.

Kills come after a number of committed operations the writer reports (see
bench/kill_after_ops.py), never after a delay, so a loaded machine cannot
change how much work a round does."""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import sys
import textwrap
from pathlib import Path

import pytest
from memory_helpers import check_archival_consistent, check_core_invariants, make_memory

from bench.kill_after_ops import READY, kill_after_ops

REPO = Path(__file__).resolve().parents[1]

# The child prints one line after each operation returns (committed). Every
# CLOSE_EVERY operations it closes and reopens the memory, which saves the FAISS
# files; a kill right after the line before a close lands while they are written.
CLOSE_EVERY = 20
CHILD = textwrap.dedent(f"""
    import sys
    from memory.embeddings import HashingEmbedder
    from memory.hierarchy import HierarchicalMemory

    home, i = sys.argv[1], int(sys.argv[2])

    def open_memory():
        return HierarchicalMemory(home, embedder=HashingEmbedder(), core_limit=8,
                                  core_limit_unit="facts")

    m = open_memory()
    print({READY!r}, flush=True)
    while True:
        kind = i % 3
        if kind == 0:
            m.archival_insert(f"crash passage {{i}} about kubernetes", tags=["crash"])
        elif kind == 1:
            m.add_fact(f"crash fact {{i}} zone z{{i}}", "durable" if i % 2 else "short-lived")
        else:
            m.process_interaction(f"Crash message {{i}}: the production region is r{{i}}.",
                                  f"reply {{i}}")
        print(kind, i, flush=True)
        i += 1
        if i % {CLOSE_EVERY} == 0:
            m.close()
            m = open_memory()
""")


def _ops_before_kill(round_no: int, next_op: int, rng: random.Random) -> int:
    """Even rounds kill during the close that follows an operation; odd ones at random."""
    if round_no % 2 == 0:
        return CLOSE_EVERY - next_op % CLOSE_EVERY
    return rng.randint(1, 2 * CLOSE_EVERY)


@pytest.mark.slow
def test_sigkill_in_a_loop_never_leaves_sqlite_and_faiss_disagreeing(tmp_path: Path) -> None:
    home = tmp_path / "agent"
    rng = random.Random(20240508)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    committed: list[tuple[int, int]] = []
    next_op = 0
    for round_no in range(8):
        ops = _ops_before_kill(round_no, next_op, rng)
        run = kill_after_ops([sys.executable, "-c", CHILD, str(home), str(next_op)], ops,
                             cwd=REPO, env=env)
        assert run.killed_as_planned, run
        assert run.returncode == -signal.SIGKILL and len(run.ops) >= ops
        committed += [(int(k), int(i)) for k, i in (line.split() for line in run.ops)]
        assert [i for _, i in committed[-len(run.ops):]] == list(
            range(next_op, next_op + len(run.ops)))
        next_op = committed[-1][1] + 1

        with sqlite3.connect(home / "memory.sqlite3") as conn:
            assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        with make_memory(home) as m:
            check_core_invariants(m)
            check_archival_consistent(m)
            stored = m.store.execute(
                "SELECT count(*) FROM messages WHERE embedding IS NOT NULL").fetchone()[0]
            assert m.recall.vectors.index.ntotal == stored
            passages = {r[0] for r in m.store.execute("SELECT text FROM passages")}
            facts = {r[0] for r in m.store.execute("SELECT text FROM facts")}
            messages = {r[0] for r in m.store.execute("SELECT content FROM messages")}
            for kind, i in committed:
                if kind == 0:
                    assert f"crash passage {i} about kubernetes" in passages
                elif kind == 1:
                    assert f"crash fact {i} zone z{i}" in facts
                else:
                    assert f"Crash message {i}: the production region is r{i}." in messages
                    assert f"reply {i}" in messages
            inserted = [i for kind, i in committed if kind == 0]
            if inserted:
                text = f"crash passage {inserted[-1]} about kubernetes"
                assert m.archival_search(text).hits[0].text == text
                assert m.archival_search("kubernetes", tags=["crash"]).total >= len(inserted)


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
