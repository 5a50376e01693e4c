"""The verification battery behind ``python cli.py benchmark``.

Each check runs real workloads against the memory engine and returns a
``CheckResult`` with its figures; none of them trusts the engine's own
bookkeeping where it can recompute a figure from what SQLite holds:

1. ``core_limit``: core never exceeds ``core_limit`` after any operation of
   random workloads (several seeds, both limit units, and on reopening with a
   smaller limit); core's size is recounted from its facts after every step.
2. ``evicted_findable``: every fact core evicted is found by an archival
   search for its text, with ``was_in_core`` and ``evicted_at`` (None once it
   is back in core), before and after reopening the store.
3. ``durable_resistance``: every eviction policy side by side on one flood of
   short-lived facts after a few durable ones; the policy under test must keep
   all durable facts in core and FIFO must lose the early ones.
4. ``snapshot_roundtrip`` (bench/snapshot_check.py): ``snapshot()`` then
   ``restore()`` (in memory, and through JSON to a directory, and reopened)
   compared row by row, field by field, then driven on with the same
   operations as the original.
5. ``crash_safety`` (bench/crash.py): a writer SIGKILLed at random points.
6. ``timing`` (bench/timing.py): operation costs, eviction at 1k vs 10k facts.
7. ``forget`` (bench/forget_check.py): after N forget requests no probe finds a
   forgotten secret (residual leak rate) and nothing else was deleted (collateral).
8. ``privacy`` (bench/privacy_check.py): drop precision and recall of the privacy
   policy's retention layer on a labelled PII set, per mode.

All workloads use the model-free hashing embedder, so the figures measure
the memory engine, not the embedding model.
"""

from __future__ import annotations

import random
import tempfile
import time
import traceback
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from tiermem.bench.forget_check import check_forget
from tiermem.bench.options import DEFAULT_POLICY, BatteryOptions, open_memory
from tiermem.bench.result import CheckResult
from tiermem.bench.snapshot_check import check_snapshot_roundtrip
from tiermem.bench.workload import Workload, apply_op, short_lived_sentence
from tiermem.memory import HierarchicalMemory
from tiermem.memory.tiers.policies import POLICY_NAMES, make_policy


def _elapsed(start: float) -> float:
    return time.perf_counter() - start


# -- 1. core limit -------------------------------------------------------------------------
def core_size_from_store(memory: HierarchicalMemory) -> int:
    """Core's size recounted from the facts SQLite holds in core, in the limit's unit."""
    texts = [f.text for f in memory.store.facts.in_core()]
    if memory.core.unit == "facts":
        return len(texts)
    return sum(memory.tokenizer.count(t) for t in texts)


def check_core_limit(opts: BatteryOptions) -> CheckResult:
    seeds = range(opts.seed, opts.seed + (2 if opts.quick else 4))
    ops_per_run = 120
    runs = operations = interactions = evictions = rejected = 0
    violations: list[str] = []
    drift: list[str] = []
    max_fill = 0.0
    for seed in seeds:
        rng = random.Random(seed)
        for unit, limits in (("tokens", (80, 150, 300)), ("facts", (4, 8, 16))):
            limit = rng.choice(limits)
            runs += 1
            memory = open_memory(None, opts.policy, core_limit=limit, core_limit_unit=unit)
            with memory:
                for step, op in enumerate(Workload(seed * 7 + runs).ops(ops_per_run)):
                    rejected += apply_op(memory, op, rng) == "rejected"
                    size = core_size_from_store(memory)
                    max_fill = max(max_fill, size / limit)
                    if size > limit:
                        violations.append(f"seed {seed} {unit}: {size} > {limit} after step "
                                          f"{step} ({op.kind})")
                    if size != memory.core.used:
                        drift.append(f"seed {seed} {unit}: core reports {memory.core.used}, "
                                     f"its facts add up to {size}")
                operations += ops_per_run
                interactions += memory.tick
                evictions += sum(f.evictions for f in memory.facts())
    shrink = _shrink_on_reopen(opts)
    violations += shrink
    passed = not violations and not drift and evictions > 0
    figures = {
        "runs": runs, "operations": operations, "interactions": interactions,
        "evictions": evictions, "rejected_edits": rejected, "max_fill": round(max_fill, 4),
        "violations": len(violations), "bookkeeping_mismatches": len(drift),
        "reopen_smaller_limit_ok": not shrink,
    }
    if passed:
        detail = (f"{operations} operations ({interactions} interactions) over {runs} runs, "
                  f"both units: max fill {max_fill:.0%} of core_limit, {evictions} evictions, "
                  f"0 violations")
    elif evictions == 0:
        detail = "no eviction happened, so the limit was never under pressure"
    else:
        detail = "; ".join((violations + drift)[:3])
    return CheckResult("core_limit", passed, figures, detail)


def _shrink_on_reopen(opts: BatteryOptions) -> list[str]:
    """Reopening with a smaller limit evicts down to it, and deletes nothing."""
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        with open_memory(home, opts.policy, core_limit=300, core_limit_unit="tokens") as memory:
            for op in Workload(opts.seed + 999).ops(60):
                apply_op(memory, op, random.Random(opts.seed))
            before = len(memory.facts())
        with open_memory(home, opts.policy, core_limit=60) as memory:
            size, after = core_size_from_store(memory), len(memory.facts())
        problems = []
        if size > 60:
            problems.append(f"reopened with core_limit=60, core holds {size}")
        if after != before:
            problems.append(f"reopening with a smaller limit changed the facts: {before} -> "
                            f"{after}")
        return problems


# -- 2. evicted facts are findable ---------------------------------------------------------
def _evicted_ids(memory: HierarchicalMemory) -> set[int]:
    from_events = {e["fact_id"] for e in memory.events_since(0)
                   if e["kind"] == "evict" and e["fact_id"] is not None}
    return from_events | {f.id for f in memory.facts() if f.evictions > 0}


def _find_evicted(memory: HierarchicalMemory, ids: Iterable[int]) -> tuple[int, int, list[str]]:
    """(found, found as the top hit, misses) for archival searches of each fact's text."""
    found = top = 0
    misses: list[str] = []
    for fact_id in sorted(ids):
        fact = memory.fact(fact_id)
        if fact is None:
            misses.append(f"fact #{fact_id} was deleted")
            continue
        hits = memory.archival_search(fact.text, k=10).hits
        # A fact promoted back to core since keeps its passage, no longer marked evicted.
        evicted = fact.tier == "archival"
        match = [i for i, h in enumerate(hits)
                 if h.fact_id == fact_id and h.text == fact.text and h.was_in_core
                 and (h.evicted_at is not None) == evicted]
        if match:
            found += 1
            top += match[0] == 0
        else:
            near = next((h for h in hits if h.fact_id == fact_id), None)
            why = ("not in the top 10" if near is None else
                   f"was_in_core={near.was_in_core} evicted_at={near.evicted_at}")
            misses.append(f"#{fact_id} {fact.text[:50]!r}: {why}")
    return found, top, misses


def check_evicted_findable(opts: BatteryOptions) -> CheckResult:
    rng = random.Random(opts.seed)
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        with open_memory(home, opts.policy, core_limit=120, core_limit_unit="tokens") as memory:
            for op in Workload(opts.seed + 101).ops(150 if opts.quick else 300):
                apply_op(memory, op, rng)
            # Direct short-lived facts evict under every policy, durable-aware or not.
            for i in range(60 if opts.quick else 120):
                memory.add_fact(f"{short_lived_sentence(rng).rstrip('.')} (note {i})",
                                "short-lived")
            evicted = _evicted_ids(memory)
            live = _find_evicted(memory, evicted)
        with open_memory(home, opts.policy) as memory:
            reopened = _find_evicted(memory, evicted)
    total = len(evicted)
    rate = min(live[0], reopened[0]) / total if total else 0.0
    figures = {
        "evicted_facts": total,
        "found": live[0],
        "found_after_reopen": reopened[0],
        "archival_hit_rate": round(rate, 4),
        "top_hit_share": round(live[1] / total, 4) if total else 0.0,
        "misses": len(live[2]) + len(reopened[2]),
    }
    passed = total > 0 and rate == 1.0
    if passed:
        detail = (f"all {total} evicted facts found by searching their text, with was_in_core "
                  f"and evicted_at, before and after reopening ({live[1]} as the top hit)")
    elif total == 0:
        detail = "nothing was evicted, so there was nothing to find"
    else:
        detail = (f"archival hit rate {rate:.1%} for evicted facts; "
                  + "; ".join((live[2] + reopened[2])[:3]))
    return CheckResult("evicted_findable", passed, figures, detail)


# -- 3. durable facts resist eviction ------------------------------------------------------
DURABLE_FACTS = (
    "User is allergic to peanuts",
    "The production region is eu-west-1",
    "The on-call rotation is Alice then Bob",
    "The incident commander is Dana",
    "The customer-impact SLA is 99.95% monthly",
)
DURABLE_TURNS = (
    "I'm allergic to peanuts.",
    "The production region is eu-west-1.",
    "The on-call rotation is Alice then Bob.",
    "The incident commander is Dana.",
)


def _flood(memory: HierarchicalMemory, seed: int, size: int, via_turns: bool) -> None:
    rng = random.Random(seed)
    recent: list[str] = []
    for i in range(size):
        sentence = f"{short_lived_sentence(rng).rstrip('.')} (update {i})"
        if via_turns:
            memory.process_interaction(sentence + ".", "Noted.")
            continue
        memory.add_fact(sentence, "short-lived")
        recent.append(sentence)
        # A busy session keeps touching what is hot; that is what LFU/LRU reward.
        if rng.random() < 0.5:
            memory.add_fact(rng.choice(recent[-6:]), "short-lived")


def _durable_share(policy: str, seed: int, flood: int) -> dict[str, Any]:
    with open_memory(None, policy, core_limit=12, core_limit_unit="facts") as memory:
        ids = [memory.add_fact(text, "durable") for text in DURABLE_FACTS]
        _flood(memory, seed, flood, via_turns=False)
        kept = [i for i in ids if i in memory.core]
        lost = [memory.fact(i) for i in ids if i not in memory.core]
        short_evictions = sum(f.evictions for f in memory.facts()
                              if f.durability == "short-lived")
        return {
            "share": len(kept) / len(ids),
            "lost": [f.text for f in lost if f is not None],
            "lost_in_archival": sum(f is not None and f.tier == "archival" for f in lost),
            "short_lived_evictions": short_evictions,
        }


def _durable_share_via_turns(policy: str, seed: int, flood: int) -> tuple[float, int]:
    """The same pressure through the offline extractor: (share kept, misclassified)."""
    with open_memory(None, policy, core_limit=12, core_limit_unit="facts") as memory:
        ids = [i for text in DURABLE_TURNS for i in memory.process_interaction(text, "Noted.")]
        _flood(memory, seed, flood, via_turns=True)
        durable = [i for i in ids if (f := memory.fact(i)) and f.durability == "durable"]
        misclassified = len(DURABLE_TURNS) - len(durable)
        kept = sum(i in memory.core for i in durable)
        return kept / len(DURABLE_TURNS), misclassified


def check_durable_resistance(opts: BatteryOptions) -> CheckResult:
    flood = 120 if opts.quick else 240
    policies = list(dict.fromkeys((*POLICY_NAMES, opts.policy)))
    runs = {name: _durable_share(name, opts.seed, flood) for name in policies}
    under_test = runs[opts.policy]
    via_turns, misclassified = _durable_share_via_turns(opts.policy, opts.seed, flood)
    shares = {name: round(run["share"], 4) for name, run in runs.items()}
    figures: dict[str, Any] = {
        "policy_under_test": opts.policy,
        "durable_facts": len(DURABLE_FACTS),
        "short_lived_flood": flood,
        "share_kept": shares,
        "share_kept_via_extractor": round(via_turns, 4),
        "short_lived_evictions_under_test": under_test["short_lived_evictions"],
        "fifo_lost_still_in_archival": runs["fifo"]["lost_in_archival"],
    }
    problems = []
    if under_test["share"] < 1.0:
        problems.append(f"{opts.policy} kept {under_test['share']:.0%} of durable facts, lost "
                        + ", ".join(repr(t) for t in under_test["lost"][:3]))
    if misclassified:
        problems.append(f"the offline extractor classified {misclassified} of "
                        f"{len(DURABLE_TURNS)} durable statements as short-lived")
    elif via_turns < 1.0:
        problems.append(f"{opts.policy} kept {via_turns:.0%} of durable facts stated in turns")
    if runs["fifo"]["share"] >= 1.0:
        problems.append("fifo kept every durable fact: the flood put no pressure on core")
    if under_test["short_lived_evictions"] == 0:
        problems.append("no short-lived fact was evicted: the flood never filled core")
    side_by_side = ", ".join(f"{name} {share:.0%}" for name, share in shares.items())
    detail = (f"durable facts kept in core after {flood} short-lived ones: {side_by_side}"
              if not problems else "; ".join(problems) + f" (side by side: {side_by_side})")
    return CheckResult("durable_resistance", not problems, figures, detail)


# -- the battery ---------------------------------------------------------------------------
def _crash_safety(opts: BatteryOptions) -> CheckResult:
    from tiermem.bench.crash import check_crash_safety

    return check_crash_safety(opts.seed, kills=3 if opts.quick else 8, policy=opts.policy)


def _privacy(opts: BatteryOptions) -> CheckResult:
    from tiermem.bench.privacy_check import check_privacy

    return check_privacy(opts)


def _timing(opts: BatteryOptions) -> CheckResult:
    from tiermem.bench.timing import check_timing

    return check_timing(opts.seed, quick=opts.quick, policy=opts.policy)


CHECKS: dict[str, Callable[[BatteryOptions], CheckResult]] = {
    "core_limit": check_core_limit,
    "evicted_findable": check_evicted_findable,
    "durable_resistance": check_durable_resistance,
    "snapshot_roundtrip": check_snapshot_roundtrip,
    "crash_safety": _crash_safety,
    "timing": _timing,
    "forget": check_forget,
    "privacy": _privacy,
}


def select_checks(only: Sequence[str] | None) -> list[str]:
    """Check names to run, in battery order; ``only`` items may be comma lists."""
    if not only:
        return list(CHECKS)
    wanted = {name.strip() for item in only for name in item.split(",") if name.strip()}
    unknown = sorted(wanted - set(CHECKS))
    if unknown:
        raise ValueError(f"unknown check{'s' if len(unknown) > 1 else ''} "
                         f"{', '.join(unknown)}; choose from {', '.join(CHECKS)}")
    if not wanted:
        raise ValueError(f"no check named; choose from {', '.join(CHECKS)}")
    return [name for name in CHECKS if name in wanted]


def run_battery(
    seed: int = 0,
    quick: bool = False,
    only: Sequence[str] | None = None,
    policy: str = DEFAULT_POLICY,
    on_start: Callable[[str, int, int], None] | None = None,
    on_result: Callable[[CheckResult, int, int], None] | None = None,
) -> list[CheckResult]:
    """Run the checks in order; a check that raises is reported as failed, not re-raised.

    ``on_start(name, index, total)`` and ``on_result(result, index, total)``
    report progress while it runs.
    """
    names = select_checks(only)
    make_policy(policy)  # an unknown policy is a usage error, not six failed checks
    opts = BatteryOptions(seed=seed, quick=quick, policy=policy)
    results: list[CheckResult] = []
    for index, name in enumerate(names, start=1):
        if on_start is not None:
            on_start(name, index, len(names))
        start = time.perf_counter()
        try:
            result = CHECKS[name](opts)
        except Exception as exc:
            result = CheckResult(name, False, {"error": type(exc).__name__},
                                 f"raised {type(exc).__name__}: {exc} ({_where(exc)})")
        result.seconds = _elapsed(start)
        results.append(result)
        if on_result is not None:
            on_result(result, index, len(names))
    return results


def _where(exc: BaseException) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return "no traceback"
    last = frames[-1]
    return f"{Path(last.filename).name}:{last.lineno} in {last.name}"
