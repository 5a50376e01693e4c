"""Crash safety: SIGKILL a writer after a random number of operations, reopen, audit the disk.

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
import sys
import tempfile
from pathlib import Path
from typing import Any

from tiermem.bench.crash_child import BATCH_FACTS, BATCH_PASSAGES, CORE_LIMIT
from tiermem.bench.fault_audit import index_problems
from tiermem.bench.kill_after_ops import kill_after_ops
from tiermem.bench.result import CheckResult
from tiermem.bench.sqlite_only import faiss_index, integrity_problems
from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.store.records import DumpTable
from tiermem.memory.tiers.policies import POLICY_NAMES

ROOT = Path(__file__).resolve().parents[1]
#: The writer is killed after 1 to this many committed operations, drawn from the seed.
MAX_OPS_BEFORE_KILL = 40
_BATCH_MARKER = re.compile(r"\[(r\d+n\d+)\]")


def run_and_kill(home: Path, seed: int, round_no: int, policy: str, ops: int,
                 log: Path) -> tuple[list[tuple[str, str]], str | None]:
    """Start a writer and SIGKILL it once it has reported ``ops`` committed operations.

    Returns the operations it reported as committed, and a problem if it did
    not run until the kill.
    """
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    argv = [sys.executable, "-m", "tiermem.bench.crash_child", str(home), str(seed), str(round_no),
            policy]
    with log.open("wb") as stderr:
        run = kill_after_ops(argv, ops, cwd=ROOT, env=env, stderr=stderr)
    problem = None
    if not run.killed_as_planned:
        tail = " | ".join(log.read_text(errors="replace").strip().splitlines()[-3:])
        ended = ("hung" if run.hung else f"exited with {run.returncode}") if run.ready else (
            "never became ready")
        problem = f"writer {ended} after {len(run.ops)} of {ops} operations: {tail}"
    parts = [line.split(" ", 1) for line in run.ops]
    return [(p[0], p[1]) for p in parts if len(p) == 2], problem


def _tagged(memory: HierarchicalMemory, table: DumpTable, column: str, marker: str) -> int:
    return sum(f"[{marker}]" in row[column] for row in memory.store.export_rows(table))


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
    for fact in memory.store.facts.all():
        if fact.text.startswith("crash batch [") and (m := _BATCH_MARKER.search(fact.text)):
            counts.setdefault(m.group(1), [0, 0])[0] += 1
    for _, text in memory.store.passages.texts():
        if text.startswith("crash batch passage [") and (m := _BATCH_MARKER.search(text)):
            counts.setdefault(m.group(1), [0, 0])[1] += 1
    return [f"batch {marker}: {f}/{BATCH_FACTS} facts, {p}/{BATCH_PASSAGES} passages"
            for marker, (f, p) in counts.items() if (f, p) != (BATCH_FACTS, BATCH_PASSAGES)]


def verify_home(home: Path, reported: list[tuple[str, str]]) -> dict[str, Any]:
    """Reopen ``home`` after a crash and audit it against what the writer reported."""
    with HierarchicalMemory(home, embedder=HashingEmbedder()) as memory:
        problems = index_problems(memory) + integrity_problems(memory)
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
            "rebuilt": faiss_index(memory.archival.vectors).rebuilt_on_open,
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
            ops = rng.randint(1, MAX_OPS_BEFORE_KILL)
            reported, died = run_and_kill(home, rng.randrange(2**31), round_no, child_policy,
                                          ops, Path(tmp) / f"child-{round_no}.log")
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
        detail = (f"{kills} SIGKILLs after 1-{MAX_OPS_BEFORE_KILL} operations: every reopen "
                  f"consistent (FAISS ids == SQLite embeddings, integrity ok), {reported_ops} "
                  f"committed ops all present, no half-written interaction")
    elif not problems:
        detail = "the writer reported no committed operation before any kill"
    else:
        detail = "; ".join(problems[:3])
    return CheckResult("crash_safety", passed, figures, detail)
