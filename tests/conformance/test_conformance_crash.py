"""Crash safety on every backend: a writer killed with SIGKILL mid-operation never
leaves the store and its vector index disagreeing, and never loses an operation it
reported as committed.

Kills come after a number of committed operations the writer reports (see
bench/kill_after_ops.py), never after a delay, so a loaded machine cannot
change how much work a round does."""

from __future__ import annotations

import os
import random
import signal
import sys
import textwrap
from pathlib import Path

import pytest
from backends import Backend
from memory_helpers import check_archival_consistent, check_core_invariants

from tiermem.bench.kill_after_ops import READY, kill_after_ops
from tiermem.bench.sqlite_only import integrity_problems

TESTS = Path(__file__).resolve().parents[1]
REPO = TESTS.parent

# The child prints one line after each operation returns (committed). Every
# CLOSE_EVERY operations it closes and reopens the memory, which saves the FAISS
# files; a kill right after the line before a close lands while they are written.
CLOSE_EVERY = 20
CHILD = textwrap.dedent(f"""
    import sys
    from backends import open_spec

    spec, i = sys.argv[1], int(sys.argv[2])

    def open_memory():
        return open_spec(spec, core_limit=8, core_limit_unit="facts")

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
def test_sigkill_in_a_loop_never_leaves_the_store_and_its_index_disagreeing(
    backend: Backend,
) -> None:
    home = backend.home()
    rng = random.Random(20240508)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join((str(REPO), str(TESTS)))}
    committed: list[tuple[int, int]] = []
    next_op = 0
    for round_no in range(8):
        ops = _ops_before_kill(round_no, next_op, rng)
        run = kill_after_ops([sys.executable, "-c", CHILD, home.spec, str(next_op)], ops,
                             cwd=REPO, env=env)
        assert run.killed_as_planned, run
        assert run.returncode == -signal.SIGKILL and len(run.ops) >= ops
        committed += [(int(k), int(i)) for k, i in (line.split() for line in run.ops)]
        assert [i for _, i in committed[-len(run.ops):]] == list(
            range(next_op, next_op + len(run.ops)))
        next_op = committed[-1][1] + 1

        with home.open() as m:
            assert integrity_problems(m) == []
            check_core_invariants(m)
            check_archival_consistent(m)
            assert m.recall.vectors is not None and m.recall.vectors.differences() == []
            passages = {text for _, text in m.store.passages.texts()}
            facts = {f.text for f in m.store.facts.all()}
            messages = {r["content"] for r in m.recall.iter_rows()}
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


