"""The battery's snapshot round-trip check and the state comparison behind it.

``check_snapshot_roundtrip`` runs a random workload, then ``snapshot()`` and
``restore()`` three ways: in memory, through JSON to a directory, and that
directory reopened. Each restored memory is compared with the original row
by row and field by field over every table that holds state (read from the
schema, so a table that snapshots forget is caught), the meta settings and
the live state (core, counters, FAISS ids). The original and the in-memory
restore are then driven on with the same operations and must make the same
decisions.
"""

from __future__ import annotations

import json
import random
import tempfile
from pathlib import Path
from typing import Any

from tiermem.bench.options import BatteryOptions, open_memory
from tiermem.bench.result import CheckResult
from tiermem.bench.sqlite_only import stored_tables
from tiermem.bench.workload import Workload, apply_op
from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.store.records import DUMP_TABLES
from tiermem.memory.store.sqlite import FILE_META_KEYS


def memory_state(memory: HierarchicalMemory) -> dict[str, Any]:
    """Everything that must survive a round trip: every row, settings and live state."""
    missing = set(stored_tables(memory)) - set(DUMP_TABLES)
    assert not missing, f"tables that snapshots leave out: {sorted(missing)}"
    tables = {
        table: {row["tick" if table == "history" else "id"]: row
                for row in memory.store.export_rows(table)}
        for table in DUMP_TABLES
    }
    meta = {key: value for key, value in memory.store.settings.items()
            # Restoring rebuilds the FAISS indexes, which bumps their generation, into
            # a database of its own.
            if not key.endswith("_vector_generation") and key not in FILE_META_KEYS}
    live = {
        "core_ids": sorted(f.id for f in memory.core),
        "core_used": memory.core.used,
        "core_tokens": memory.core.tokens,
        "core_durable": memory.core.durable_count,
        "core_limit": memory.core.limit,
        "core_unit": memory.core.unit,
        "policy": memory.policy.name,
        "tick": memory.tick,
        "counters": dict(memory.counters),
        "archival_passages": len(memory.archival),
        "recall_messages": len(memory.recall),
        "archival_vector_ids": _vector_ids(memory, "archival"),
        "recall_vector_ids": _vector_ids(memory, "recall"),
        "facts": {f.id: f.to_dict() for f in memory.facts()},
    }
    return {"tables": tables, "meta": meta, "live": live}


def _vector_ids(memory: HierarchicalMemory, tier: str) -> list[int]:
    index = memory.archival.vectors if tier == "archival" else memory.recall.vectors
    if index is None:
        return []
    return sorted(int(i) for i in index.ids())


def diff_states(a: dict[str, Any], b: dict[str, Any], label: str) -> tuple[int, list[str]]:
    """(fields compared, mismatches), comparing every row field by field."""
    compared = 0
    out: list[str] = []

    def same(where: str, x: Any, y: Any) -> None:
        nonlocal compared
        compared += 1
        if x != y:
            out.append(f"{label}: {where}: {_short(x)} != {_short(y)}")

    for section in ("tables", "live"):
        for name in sorted(set(a[section]) | set(b[section])):
            x, y = a[section].get(name), b[section].get(name)
            if isinstance(x, dict) and isinstance(y, dict) and (section == "tables"
                                                                or name == "facts"):
                for key in sorted(set(x) | set(y)):
                    row_x, row_y = x.get(key), y.get(key)
                    if row_x is None or row_y is None:
                        same(f"{name} #{key}", row_x, row_y)
                        continue
                    for column in sorted(set(row_x) | set(row_y)):
                        same(f"{name} #{key}.{column}", row_x.get(column), row_y.get(column))
            else:
                same(name, x, y)
    for key in sorted(set(a["meta"]) | set(b["meta"])):
        same(f"meta {key}", a["meta"].get(key), b["meta"].get(key))
    return compared, out


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _behaviour(memory: HierarchicalMemory, seed: int, steps: int) -> list[Any]:
    """Drive the memory on and record what it decided (wall-clock fields excluded)."""
    first = memory.last_event_id()
    rng = random.Random(seed)
    for op in Workload(seed).ops(steps):
        apply_op(memory, op, rng)
    events = [(e["tick"], e["kind"], e["fact_id"]) for e in memory.events_since(first)]
    facts = [(f.id, f.tier, f.access_count, f.last_access, f.durability, f.evictions,
              f.promotions) for f in memory.facts()]
    return [events, facts]


def check_snapshot_roundtrip(opts: BatteryOptions) -> CheckResult:
    rng = random.Random(opts.seed)
    mismatches: list[str] = []
    compared = 0
    with (tempfile.TemporaryDirectory() as tmp,
          open_memory(Path(tmp) / "original", opts.policy, core_limit=150) as original):
        for op in Workload(opts.seed + 202).ops(120 if opts.quick else 250):
            apply_op(original, op, rng)
        first = min(row["id"] for row in original.recall.iter_rows())
        original.recall.erase([first], "battery: an audited erasure must round-trip too")
        original.set_state("summary", {"text": "a running summary", "turns": [1, 2]})
        snapshot = original.snapshot()
        expected = memory_state(original)
        restored = HierarchicalMemory.restore(snapshot, None, embedder=HashingEmbedder())
        with restored:
            n, bad = diff_states(expected, memory_state(restored), "in memory")
            compared, mismatches = compared + n, mismatches + bad
            as_json = json.loads(json.dumps(snapshot))
            target = Path(tmp) / "restored"
            with HierarchicalMemory.restore(as_json, target,
                                            embedder=HashingEmbedder()) as on_disk:
                n, bad = diff_states(expected, memory_state(on_disk), "via JSON to disk")
                compared, mismatches = compared + n, mismatches + bad
            with open_memory(target, opts.policy) as reopened:
                n, bad = diff_states(expected, memory_state(reopened), "reopened")
                compared, mismatches = compared + n, mismatches + bad
            steps = 30 if opts.quick else 60
            diverged = (_behaviour(original, opts.seed + 303, steps)
                        != _behaviour(restored, opts.seed + 303, steps))
    tables = expected["tables"]
    figures = {
        "facts": len(tables["facts"]),
        "facts_in_core": len(expected["live"]["core_ids"]),
        "passages": len(tables["passages"]),
        "messages": len(tables["messages"]),
        "events": len(tables["events"]),
        "restores_compared": 3,
        "fields_compared": compared,
        "mismatches": len(mismatches),
        "diverged_after_restore": diverged,
    }
    passed = not mismatches and not diverged and figures["facts"] > 0
    if passed:
        detail = (f"{figures['facts']} facts, {figures['passages']} passages, "
                  f"{figures['messages']} messages: {compared} fields identical after 3 "
                  f"restores; the restored memory then evicted exactly like the original")
    else:
        detail = "; ".join(mismatches[:3]) or (
            "the restored memory made different decisions than the original on the same "
            "operations" if diverged else "the workload stored no facts")
    return CheckResult("snapshot_roundtrip", passed, figures, detail)
