"""Fuzzing snapshot JSON through restore: a valid memory or the documented error.

A valid snapshot is mutated (values replaced, keys removed or added, rows
duplicated), after a fixed list of known attacks: a column name that smuggles
SQL, core over its limit, forged token counts, an oversized fact, a NaN
decay constant, a huge embedding dimension. Each restore runs in a forked
child with a bounded address space, so an unbounded allocation is counted
as a crash, not suffered. A restore must either raise a ``TiermemError`` or
give a memory that passes the audit and every invariant of a memory built
through the API.
"""

from __future__ import annotations

import contextlib
import copy
import json
import math
import resource
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from unittest import mock

from tiermem.bench.fault_audit import audit
from tiermem.bench.fault_fuzz import json_values, nasty_text, run_examples
from tiermem.bench.fault_kill_child import CORE_LIMIT, DIM
from tiermem.bench.fault_os import Report, run_forked
from tiermem.bench.fault_result import FaultResult
from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.errors import InvalidInputError
from tiermem.memory.store.records import DumpTable
from tiermem.memory.validation import clean_text

#: Headroom a restore may allocate beyond what this process already maps.
ADDRESS_SPACE_HEADROOM = 2 << 30
#: Larger than any embedding model's output; a snapshot claiming more is not one of ours.
MAX_EMBEDDER_DIM = 65_536
INJECTED = "INJECTED "
_INJECTION = ("id, text, norm, durability, tier, created_at, created_tick, last_access, "
              "last_counted_tick, tokens) SELECT 9999, 'INJECTED ' || sqlite_version(), "
              "'injected', 'durable', 'core', 0, 0, 0, 0, 1 WHERE ?1 IS NULL OR 1 --")


def source_snapshot() -> dict[str, Any]:
    """A small memory's snapshot, as ``json.load`` would return it."""
    with HierarchicalMemory(None, embedder=HashingEmbedder(DIM), core_limit=CORE_LIMIT) as memory:
        for i in range(12):
            memory.add_fact(f"Snapshot fact {i}: service {i} runs in eu-west-{i}", "durable")
        for i in range(6):
            memory.archival_insert(f"Snapshot passage {i} about invoices", tags=["snap"])
            memory.process_interaction(f"Snapshot talk {i}: deploy at noon.", f"Noted {i}.")
        memory.set_state("context", {"message_ids": [1, 2], "summary": "", "pressure_alerted": 0})
        return dict(json.loads(json.dumps(memory.snapshot())))


# -- known attacks ------------------------------------------------------------------------
def _inject(s: dict[str, Any]) -> None:
    s["tables"]["facts"].append({_INJECTION: 1})


def _all_core(s: dict[str, Any]) -> None:
    for row in s["tables"]["facts"]:
        row["tier"] = "core"


def _forged_tokens(s: dict[str, Any]) -> None:
    for row in s["tables"]["facts"]:
        row["tokens"] = 1
    s["tables"]["facts"][0]["text"] = "long " * 1500


def _oversized_fact(s: dict[str, Any]) -> None:
    s["tables"]["facts"][0]["text"] = "x" * 250_000
    s["tables"]["facts"][0]["tier"] = "archival"


def _nan_tau(s: dict[str, Any]) -> None:
    s["settings"]["tau"] = "nan"


def _huge_dim(s: dict[str, Any]) -> None:
    s["settings"]["embedder_dim"] = str(2**31)
    s["include_vectors"] = False


ATTACKS: dict[str, Callable[[dict[str, Any]], None]] = {
    "SQL in a column name": _inject, "core over its limit": _all_core,
    "forged token counts": _forged_tokens, "oversized fact": _oversized_fact,
    "NaN tau": _nan_tau, "huge embedder_dim": _huge_dim,
}


# -- mutations ----------------------------------------------------------------------------
def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield prefix
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _paths(value, (*prefix, key))
    elif isinstance(node, list):
        for index, value in enumerate(node[:3]):  # rows are alike; the first few stand for all
            yield from _paths(value, (*prefix, index))


def mutate(snapshot: dict[str, Any], edits: list[tuple[tuple[Any, ...], str, Any, str]]) -> Any:
    """A copy of ``snapshot`` with each (path, action, value, key) edit applied."""
    root: Any = copy.deepcopy(snapshot)
    for path, action, value, key in edits:
        if not path:
            root = value if action == "replace" else root
            continue
        with contextlib.suppress(LookupError, TypeError):  # an earlier edit removed the path
            parent: Any = root
            for step in path[:-1]:
                parent = parent[step]
            last = path[-1]
            if action == "replace":
                parent[last] = value
            elif action == "delete":
                del parent[last]
            elif action == "add_key" and isinstance(parent[last], dict):
                parent[last][key] = value
            elif action == "duplicate" and isinstance(parent, list):
                parent.append(copy.deepcopy(parent[last]))
    return root


def mutations(snapshot: dict[str, Any]) -> Any:
    from hypothesis import strategies as st

    edit = st.tuples(st.sampled_from(list(_paths(snapshot))),
                     st.sampled_from(("replace", "replace", "delete", "add_key", "duplicate")),
                     json_values(), st.one_of(nasty_text(20), st.sampled_from((_INJECTION,))))
    return st.lists(edit, min_size=1, max_size=3)


# -- one restore, in a child ------------------------------------------------------------------
def restore_problems(memory: HierarchicalMemory) -> list[str]:
    """What no memory built through the API can look like (the most telling first)."""
    problems: list[str] = []
    tables: tuple[tuple[DumpTable, str], ...] = (
        ("facts", "text"), ("passages", "text"), ("messages", "content"))
    for table, column in tables:
        if found := sum(INJECTED in row[column] for row in memory.store.export_rows(table)):
            problems.append(f"{found} {table} rows hold text built by SQL from the snapshot")
    for fact_id, text, tokens in ((f.id, f.text, f.tokens) for f in memory.store.facts.all()):
        try:
            clean_text(text, "fact")
        except InvalidInputError as exc:
            problems.append(f"fact #{fact_id} could not have been added: {exc}")
            continue
        if tokens != memory.tokenizer.count(text):
            problems.append(f"fact #{fact_id} claims {tokens} tokens, its text has "
                            f"{memory.tokenizer.count(text)}")
    if not (math.isfinite(memory.tau) and memory.tau > 0):
        problems.append(f"the decay constant tau is {memory.tau}")
    if memory.embedder.dim > MAX_EMBEDDER_DIM:
        problems.append(f"restored with an embedding dimension of {memory.embedder.dim}")
    return problems + audit(memory)


def _bounded_address_space() -> None:
    with open("/proc/self/status") as status:
        kib = next(int(line.split()[1]) for line in status if line.startswith("VmSize:"))
    limit = kib * 1024 + ADDRESS_SPACE_HEADROOM
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def restore_in_child(snapshot: Any, path: Path | None) -> Callable[[Report], None]:
    def work(report: Report) -> None:
        _bounded_address_space()
        # A snapshot naming another model would load it; the fuzz measures restore, not models.
        no_model = mock.patch("tiermem.memory.embed.embeddings.default_embedder",
                              lambda: HashingEmbedder(DIM))
        with no_model, HierarchicalMemory.restore(snapshot, path) as memory:
            report(json.dumps(restore_problems(memory)))
    return work


def judge_restore(snapshot: Any, path: Path | None, what: str, result: FaultResult) -> None:
    result.trials += 1
    outcome = run_forked(restore_in_child(snapshot, path))
    if (error := outcome.error) is not None:
        kind, text = error
        (result.clear if kind == "clear" else result.crash)(f"{what}: {text}")
    elif outcome.exit_code != 0 or not outcome.lines:
        result.crash(f"{what}: the restore killed its process (exit {outcome.exit_code})")
    else:
        result.diverge_all(json.loads(outcome.lines[-1]), what)


def fuzz_snapshot(seed: int, quick: bool, examples: int | None = None) -> FaultResult:
    result = FaultResult("fuzz: snapshot restore", "fuzz")
    snapshot = source_snapshot()
    with tempfile.TemporaryDirectory(prefix="tiermem-snapfuzz-") as tmp:
        for name, attack in ATTACKS.items():
            attacked = copy.deepcopy(snapshot)
            attack(attacked)
            judge_restore(attacked, None, name, result)

        def one(edits: list[tuple[tuple[Any, ...], str, Any, str]]) -> None:
            # Every fourth restore goes to disk, into a directory of its own.
            path = Path(tmp) / f"r{result.trials}" if result.trials % 4 == 0 else None
            what = "mutated " + ", ".join(f"{a} {'/'.join(map(str, p))[:40]}"
                                          for p, a, _, _ in edits)
            judge_restore(mutate(snapshot, edits), path, what, result)

        run_examples(mutations(snapshot), one, seed, examples or (30 if quick else 200))
    return result
