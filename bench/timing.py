"""Timing figures for the memory operations, measured side by side in one run.

Reported as medians and p99 in milliseconds, rates per second, and ratios
where a baseline is measured in the same run. Times depend on the machine and
its load, so none of them is pass/fail.

The one verdict is how eviction's cost grows with core size, judged on work
counted rather than time (bench/work_count.py): an ``add_fact`` that evicts
at 10x the core size must do less than 2x the Python calls and SQLite VM
instructions, which the eviction heap's O(log n) gives with room to spare
and any O(n) scan fails by far.
"""

from __future__ import annotations

import random
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tiermem.bench.result import CheckResult
from tiermem.bench.work_count import counting_work, growth
from tiermem.bench.workload import NAMES, REGIONS, SERVICES, durable_sentence, short_lived_sentence
from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.tiers.archival import NewPassage
from tiermem.memory.tiers.recall import NewMessage

#: Largest allowed growth of work per eviction at 10x the core size.
EVICTION_WORK_LIMIT = 2.0
#: Evicting adds whose work is counted at each core size.
WORK_SAMPLE = 40


def _stats(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
    return {"p50_ms": round(1000 * statistics.median(ordered), 4),
            "p99_ms": round(1000 * p99, 4), "n": len(ordered)}


def _timed(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> float:
    start = time.perf_counter()
    fn(*args, **kwargs)
    return time.perf_counter() - start


def _memory(path: Path | None, policy: str, **options: Any) -> HierarchicalMemory:
    return HierarchicalMemory(path, policy=policy, embedder=HashingEmbedder(), **options)


def _query(rng: random.Random) -> str:
    return f"{rng.choice(SERVICES)} {rng.choice((*REGIONS, *NAMES, 'restarting', 'timeout'))}"


# -- core ----------------------------------------------------------------------------------
def _filled_core(size: int, policy: str, timed: bool) -> tuple[HierarchicalMemory, list[float]]:
    memory = _memory(None, policy, core_limit=size, core_limit_unit="facts", recall_dense=False)
    samples: list[float] = []
    if timed:  # each add its own interaction and transaction, as an agent does
        for i in range(size):
            samples.append(_timed(memory.add_fact, f"fill fact {i}", "short-lived"))
    else:
        with memory.interaction():
            for i in range(size):
                memory.add_fact(f"fill fact {i}", "short-lived")
    return memory, samples


def _eviction_samples(memories: dict[int, HierarchicalMemory], rounds: int,
                      block: int, tag: str) -> tuple[dict[int, list[float]], int]:
    samples: dict[int, list[float]] = {size: [] for size in memories}
    evictions_missing = 0
    for r in range(rounds):
        for size, memory in memories.items():
            before = memory.last_event_id()
            for j in range(block):
                text = f"incoming fact {tag} {r} {j}"
                samples[size].append(_timed(memory.add_fact, text, "short-lived"))
            evicted = sum(e["kind"] == "evict" for e in memory.events_since(before))
            evictions_missing += max(0, block - evicted)
    return samples, evictions_missing


def _evicting_adds(memory: HierarchicalMemory, texts: list[str]) -> int:
    """Add ``texts`` as short-lived facts; how many of the adds did not evict."""
    before = memory.last_event_id()
    for text in texts:
        memory.add_fact(text, "short-lived")
    evicted = sum(e["kind"] == "evict" for e in memory.events_since(before))
    return max(0, len(texts) - evicted)


def _eviction_work(memories: dict[int, HierarchicalMemory]) -> tuple[dict[str, Any], int]:
    work: dict[str, Any] = {}
    missing = 0
    for size, memory in memories.items():
        texts = [f"counted fact {j}" for j in range(WORK_SAMPLE)]
        # The first write after the memory is filled reads the rows' marks on its counters
        # once (memory/store/references.py), whatever the evictions: work per eviction is
        # counted after it.
        missing += _evicting_adds(memory, ["warm-up fact"])
        with counting_work(memory) as counted:
            missing += _evicting_adds(memory, texts)
        work[f"at_{size}"] = counted.per(WORK_SAMPLE)
    small, large = work.values()
    work["growth"] = growth(small, large)
    return work, missing


def measure_core(sizes: tuple[int, int], policy: str, rounds: int) -> dict[str, Any]:
    small, insert_samples = _filled_core(sizes[0], policy, timed=True)
    large, _ = _filled_core(sizes[1], policy, timed=False)
    memories = {sizes[0]: small, sizes[1]: large}
    try:
        work, missing_counted = _eviction_work(memories)
        samples, missing = _eviction_samples(memories, rounds, 20, "a")
    finally:
        small.close()
        large.close()
    a, b = _stats(samples[sizes[0]]), _stats(samples[sizes[1]])
    return {
        "core_add_fact": {**_stats(insert_samples),
                          "per_s": round(len(insert_samples) / sum(insert_samples), 1)},
        "eviction": {
            f"at_{sizes[0]}": a,
            f"at_{sizes[1]}": b,
            "ratio_p50": round(statistics.median(samples[sizes[1]])
                               / statistics.median(samples[sizes[0]]), 3),
            "ratio_p99": round(b["p99_ms"] / a["p99_ms"], 3) if a["p99_ms"] else None,
            "adds_without_eviction": missing + missing_counted,
            "work": work,
        },
    }


# -- archival and recall -------------------------------------------------------------------
def measure_archival(home: Path, size: int, rng: random.Random, queries: int) -> dict[str, Any]:
    texts = [f"{durable_sentence(rng)} {short_lived_sentence(rng)} #{i}" for i in range(size)]
    first = size // 5
    with _memory(home, "freq_recency_durable", recall_dense=False) as memory:
        singles = [_timed(memory.archival_insert, t, tags=["bench"]) for t in texts[:first]]
        search_small = [_timed(memory.archival_search, _query(rng), k=10)
                        for _ in range(queries)]
        start = time.perf_counter()
        for i in range(first, size, 500):
            memory.archival.insert_many([NewPassage(text=t) for t in texts[i : i + 500]])
        bulk_s = time.perf_counter() - start
        search_large = [_timed(memory.archival_search, _query(rng), k=10)
                        for _ in range(queries)]
    small, large = _stats(search_small), _stats(search_large)
    return {
        "insert": {**_stats(singles), "per_s": round(len(singles) / sum(singles), 1)},
        "bulk_insert_per_s": round((size - first) / bulk_s, 1),
        f"search_at_{first}": small,
        f"search_at_{size}": large,
        "search_ratio_p50": round(large["p50_ms"] / small["p50_ms"], 3),
    }


def measure_recall(home: Path, size: int, rng: random.Random, queries: int) -> dict[str, Any]:
    with _memory(home, "freq_recency_durable") as memory:
        turns = [_timed(memory.process_interaction,
                        f"{durable_sentence(rng)} {short_lived_sentence(rng)}", "Noted.")
                 for _ in range(queries)]
        singles = [_timed(memory.recall.append, "user", short_lived_sentence(rng), i)
                   for i in range(queries)]
        batch = [NewMessage(role=rng.choice(("user", "assistant")),
                            content=short_lived_sentence(rng), turn=i) for i in range(size)]
        start = time.perf_counter()
        for i in range(0, size, 500):
            memory.recall.append_many(batch[i : i + 500])
        bulk_s = time.perf_counter() - start
        search = [_timed(memory.recall_search, _query(rng), k=10) for _ in range(queries)]
        total = len(memory.recall)
    return {
        "turn": _stats(turns),
        "append": {**_stats(singles), "per_s": round(len(singles) / sum(singles), 1)},
        "bulk_append_per_s": round(size / bulk_s, 1),
        f"search_at_{total}": _stats(search),
    }


def check_timing(seed: int, quick: bool, policy: str) -> CheckResult:
    rng = random.Random(seed)
    sizes = (500, 5000) if quick else (1000, 10000)
    figures: dict[str, Any] = {"core_sizes": list(sizes)}
    figures.update(measure_core(sizes, policy, rounds=8 if quick else 15))
    stored, queries = (1000, 50) if quick else (5000, 150)
    with tempfile.TemporaryDirectory() as tmp:
        figures["archival"] = measure_archival(Path(tmp) / "archival", stored, rng, queries)
        figures["recall"] = measure_recall(Path(tmp) / "recall", stored, rng, queries)
    eviction = figures["eviction"]
    work = eviction["work"]
    passed = work["growth"] < EVICTION_WORK_LIMIT and eviction["adds_without_eviction"] == 0
    small, large = (eviction[f"at_{s}"]["p50_ms"] for s in sizes)
    calls = [work[f"at_{s}"]["python_calls"] for s in sizes]
    search = figures["archival"][f"search_at_{stored}"]
    detail = (f"work per eviction {calls[0]:.0f} calls at {sizes[0]} facts vs {calls[1]:.0f} "
              f"at {sizes[1]} (growth {work['growth']:.2f}, limit {EVICTION_WORK_LIMIT:g}); "
              f"time p50 {small:.3f} vs {large:.3f} ms; archival insert "
              f"{figures['archival']['insert']['per_s']:.0f}/s, search p50 "
              f"{search['p50_ms']:.2f} ms p99 {search['p99_ms']:.2f} ms")
    if eviction["adds_without_eviction"]:
        passed = False
        detail = (f"{eviction['adds_without_eviction']} measured adds did not evict, so the "
                  f"eviction figures are not eviction costs; " + detail)
    elif not passed:
        detail = "eviction cost grows with core size: " + detail
    return CheckResult("timing", passed, figures, detail)
