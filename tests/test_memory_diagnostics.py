"""diagnostics(): the health report and each of its red flags."""

from __future__ import annotations

from pathlib import Path

import pytest
from memory_helpers import make_memory

import tiermem.memory.ops.diagnostics as diagnostics
from tiermem.memory.hierarchy import HierarchicalMemory
from tiermem.tools.memory_tools import ToolContext, memory_toolbox

MIN_SEARCHES = diagnostics.MIN_SEARCHES_FOR_HIT_RATE


def _flags(m: HierarchicalMemory) -> dict[str, dict]:
    return {f["name"]: f for f in m.diagnostics()["red_flags"]}


def test_report_has_every_section_with_values_that_add_up() -> None:
    with make_memory(core_limit=3, core_limit_unit="facts") as m:
        m.add_fact("User is allergic to peanuts", "durable")
        m.add_fact("The production region is eu-west-1", "durable")
        for i in range(4):
            m.process_interaction(f"Right now service {i} is restarting.", "Watching.")
        m.archival_insert("runbook: restart the billing worker")
        m.archival_search("billing worker")
        m.archival_search("service restarting")
        m.archival_search("zqxv")
        report = m.diagnostics()
        assert report["interactions"] == m.tick == 6
        core = report["core"]
        assert core == {
            "facts": 3, "size": 3, "limit": 3, "unit": "facts", "tokens": m.core_tokens(),
            "fill": 1.0, "durable": 2, "short_lived": 1, "pct_durable": pytest.approx(200 / 3),
            "policy": "freq_recency_durable",
        }
        evictions = m.store.execute(
            "SELECT count(*) FROM events WHERE kind = 'evict'").fetchone()[0]
        assert evictions == 3
        assert report["evictions"]["total"] == evictions
        assert report["evictions"]["per_interaction"] == pytest.approx(evictions / 6)
        assert report["promotions"] == {"total": 0, "promote_evict_cycles": 0,
                                        "max_cycles_one_fact": 0, "cycling_facts": []}
        archival = report["archival"]
        assert archival["passages"] == len(m.archival) == 4
        assert archival["searches"] == 3
        assert archival["searches_with_hits"] == sum(
            bool(m.archival.search(q).total) for q in ("billing worker", "service restarting",
                                                       "zqxv"))
        assert archival["hit_rate"] == pytest.approx(archival["searches_with_hits"] / 3)
        assert report["recall"]["messages"] == 8
        # The last four interactions each logged two messages.
        assert report["recall"]["growth_per_interaction"] == pytest.approx(8 / 5)
        assert report["red_flags"] == []


def test_empty_memory_reports_without_dividing_by_zero() -> None:
    with make_memory() as m:
        report = m.diagnostics()
        assert report["core"]["pct_durable"] is None
        assert report["archival"]["hit_rate"] is None
        assert report["evictions"]["per_interaction"] is None
        assert report["red_flags"] == []


def test_rates_need_two_interactions_on_record_not_one() -> None:
    with make_memory() as m:
        m.process_interaction("I like tea.", "Noted.")
        once = m.diagnostics()
        assert once["recall"]["messages"] == 2
        # One point is no rate: n/a, not a 0.00 that reads as "nothing grows".
        assert once["recall"]["growth_per_interaction"] is None
        assert once["archival"]["growth_per_interaction"] is None
        assert once["evictions"]["recent_per_interaction"] is None
        m.process_interaction("I like jazz.", "Noted.")
        assert m.diagnostics()["recall"]["growth_per_interaction"] == pytest.approx(2.0)


def test_core_thrashing_is_flagged() -> None:
    with make_memory(core_limit=2, core_limit_unit="facts") as m:
        for i in range(12):
            m.process_interaction(
                f"Right now api{i} is restarting. Right now db{i} is spiking. "
                f"Right now cache{i} is cold.", "Watching.")
        flag = _flags(m)["core_thrashing"]
        assert flag["figures"]["evictions_per_interaction"] > 1
        assert flag["figures"]["fill_share"] >= 0.5
        assert "core_limit" in flag["message"]


def test_a_calm_full_core_is_not_thrashing() -> None:
    with make_memory(core_limit=2, core_limit_unit="facts") as m:
        for i in range(12):
            m.process_interaction(f"Right now api{i} is restarting.", "Watching.")
        assert "core_thrashing" not in _flags(m)


def test_short_lived_dominating_core_is_flagged_after_it_settles() -> None:
    with make_memory(core_limit=5, core_limit_unit="facts", policy="lru") as m:
        m.add_fact("User is allergic to peanuts", "durable")
        for i in range(18):
            m.add_fact(f"right now host{i} is busy", "short-lived")
        assert m.tick == 19
        assert "short_lived_dominates_core" not in _flags(m)  # too early to judge
        m.add_fact("right now host99 is busy", "short-lived")
        flag = _flags(m)["short_lived_dominates_core"]
        assert flag["figures"]["pct_short_lived"] == pytest.approx(100.0)
        assert flag["figures"]["interactions"] == 20
        assert flag["figures"]["durable_evicted"] == 1
    # The same workload under the default policy keeps the durable fact: no flag.
    with make_memory(core_limit=5, core_limit_unit="facts") as m:
        m.add_fact("User is allergic to peanuts", "durable")
        for i in range(25):
            m.add_fact(f"right now host{i} is busy", "short-lived")
        assert "short_lived_dominates_core" not in _flags(m)
    # Spare room filled by short-lived facts, with nothing durable evicted, is healthy.
    with make_memory(core_limit=100, core_limit_unit="facts") as m:
        m.add_fact("User is allergic to peanuts", "durable")
        for i in range(25):
            m.add_fact(f"right now host{i} is busy", "short-lived")
        assert "short_lived_dominates_core" not in _flags(m)


def test_archival_that_never_hits_is_flagged() -> None:
    with make_memory() as m:
        m.archival_insert("runbook: restart the billing worker")
        # Words no passage matches, lexically or by a hashing collision (checked
        # through the tier, which does not count searches).
        candidates = ("qqzx", "vvkw", "jjxq", "zzkq", "wqxj", "xkcd", "pfft", "brrr", "mmxz")
        nonsense = [w for w in candidates if m.archival.search(w).total == 0][:5]
        assert len(nonsense) == 5 and m.diagnostics()["archival"]["searches"] == 0
        for word in nonsense[:4]:
            assert m.archival_search(word).total == 0
        assert "archival_never_hits" not in _flags(m)
        assert m.archival_search(nonsense[4]).total == 0
        flag = _flags(m)["archival_never_hits"]
        assert flag["figures"] == {"searches": 5, "passages": 1}
        m.archival_search("billing worker")
        assert "archival_never_hits" not in _flags(m)
    with make_memory() as m:  # searching an empty archival is not a failure of search
        for _ in range(6):
            m.archival_search("qqzx")
        assert "archival_never_hits" not in _flags(m)


def test_query_is_not_counted_as_an_archival_search() -> None:
    with make_memory() as m:
        m.archival_insert("runbook: restart the billing worker")
        # query() reads archival for every question: one that archival cannot answer, and
        # one it can (the passage is among the hits).
        for _ in range(MIN_SEARCHES):
            assert not any(h.tier == "archival" for h in m.query("qqzx", k=5))
        assert any(h.tier == "archival" for h in m.query("billing worker", k=5))
        archival = m.diagnostics()["archival"]
        assert (archival["searches"], archival["searches_with_hits"]) == (0, 0)
        assert "archival_never_hits" not in _flags(m)
        # The agent's own search of archival still counts, through its tool as directly.
        ctx = ToolContext(memory=m, turn=1)
        memory_toolbox().dispatch("archival_memory_search", '{"query": "billing worker"}',
                                  call_id="c1", context=ctx)
        m.archival_search("qqzx")
        archival = m.diagnostics()["archival"]
        assert (archival["searches"], archival["searches_with_hits"]) == (2, 1)


def test_unbounded_recall_is_flagged(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(diagnostics, "RECALL_WARN_MESSAGES", 6)
    with make_memory() as m:
        m.process_interaction("hello there", "hi")
        m.process_interaction("how are things", "fine")
        assert "recall_unbounded" not in _flags(m)
        m.process_interaction("and now", "still fine")
        flag = _flags(m)["recall_unbounded"]
        assert flag["figures"]["messages"] == 6
        assert flag["figures"]["growth"] == pytest.approx(2.0)


def test_counters_survive_reopening(tmp_path: Path) -> None:
    path = tmp_path / "agent"
    with make_memory(path) as m:
        m.archival_insert("runbook: restart the billing worker")
        m.archival_search("billing")
        m.archival_search("qqzx")
    with make_memory(path) as m:
        archival = m.diagnostics()["archival"]
        assert (archival["searches"], archival["searches_with_hits"]) == (2, 1)
