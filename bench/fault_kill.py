"""SIGKILL loops: kill a writer at seeded points, reopen, and audit what is stored.

Four workloads (bench/fault_kill_child.py): agent turns, batches of writes
with erasures, ``reindex`` and snapshot restore. After each kill the home is
reopened as a user would, and it must pass ``bench.fault_audit.audit``
(integrity, FAISS ids and bytes equal to SQLite's, core within its limit, a
vector for every row), keep every operation the writer reported committed,
and hold every multi-write unit whole or not at all. A home that failed an
audit is replaced by a fresh one, so one defect is counted once.

With ``store`` (a PostgreSQL DSN) the same loops run on agents in that
database: the killed writer's advisory lock is the server's to release when
it sees the connection die, and the audit recounts the BM25 statistics the
triggers keep (bench/postgres_only.py) where SQLite's is its integrity check.
A restore killed before its rows commit leaves no new agent, or one marked as it
was created that refuses every open (``UnfinishedRestoreError``): it is restored
again, as the error says, and must then hold the snapshot whole. An agent left that
opens must hold the snapshot whole already.
"""

from __future__ import annotations

import random
import shutil
import tempfile
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tiermem.bench import fault_kill_child as child
from tiermem.bench.fault_audit import Place, audit, markers, stored_embedder
from tiermem.bench.fault_os import ForkOutcome, Report, run_forked
from tiermem.bench.fault_result import FaultResult, describe, is_clear
from tiermem.bench.postgres_only import PgAgent, agent_exists
from tiermem.bench.workload import durable_sentence
from tiermem.memory import HierarchicalMemory
from tiermem.memory.errors import StoreLockedError, UnfinishedRestoreError
from tiermem.memory.store.records import DumpRow
from tiermem.memory.store.sqlite import DB_FILE

Ops = list[tuple[str, str]]
#: Trials on one home before a fresh one, so files stay small and trials fast.
HOME_TRIALS = 25
#: Share of kills from inside at a seeded step; the rest come from the parent after N reports.
INTERNAL_SHARE = 0.75


@dataclass(frozen=True)
class Workload:
    label: str
    trials: int
    quick_trials: int
    #: Tripwire steps are drawn from 1..max_step, a few operations' worth (measured).
    max_step: int


WORKLOADS: dict[str, Workload] = {
    "turns": Workload("kill: agent turns", 300, 10, 250),
    "batches": Workload("kill: batches and erasures", 300, 10, 320),
    "reindex": Workload("kill: reindex", 200, 10, 200),
    "restore": Workload("kill: snapshot restore", 200, 10, 500),
}


def _reported(outcome: ForkOutcome) -> Ops:
    parts = [line.split(" ", 1) for line in outcome.lines if line != "READY"]
    return [(p[0], p[1]) for p in parts if len(p) == 2 and p[0] != "EXC"]


def _judge_exit(outcome: ForkOutcome, result: FaultResult, trial: int) -> None:
    if (error := outcome.error) is not None:
        kind, text = error
        (result.clear if kind == "clear" else result.crash)(f"writer in trial {trial}: {text}")
    elif outcome.hung:
        result.crash(f"writer in trial {trial} hung")
    elif not outcome.killed:
        result.crash(f"writer in trial {trial} exited with {outcome.exit_code}")


# -- what must be on disk ------------------------------------------------------------------
def _starts(prefix: str, column: str = "text") -> Callable[[DumpRow], bool]:
    return lambda row: str(row[column]).startswith(prefix)


def _turn_units(memory: HierarchicalMemory, ops: Ops) -> tuple[list[str], list[str]]:
    parts = (markers(memory, "facts", "text", _starts("Kill fact")),
             markers(memory, "passages", "text", _starts("Kill note")),
             markers(memory, "messages", "content", lambda row: row["role"] == "assistant"))
    lost = [m for kind, m in ops if kind == "turn" and not all(p[m] for p in parts)]
    seen = set().union(*parts)
    torn = [f"turn {m}: fact/note/reply {[p[m] for p in parts]}" for m in sorted(seen)
            if not all(p[m] for p in parts)]
    return lost, torn


def _batch_units(memory: HierarchicalMemory, ops: Ops) -> tuple[list[str], list[str]]:
    facts = markers(memory, "facts", "text", _starts("Batch fact"))
    passages = markers(memory, "passages", "text", _starts("Batch passage"))
    unit = (markers(memory, "facts", "text", _starts("Unit fact")),
            markers(memory, "passages", "text", _starts("Unit passage")))
    talk = markers(memory, "messages", "content")
    said = markers(memory, "messages", "content", _starts("Talk [", "content"))
    erased = markers(memory, "erasures", "reason")
    whole_unit = (child.UNIT_FACTS, child.UNIT_PASSAGES)
    # An interaction is whole, erased whole, or (forgotten and erased) its reply alone.
    forgotten = {m for m in talk if (talk[m], said[m], erased[m]) == (1, 0, 0)}
    whole = ((2, 0), (0, 2))

    def present(kind: str, m: str) -> bool:
        return {"fact": facts[m] > 0, "passage": passages[m] > 0,
                "unit": (unit[0][m], unit[1][m]) == whole_unit,
                "talk": (talk[m], erased[m]) in whole or m in forgotten,
                "erase": (talk[m], erased[m]) == (0, 2),
                "forget": m in forgotten}.get(kind, True)

    lost = [f"{kind} {m}" for kind, m in ops if not present(kind, m)]
    torn = [f"unit {m}: {unit[0][m]} facts, {unit[1][m]} passages"
            for m in sorted(set(unit[0]) | set(unit[1])) if (unit[0][m], unit[1][m]) != whole_unit]
    torn += [f"talk {m}: {talk[m]} messages, {erased[m]} erasures"
             for m in sorted(set(talk) | set(erased))
             if (talk[m], erased[m]) not in whole and m not in forgotten]
    return lost, torn


def _seeded_units(memory: HierarchicalMemory, ops: Ops) -> tuple[list[str], list[str]]:
    passages = markers(memory, "passages", "text")
    talk = markers(memory, "messages", "content")
    lost = [f"{kind} {m}" for kind, m in ops
            if (kind == "passage" and not passages[m]) or (kind == "talk" and talk[m] != 2)]
    return lost, []


def _seed_reindex_home(home: Place, number: int) -> Ops:
    rng = random.Random(number)
    ops: Ops = []
    with child.open_memory(home) as memory:
        for j in range(20):
            memory.archival_insert(f"Seed passage [s{number}o{j}] {durable_sentence(rng)}")
            ops.append(("passage", f"s{number}o{j}"))
        for j in range(20, 25):
            memory.process_interaction(f"Talk [s{number}o{j}]: the region is eu-west-1.",
                                       f"Noted [s{number}o{j}].")
            ops.append(("talk", f"s{number}o{j}"))
    return ops


# -- one home under repeated kills -----------------------------------------------------------
class HomeLoop:
    """Kill a writer on one home over and over, auditing after each kill."""

    def __init__(self, name: str, root: Path | str, result: FaultResult) -> None:
        self.name = name
        self.root = root
        self.result = result
        self.homes = 0
        self.home: Place = child.place_in(root, f"{name}-home0")
        self.ops: Ops = []

    def fresh_home(self) -> None:
        self.homes += 1
        # Named by workload too: on PostgreSQL every workload's agents share one database.
        self.home = child.place_in(self.root, f"{self.name}-home{self.homes}")
        self.ops = _seed_reindex_home(self.home, self.homes) if self.name == "reindex" else []

    def writer(self, trial: int, seed: int, at: int | None) -> Callable[[Report], None]:
        workload = {"turns": child.turns, "batches": child.batches,
                    "reindex": child.reindexes}[self.name]

        def work(report: Report) -> None:
            if at is not None:
                child.Tripwire(at).arm()
            workload(self.home, trial, random.Random(seed), report)
        return work

    def reopen(self, trial: int) -> HierarchicalMemory | None:
        where = f"reopen after kill {trial}"
        embedder = stored_embedder(self.home, child.DIM)
        try:
            return self._open_after_kill(embedder, where)
        except Exception as exc:
            self.result.exception(exc, where)
            if not is_clear(exc) or self.name != "reindex":
                return None
        try:  # what the error tells the user to do: run reindex again
            return child.reindex(self.home, embedder)
        except Exception as exc:
            self.result.crash(f"{where}: reindex again raised {describe(exc)}")
            return None

    def _open_after_kill(self, embedder: Any, where: str) -> HierarchicalMemory:
        """Open the memory as a user would. On PostgreSQL the open waits while the server
        ends the dead writer's session (memory.store.postgres.connection): a refusal is
        a defect there."""
        try:
            return child.open_memory(self.home, embedder)
        except StoreLockedError as exc:
            if isinstance(self.home, PgAgent):
                self.result.diverge(f"{where}: the killed writer's agent was refused: "
                                    f"{describe(exc)}")
            raise

    def audit(self, trial: int) -> bool:
        """Audit the home; False when it must be replaced."""
        memory = self.reopen(trial)
        if memory is None:
            return False
        check = {"turns": _turn_units, "batches": _batch_units, "reindex": _seeded_units}
        with memory:
            problems = audit(memory)
            lost, torn = check[self.name](memory, self.ops)
        where = f"after kill {trial}"
        self.result.diverge_all(problems + [f"half-written {t}" for t in torn], where)
        for op in lost:
            self.result.lose(f"{where}: committed {op} is missing")
        return not (problems or torn or lost)


def _restore_trial(snapshot: dict[str, Any], root: Path | str, trial: int, at: int | None,
                   kill_after: int | None, result: FaultResult) -> int:
    """One killed restore; returns how many restores the writer reported done."""
    def work(report: Report) -> None:
        if at is not None:
            child.Tripwire(at).arm()
        child.restores(snapshot, root, trial, report)

    outcome = run_forked(work, kill_after=kill_after)
    _judge_exit(outcome, result, trial)
    done = [target for kind, target in _reported(outcome) if kind == "restore"]
    interrupted = child.place_in(root, f"r{trial}o{len(done)}")
    # On PostgreSQL the opens below wait while the server ends the dead writer's session.
    where = f"killed restore {interrupted.name}"
    for target in done:
        _check_restored(snapshot, child.place_in(root, target), result, f"restore {target}",
                        lose=True)
    if _restored_something(interrupted):
        _check_restored(snapshot, interrupted, result, where, lose=False)
    else:
        try:
            child.restore(snapshot, interrupted).close()
        except Exception as exc:
            if is_clear(exc):
                result.diverge(f"{where}: restoring again was refused: {describe(exc)}")
            else:
                result.crash(f"{where}: restoring again raised {describe(exc)}")
        else:
            _check_restored(snapshot, interrupted, result, f"{where}, restored again", lose=True)
    if isinstance(root, Path):
        shutil.rmtree(root, ignore_errors=True)
    return len(done)


def _restored_something(target: Place) -> bool:
    """Whether a killed restore left a memory there. An agent a restore creates in a
    database is marked in the transaction that creates it, and the mark stays until the
    restore's rows commit: a marked agent is no memory (its ``UnfinishedRestoreError``
    says to restore again, README), which the caller then does. Any agent that opens is
    one, then to hold the snapshot whole (an empty one would pass for an empty memory)."""
    if isinstance(target, Path):
        return (target / DB_FILE).exists()
    if not agent_exists(target):
        return False
    try:
        child.open_memory(target).close()
        return True
    except UnfinishedRestoreError:
        return False
    except Exception:
        return True  # what cannot open is for _check_restored to report


def _check_restored(snapshot: dict[str, Any], target: Place, result: FaultResult, where: str,
                    lose: bool) -> None:
    try:
        memory = child.open_memory(target)
    except Exception as exc:
        if lose:
            result.lose(f"{where}: cannot reopen ({describe(exc)})")
        else:
            result.diverge(f"{where}: left a memory that cannot open ({describe(exc)})")
        return
    with memory:
        problems = audit(memory)
        tables = memory.snapshot()["tables"]
    if tables != snapshot["tables"]:
        differ = [name for name in tables if tables[name] != snapshot["tables"].get(name)]
        text = f"{where}: the memory there differs from the snapshot in {', '.join(differ)}"
        result.diverge(text if lose else text + " (a half-restored memory)")
    result.diverge_all(problems, where)


def _seed_snapshot(root: Path | str) -> dict[str, Any]:
    rng = random.Random(7)
    with child.open_memory(child.place_in(root, "source")) as memory:
        for j in range(20):
            memory.add_fact(f"Source fact {j}: {durable_sentence(rng)}", "durable")
        for j in range(15):
            memory.archival_insert(f"Source passage {j}: {durable_sentence(rng)}")
        for j in range(10):
            memory.process_interaction(f"Source talk {j}: the region is eu-west-1.", "Noted.")
        return memory.snapshot()


def run_kill(name: str, seed: int, quick: bool, trials: int | None = None, *,
             store: str | None = None, label: str | None = None,
             max_step: int | None = None) -> FaultResult:
    """Run one SIGKILL workload; ``trials`` overrides the default count. With ``store``
    (a PostgreSQL DSN) it runs on agents in that database, under ``label``, drawing its
    tripwire steps from 1..``max_step``."""
    workload = WORKLOADS[name]
    result = FaultResult(label or workload.label, "kill")
    rng = random.Random(f"{seed}:kill:{name}")
    count = trials if trials is not None else (workload.quick_trials if quick else workload.trials)
    kinds: Counter[str] = Counter()
    with tempfile.TemporaryDirectory(prefix="tiermem-kill-") as tmp:
        root: Path | str = Path(tmp) if store is None else store
        loop = HomeLoop(name, root, result)
        snapshot = _seed_snapshot(root) if name == "restore" else None
        for trial in range(count):
            internal = rng.random() < INTERNAL_SHARE
            at = rng.randint(1, max_step or workload.max_step) if internal else None
            kill_after = None if internal else 1 + rng.randrange(4)
            child_seed = rng.randrange(2**31)
            kinds["inside" if internal else "after_reports"] += 1
            result.trials += 1
            if snapshot is not None:
                kinds["ops_reported"] += _restore_trial(
                    snapshot, Path(tmp) / "restores" if store is None else store, trial, at,
                    kill_after, result)
                continue
            if trial % HOME_TRIALS == 0:
                loop.fresh_home()
            outcome = run_forked(loop.writer(trial, child_seed, at), kill_after=kill_after)
            _judge_exit(outcome, result, trial)
            loop.ops += _reported(outcome)
            kinds["ops_reported"] += len(_reported(outcome))
            if not loop.audit(trial):
                loop.fresh_home()
    result.figures = {"kills_from_inside": kinds["inside"],
                      "kills_after_reports": kinds["after_reports"],
                      "ops_reported_committed": kinds["ops_reported"],
                      "homes": max(loop.homes, 1)}
    return result
