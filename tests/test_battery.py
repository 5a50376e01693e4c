"""The verification battery (`tiermem benchmark`).

It passes on the engine as shipped, and each check fails when the engine is
broken in the way it guards against, so none of them is a tautology.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import tiermem.cli as cli
from tiermem.bench import battery
from tiermem.bench.battery import CHECKS, BatteryOptions, run_battery, select_checks
from tiermem.bench.crash import verify_home
from tiermem.bench.snapshot_check import check_snapshot_roundtrip
from tiermem.memory import (
    HashingEmbedder,
    HierarchicalMemory,
    InvalidConfigError,
    InvalidInputError,
)
from tiermem.memory.store.sqlite.vectors import FaissIndex
from tiermem.memory.tiers import policies
from tiermem.memory.tiers.archival import ArchivalTier
from tiermem.memory.tiers.core import CoreTier
from tiermem.memory.tiers.lifecycle import FactLifecycle
from tiermem.memory.types import Fact

QUICK = BatteryOptions(seed=0, quick=True)


@dataclass(frozen=True)
class DurableFirst:
    """Broken on purpose: durable facts rank below short-lived ones, so they leave first."""

    name: str = "durable_first"

    def key(self, fact: Fact) -> tuple[float, ...]:
        return (0.0 if fact.durability == "durable" else 1.0, float(fact.entered_core_seq),
                fact.id)

    def may_evict_for(self, victim: Fact, incoming: Fact) -> bool:
        return True


@pytest.fixture(autouse=True)
def _wide_console(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")


@pytest.fixture
def registry(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Registrations made in a test disappear after it."""
    monkeypatch.setattr(policies, "_REGISTRY", dict(policies._REGISTRY))
    yield


def _run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = cli.main(["benchmark", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


# -- the battery passes on the shipped engine ------------------------------------------------
def test_quick_battery_passes_through_the_cli(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    out_file = tmp_path / "battery.json"
    code, out, _ = _run_cli(["--quick", "--json", str(out_file)], capsys)
    assert code == 0, out
    report = json.loads(out_file.read_text())
    assert report["passed"] is True and report["quick"] is True
    assert report["policy"] == "freq_recency_durable"  # the default, with no --policy
    checks = {c["name"]: c for c in report["checks"]}
    assert list(checks) == list(CHECKS)
    for check in checks.values():
        assert check["passed"] is True, check
        assert set(check) >= {"name", "passed", "figures", "detail"} and check["detail"]
    figures = {name: c["figures"] for name, c in checks.items()}
    assert figures["core_limit"]["violations"] == 0
    assert figures["core_limit"]["operations"] >= 100 and figures["core_limit"]["evictions"] > 0
    assert figures["evicted_findable"]["archival_hit_rate"] == 1.0
    assert figures["evicted_findable"]["evicted_facts"] > 0
    shares = figures["durable_resistance"]["share_kept"]
    assert set(shares) == set(policies.POLICY_NAMES)
    assert shares["freq_recency_durable"] == 1.0 and shares["fifo"] < 1.0
    assert figures["snapshot_roundtrip"]["mismatches"] == 0
    assert figures["snapshot_roundtrip"]["fields_compared"] > 1000
    crash = figures["crash_safety"]
    assert crash["kills"] == 3 and crash["reopens_consistent"] == 3 and crash["lost_ops"] == 0
    work = figures["timing"]["eviction"]["work"]
    # Sublinear: an eviction among 5000 facts makes fewer calls than there are facts.
    assert work["growth"] < 2 and work["at_5000"]["python_calls"] < 5000
    assert f"[1/{len(CHECKS)}] core_limit ... pass" in out
    assert f"all {len(CHECKS)} checks passed" in out


# -- a broken policy or engine makes the battery fail -------------------------------------------
def test_a_policy_that_evicts_durable_facts_first_fails(
    registry: None, capsys: pytest.CaptureFixture[str]
) -> None:
    policies.register_policy("durable_first", lambda tau: DurableFirst())
    code, out, _ = _run_cli(["--only", "durable_resistance", "--policy", "durable_first"], capsys)
    assert code == 1
    assert "FAIL durable_resistance: durable_first kept 0% of durable facts" in out
    assert "1 of 1 checks failed" in out


def test_core_limit_fails_when_core_never_evicts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(CoreTier, "plan_room", lambda self, incoming, extra, exclude=None: [])
    result = battery.check_core_limit(QUICK)
    assert not result.passed
    assert result.figures["violations"] > 0 and result.figures["max_fill"] > 1


def test_evicted_findable_fails_when_eviction_forgets_where_a_fact_came_from(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    insert = ArchivalTier.insert

    def forgetful(self: ArchivalTier, text: str, **fields: Any) -> int:
        fields.pop("was_in_core", None)
        fields.pop("evicted_at", None)
        return insert(self, text, **fields)

    monkeypatch.setattr(ArchivalTier, "insert", forgetful)
    result = battery.check_evicted_findable(QUICK)
    assert not result.passed
    assert result.figures["archival_hit_rate"] < 0.5
    assert "was_in_core=False" in result.detail


def test_snapshot_roundtrip_fails_when_a_snapshot_loses_access_counts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    snapshot = HierarchicalMemory.snapshot

    def lossy(self: HierarchicalMemory, include_vectors: bool = True) -> dict[str, Any]:
        data = snapshot(self, include_vectors)
        for row in data["tables"]["facts"]:
            row["access_count"] = 1
        return data

    monkeypatch.setattr(HierarchicalMemory, "snapshot", lossy)
    result = check_snapshot_roundtrip(QUICK)
    assert not result.passed
    assert result.figures["mismatches"] > 0
    assert "access_count" in result.detail


def test_crash_audit_reports_lost_ops_and_a_faiss_index_out_of_step(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    with HierarchicalMemory(home, embedder=HashingEmbedder()) as memory:
        memory.archival_insert("crash passage [r0n0] the production region is eu-west-1")
    assert verify_home(home, [("passage", "r0n0")])["problems"] == []
    lost = verify_home(home, [("passage", "r0n0"), ("fact", "r0n1")])
    assert lost["lost"] == 1 and "lost fact r0n1" in lost["problems"]
    # An index that is not rebuilt from SQLite when its file is missing must be caught.
    (home / "archival.faiss").unlink()
    monkeypatch.setattr(FaissIndex, "rebuild", lambda self: setattr(self, "index",
                                                                      self._new_index()))
    audit = verify_home(home, [])
    assert any("passages: ids with a vector in SQLite but not in FAISS: [1]" in p
               for p in audit["problems"])


def test_timing_fails_when_eviction_cost_grows_with_core(monkeypatch: pytest.MonkeyPatch) -> None:
    evict = FactLifecycle.evict

    def linear(self: FactLifecycle, fact: Fact) -> None:
        core = self.core
        sorted(core._facts.values(), key=lambda f: self.policy.key(f))  # an O(n) scan
        evict(self, fact)

    monkeypatch.setattr(FactLifecycle, "evict", linear)
    result = battery.CHECKS["timing"](QUICK)
    assert not result.passed
    work = result.figures["eviction"]["work"]
    # A scan over core's 500 vs 5000 facts: about ten times the calls, however loaded the machine.
    assert work["growth"] > 5
    assert work["at_5000"]["python_calls"] > 5000 > work["at_500"]["python_calls"]
    assert "grows with core size" in result.detail


def test_a_check_that_raises_is_reported_as_failed(monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(opts: BatteryOptions) -> Any:
        raise RuntimeError("engine exploded")

    monkeypatch.setitem(battery.CHECKS, "core_limit", boom)
    [result] = run_battery(only=["core_limit"])
    assert not result.passed
    assert "RuntimeError: engine exploded" in result.detail


# -- options -------------------------------------------------------------------------------------
def test_only_takes_repeats_and_comma_lists_in_battery_order(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert select_checks(["timing,core_limit", "durable_resistance"]) == [
        "core_limit", "durable_resistance", "timing"]
    assert select_checks(None) == list(CHECKS)
    out_file = tmp_path / "only.json"
    code, out, _ = _run_cli(["--only", "durable_resistance", "--only", "core_limit", "--quick",
                             "--seed", "3", "--json", str(out_file)], capsys)
    assert code == 0, out
    report = json.loads(out_file.read_text())
    assert [c["name"] for c in report["checks"]] == ["core_limit", "durable_resistance"]
    assert report["seed"] == 3


def test_unknown_check_or_policy_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run_cli(["--only", "core_limit,nope"], capsys)
    assert code == 2
    assert "unknown check nope; choose from core_limit, evicted_findable" in err
    code, _, err = _run_cli(["--policy", "random"], capsys)
    assert code == 2
    assert "unknown eviction policy 'random'; choose one of fifo, lru" in err


def test_register_policy(registry: None) -> None:
    policies.register_policy("durable_first", lambda tau: DurableFirst())
    assert policies.make_policy("durable_first").name == "durable_first"
    assert policies.policy_names()[-1] == "durable_first"
    # Mistakes are tiermem's InvalidInputError (still a ValueError), saying what to do.
    with pytest.raises(InvalidInputError, match="already registered; pass replace=True"):
        policies.register_policy("durable_first", lambda tau: DurableFirst())
    with pytest.raises(InvalidInputError, match="builds a policy named 'durable_first'"):
        policies.register_policy("other", lambda tau: DurableFirst())
    with pytest.raises(InvalidInputError, match="must be a callable that takes tau"):
        policies.register_policy("other", DurableFirst())  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="non-empty string"):
        policies.register_policy(" ", lambda tau: DurableFirst())
    assert "other" not in policies.policy_names()
    # A policy object passed unregistered says how to register it (a reopen finds a
    # policy by its stored name only).
    unregistered = dataclasses.replace(DurableFirst(), name="unregistered")
    with pytest.raises(InvalidConfigError, match=r"register_policy\('unregistered', "):
        HierarchicalMemory(None, policy=unregistered, embedder=HashingEmbedder())
    with pytest.raises(ValueError, match="freq_recency_durable, durable_first"):
        policies.make_policy("nope")
    # A memory reopened later finds a registered policy by the name it stored.
    with HierarchicalMemory(None, policy="durable_first", embedder=HashingEmbedder()) as memory:
        assert memory.policy.name == "durable_first"


def test_forget_check_measures_leaks_and_collateral() -> None:
    from tiermem.bench.forget_check import run_forget_probe
    from tiermem.memory.judge import FunctionJudge

    result = battery.CHECKS["forget"](QUICK)
    assert result.passed, result.detail
    for figures in (result.figures["exact"], result.figures["top_k_llm_scripted"]):
        assert figures["secrets"] == 16 and figures["residual_leak_rate"] == 0
        assert figures["collateral_deletions"] == 0
    # The probes do find what a request left behind (here: a judge that picks nothing).
    kept = run_forget_probe("top_k_llm", FunctionJudge(lambda s, u: '{"ids": []}'), 8, 0)
    assert kept["residual_leak_rate"] == 1.0 and kept["outcomes"] == {"unmatched": 8}
