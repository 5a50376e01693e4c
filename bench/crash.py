"""Crash safety: SIGKILL a writer at random points, reopen, and audit what is on disk.

After each kill the parent reopens the agent home (which also rebuilds a stale
FAISS index) and checks that SQLite is intact, that each FAISS index holds
exactly the rowids SQLite has embeddings for, that every operation the child
reported as committed is there, that no multi-write interaction is half
there, and that searches work.
"""

from __future__ import annotations

import os
import random
import re
import select
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.crash_child import BATCH_FACTS, BATCH_PASSAGES, CORE_LIMIT
from bench.result import CheckResult
from memory import HashingEmbedder, HierarchicalMemory
from memory.policies import POLICY_NAMES

ROOT = Path(__file__).resolve().parents[1]
READY_TIMEOUT_S = 60.0
_BATCH_MARKER = re.compile(r"\[(r\d+n\d+)\]")


def _spawn(home: Path, seed: int, round_no: int, policy: str, stderr: Any) -> subprocess.Popen:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    return subprocess.Popen(
        [sys.executable, "-m", "bench.crash_child", str(home), str(seed), str(round_no), policy],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=stderr, bufsize=0,
    )


def _read_until(fd: int, deadline: float, stop: bytes | None, buf: bytearray) -> bool:
    """Read into ``buf`` until ``deadline`` or ``stop`` appears; False once the pipe closed."""
    while True:
        if stop is not None and stop in buf:
            return True
        left = deadline - time.monotonic()
        if left <= 0:
            return True
        ready, _, _ = select.select([fd], [], [], left)
        if ready:
            chunk = os.read(fd, 65536)
            if not chunk:
                return False
            buf.extend(chunk)


def run_and_kill(home: Path, seed: int, round_no: int, policy: str, delay: float,
                 log: Path) -> tuple[list[tuple[str, str]], str | None]:
    """Start a writer, SIGKILL it ``delay`` seconds after it is ready.

    Returns the operations it reported as committed, and a problem if it did
    not survive until the kill.
    """
    with log.open("wb") as stderr:
        proc = _spawn(home, seed, round_no, policy, stderr)
        assert proc.stdout is not None
        fd = proc.stdout.fileno()
        buf = bytearray()
        try:
            alive = _read_until(fd, time.monotonic() + READY_TIMEOUT_S, b"READY\n", buf)
            if alive and b"READY\n" in buf:
                alive = _read_until(fd, time.monotonic() + delay, None, buf)
        finally:
            if proc.poll() is None:
                os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
            buf.extend(proc.stdout.read() or b"")
            proc.stdout.close()
    problem = None
    tail = " | ".join(log.read_text(errors="replace").strip().splitlines()[-3:])
    if proc.returncode != -signal.SIGKILL:
        problem = f"writer exited with {proc.returncode} before the kill: {tail}"
    elif b"READY\n" not in buf:
        problem = f"writer was not ready within {READY_TIMEOUT_S:.0f} s: {tail}"
    # A line without its newline was cut by the kill: its op may or may not have committed.
    lines = bytes(buf).decode(errors="replace").split("\n")[:-1]
    parts = [line.split(" ", 1) for line in lines if line != "READY"]
    return [(p[0], p[1]) for p in parts if len(p) == 2], problem


def _count(memory: HierarchicalMemory, sql: str, *params: Any) -> int:
    return int(memory.store.execute(sql, params).fetchone()[0])


def _tagged(memory: HierarchicalMemory, table: str, column: str, marker: str) -> int:
    return _count(memory, f"SELECT count(*) FROM {table} WHERE instr({column}, ?) > 0",
                  f"[{marker}]")


def _index_problems(memory: HierarchicalMemory) -> list[str]:
    import faiss

    problems = []
    for tier, vectors, table in (("archival", memory.archival.vectors, "passages"),
                                 ("recall", memory.recall.vectors, "messages")):
        if vectors is None:
            continue
        stored = {r[0] for r in memory.store.execute(
            f"SELECT id FROM {table} WHERE embedding IS NOT NULL")}
        indexed = {int(i) for i in faiss.vector_to_array(vectors.index.id_map)}
        if vectors.index.ntotal != len(stored) or indexed != stored:
            problems.append(f"{tier} FAISS holds {vectors.index.ntotal} vectors, SQLite "
                            f"{len(stored)} embeddings ({len(indexed ^ stored)} ids differ)")
    return problems


def _lost(memory: HierarchicalMemory, kind: str, marker: str) -> bool:
    facts = _tagged(memory, "facts", "text", marker)
    if kind == "fact":
        return facts < 1
    if kind == "passage":
        return _tagged(memory, "passages", "text", marker) < 1
    if kind == "turn":
        return _tagged(memory, "messages", "content", marker) < 1 or facts < 1
    return facts != BATCH_FACTS


def _torn_batches(memory: HierarchicalMemory) -> list[str]:
    """Batches (one interaction each) present only in part: atomicity broken."""
    counts: dict[str, list[int]] = {}
    for (text,) in memory.store.execute("SELECT text FROM facts WHERE text LIKE 'crash batch [%'"):
        if m := _BATCH_MARKER.search(text):
            counts.setdefault(m.group(1), [0, 0])[0] += 1
    for (text,) in memory.store.execute(
            "SELECT text FROM passages WHERE text LIKE 'crash batch passage [%'"):
        if m := _BATCH_MARKER.search(text):
            counts.setdefault(m.group(1), [0, 0])[1] += 1
    return [f"batch {marker}: {f}/{BATCH_FACTS} facts, {p}/{BATCH_PASSAGES} passages"
            for marker, (f, p) in counts.items() if (f, p) != (BATCH_FACTS, BATCH_PASSAGES)]


def verify_home(home: Path, reported: list[tuple[str, str]]) -> dict[str, Any]:
    """Reopen ``home`` after a crash and audit it against what the writer reported."""
    with HierarchicalMemory(home, embedder=HashingEmbedder()) as memory:
        problems = _index_problems(memory)
        integrity = memory.store.execute("PRAGMA integrity_check").fetchone()[0]
        if integrity != "ok":
            problems.append(f"SQLite integrity_check: {integrity}")
        lost = [f"{kind} {marker}" for kind, marker in reported if _lost(memory, kind, marker)]
        torn = _torn_batches(memory)
        if memory.core.used > memory.core.limit:
            problems.append(f"core holds {memory.core.used} > {memory.core.limit}")
        searched = _search_works(memory, reported)
        if searched is not None:
            problems.append(searched)
        return {
            "problems": problems + [f"lost {op}" for op in lost] + torn,
            "lost": len(lost),
            "torn": len(torn),
            "rebuilt": memory.archival.vectors.rebuilt_on_open,
        }


def _search_works(memory: HierarchicalMemory, reported: list[tuple[str, str]]) -> str | None:
    passages = [m for kind, m in reported if kind in ("passage", "batch")]
    turns = [m for kind, m in reported if kind == "turn"]
    if passages:
        marker = passages[-1]
        hits = memory.archival_search(f"crash passage {marker}", k=10).hits
        if not any(f"[{marker}]" in h.text for h in hits):
            return f"archival search did not find the last committed passage [{marker}]"
    else:
        memory.archival_search("crash passage", k=10)
    if turns:
        marker = turns[-1]
        hits = memory.recall_search(f"pod {marker} restarting", k=10).hits
        if not any(f"[{marker}]" in h.text for h in hits):
            return f"recall search did not find the last committed turn [{marker}]"
    return None


def check_crash_safety(seed: int, kills: int, policy: str) -> CheckResult:
    # The child is a fresh interpreter: a policy registered in this process is unknown there.
    child_policy = policy if policy in POLICY_NAMES else "freq_recency_durable"
    rng = random.Random(seed)
    problems: list[str] = []
    consistent = lost = torn = reported_ops = rebuilt = 0
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        for round_no in range(kills):
            delay = rng.uniform(0.05, 0.6)
            reported, died = run_and_kill(home, rng.randrange(2**31), round_no, child_policy,
                                          delay, Path(tmp) / f"child-{round_no}.log")
            reported_ops += len(reported)
            if died:
                problems.append(f"round {round_no}: {died}")
            audit = verify_home(home, reported)
            lost += audit["lost"]
            torn += audit["torn"]
            rebuilt += bool(audit["rebuilt"])
            consistent += not audit["problems"] and died is None
            problems += [f"round {round_no}: {p}" for p in audit["problems"]]
    figures = {
        "kills": kills,
        "reopens_consistent": consistent,
        "ops_reported_committed": reported_ops,
        "lost_ops": lost,
        "torn_interactions": torn,
        "index_rebuilds_on_reopen": rebuilt,
        "core_limit": CORE_LIMIT,
        "policy": child_policy,
    }
    passed = consistent == kills and reported_ops > 0
    if passed:
        detail = (f"{kills} SIGKILLs at random points: every reopen consistent (FAISS ids == "
                  f"SQLite embeddings, integrity ok), {reported_ops} committed ops all present, "
                  f"no half-written interaction")
    elif not problems:
        detail = "the writer reported no committed operation before any kill"
    else:
        detail = "; ".join(problems[:3])
    return CheckResult("crash_safety", passed, figures, detail)
