"""Crash safety: a writer killed with SIGKILL at random moments never leaves SQLite
and FAISS disagreeing, and never loses an operation it reported as committed."""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from memory_helpers import check_archival_consistent, check_core_invariants, make_memory

REPO = Path(__file__).resolve().parents[1]

# The child writes one progress line after each operation returns (committed).
# Every 20 operations it closes and reopens the memory, so some kills land while
# the FAISS files are being saved.
CHILD = textwrap.dedent("""
    import sys
    from memory.embeddings import HashingEmbedder
    from memory.hierarchy import HierarchicalMemory

    home, progress, i = sys.argv[1], sys.argv[2], int(sys.argv[3])

    def open_memory():
        return HierarchicalMemory(home, embedder=HashingEmbedder(), core_limit=8,
                                  core_limit_unit="facts")

    m = open_memory()
    with open(progress, "a") as out:
        out.write("ready\\n")
        out.flush()
        while True:
            kind = i % 3
            if kind == 0:
                m.archival_insert(f"crash passage {i} about kubernetes", tags=["crash"])
            elif kind == 1:
                m.add_fact(f"crash fact {i} zone z{i}", "durable" if i % 2 else "short-lived")
            else:
                m.process_interaction(f"Crash message {i}: the production region is r{i}.",
                                      f"reply {i}")
            out.write(f"{kind} {i}\\n")
            out.flush()
            i += 1
            if i % 20 == 0:
                m.close()
                m = open_memory()
""")


def _wait_ready(progress: Path, lines_before: int, child: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        lines = progress.read_text().splitlines() if progress.exists() else []
        if "ready" in lines[lines_before:]:
            return
        assert child.poll() is None, "the writer exited early"
        time.sleep(0.01)
    raise AssertionError("the writer never became ready")


@pytest.mark.slow
def test_sigkill_in_a_loop_never_leaves_sqlite_and_faiss_disagreeing(tmp_path: Path) -> None:
    home, progress = tmp_path / "agent", tmp_path / "progress.txt"
    rng = random.Random(20240508)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    committed: list[tuple[int, int]] = []
    next_op = 0
    for _ in range(8):
        lines_before = len(progress.read_text().splitlines()) if progress.exists() else 0
        child = subprocess.Popen(
            [sys.executable, "-c", CHILD, str(home), str(progress), str(next_op)],
            cwd=REPO, env=env, stderr=subprocess.DEVNULL)
        try:
            _wait_ready(progress, lines_before, child)
            time.sleep(rng.uniform(0.0, 0.5))
        finally:
            os.kill(child.pid, signal.SIGKILL)
            child.wait()
        assert child.returncode == -signal.SIGKILL
        new = [line for line in progress.read_text().splitlines()[lines_before:]
               if line != "ready"]
        committed += [(int(k), int(i)) for k, i in (line.split() for line in new)]
        if committed:
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
    assert len(committed) >= 8, "the writer must get some work done between kills"
