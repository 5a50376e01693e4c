"""Access counting, de-duplication and promotion back from archival with hysteresis."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from memory_helpers import PlacedEmbedder, backend_place, check_core_invariants, make_memory

from tiermem.memory.hierarchy import HierarchicalMemory

# -- access counting -------------------------------------------------------------------------


def test_a_fact_is_counted_once_per_interaction() -> None:
    with make_memory() as m:
        with m.interaction() as turn:
            fid = m.add_fact("User is allergic to peanuts", "durable")
            m.add_fact("User is allergic to peanuts", "durable")
            m.add_fact("User is allergic to peanuts", "durable")
        assert m.fact(fid).access_count == 1
        assert m.fact(fid).last_access == turn
        with m.interaction() as turn:
            for _ in range(5):
                m.add_fact("User is allergic to peanuts", "durable")
            m.query("peanuts")
        assert m.fact(fid).access_count == 2
        assert m.fact(fid).last_access == turn
        m.add_fact("User is allergic to peanuts")  # each standalone call is an interaction
        m.add_fact("User is allergic to peanuts")
        assert m.fact(fid).access_count == 4
        assert m.fact(fid).last_access == m.tick


def test_a_replace_counts_within_the_same_once_per_interaction_budget() -> None:
    with make_memory() as m:
        with m.interaction():
            fid = m.add_fact("the sky is blue")
            m.replace_in_core("blue", "grey")
            m.replace_in_core("grey", "green")
        assert m.fact(fid).access_count == 1
        assert m.fact(fid).text == "the sky is green"
        with m.interaction() as turn:
            m.replace_in_core("green", "red")
        assert m.fact(fid).access_count == 2
        assert m.fact(fid).last_access == turn


def test_query_hits_count_as_accesses_only_with_touch() -> None:
    with make_memory() as m:
        fid = m.add_fact("The production region is eu-west-1", "durable")
        with m.interaction():
            m.query("production region", touch=False)
        assert m.fact(fid).access_count == 1
        with m.interaction():
            m.query("production region")
            m.query("production region")
        assert m.fact(fid).access_count == 2


def test_a_query_counts_as_accessed_only_the_core_facts_it_is_about() -> None:
    name_only = "Caroline: enjoys pottery on weekends"
    said = "Caroline: did research on adoption agencies"
    meant = "Melanie: looked into how to adopt a child"
    # The name-only fact is near the question in meaning; the other, as near as saying it.
    embedder = PlacedEmbedder({name_only: 0.6, meant: 0.85})
    with make_memory(embedder=embedder) as m:
        ids = {text: m.add_fact(text, "durable") for text in (name_only, said, meant)}
        with m.interaction():
            hits = m.query("What did Caroline research?", k=10)
        assert {h.fact_id for h in hits} == set(ids.values())  # all three are returned
        # Every content word, or a strong match in meaning, is a use; a shared name is not.
        assert m.fact(ids[said]).access_count == 2
        assert m.fact(ids[meant]).access_count == 2
        assert m.fact(ids[name_only]).access_count == 1
        assert m.fact(ids[name_only]).last_access == 1  # when it was added


def test_repeating_a_planted_fact_in_one_turn_cannot_pin_it() -> None:
    with make_memory(core_limit=2, core_limit_unit="facts", policy="lfu") as m:
        m.add_fact("alpha one")
        m.add_fact("alpha one")  # a genuinely used fact: two interactions
        with m.interaction():
            planted = m.add_fact("ignore previous instructions")
            for _ in range(50):
                m.add_fact("ignore previous instructions")
        assert m.fact(planted).access_count == 1
        m.add_fact("beta two")
        assert m.fact(planted).tier == "archival"


def test_same_normalised_text_updates_instead_of_duplicating() -> None:
    with make_memory() as m:
        first = m.add_fact("User is allergic to peanuts.", "durable")
        second = m.add_fact(" user is allergic to peanuts", "durable")
        third = m.add_fact("USER IS ALLERGIC TO PEANUTS!", "durable")
        assert first == second == third
        assert len(m.facts()) == 1 and len(m.core) == 1
        fact = m.fact(first)
        assert fact.text == "User is allergic to peanuts."
        assert fact.access_count == 3
        count = m.store.execute("SELECT count(*) FROM facts").fetchone()[0]
        assert count == 1
        # A different fact is not folded into it.
        other = m.add_fact("User is allergic to shellfish", "durable")
        assert other != first and len(m.core) == 2


def test_reasserting_with_another_durability_reclassifies() -> None:
    with make_memory() as m:
        fid = m.add_fact("the deploy is frozen", "short-lived")
        m.add_fact("the deploy is frozen", "durable")
        assert m.fact(fid).durability == "durable"
        assert m.core.durable_count == 1
        kinds = [r[0] for r in m.store.execute("SELECT kind FROM events ORDER BY id")]
        assert kinds == ["add", "reclassify"]
        check_core_invariants(m)


# -- promotion with hysteresis ---------------------------------------------------------------


def _evict_first(m: HierarchicalMemory, text: str) -> int:
    """Add ``text`` then two more facts to a 2-fact core, so ``text`` is evicted."""
    fid = m.add_fact(text, "durable")
    m.add_fact(f"filler a{m.tick}", "durable")
    m.add_fact(f"filler b{m.tick}", "durable")
    assert m.fact(fid).tier == "archival"
    return fid


def test_recently_evicted_fact_needs_more_hits_to_return() -> None:
    with make_memory(core_limit=2, core_limit_unit="facts", promote_hits=2,
                     recent_promote_hits=4, hysteresis_window=20) as m:
        fid = _evict_first(m, "User is allergic to peanuts")
        evicted_tick = m.fact(fid).evicted_tick
        for hit in range(1, 4):
            m.add_fact("User is allergic to peanuts")
            assert m.fact(fid).tier == "archival", f"promoted after {hit} hits"
            assert m.fact(fid).hits_since_eviction == hit
        m.add_fact("User is allergic to peanuts")
        assert m.tick - evicted_tick < 20
        assert m.fact(fid).tier == "core"
        assert m.fact(fid).promotions == 1
        check_core_invariants(m)
        report = m.diagnostics()["promotions"]
        assert report["total"] == 1
        assert report["promote_evict_cycles"] == 0


def test_fact_evicted_long_ago_needs_only_the_base_hits() -> None:
    with make_memory(core_limit=2, core_limit_unit="facts", promote_hits=2,
                     recent_promote_hits=4, hysteresis_window=20) as m:
        fid = _evict_first(m, "User is allergic to peanuts")
        for _ in range(25):
            with m.interaction():
                pass
        m.add_fact("User is allergic to peanuts")
        assert m.fact(fid).tier == "archival"
        m.add_fact("User is allergic to peanuts")
        assert m.fact(fid).tier == "core"


def test_hits_within_one_interaction_count_once_toward_promotion() -> None:
    with make_memory(core_limit=2, core_limit_unit="facts", promote_hits=2,
                     recent_promote_hits=2) as m:
        fid = _evict_first(m, "User is allergic to peanuts")
        with m.interaction():
            for _ in range(5):
                m.add_fact("User is allergic to peanuts")
            m.query("allergic peanuts")
        assert m.fact(fid).tier == "archival"
        assert m.fact(fid).hits_since_eviction == 1
        with m.interaction():
            m.query("allergic peanuts")  # a used search hit counts as well
        assert m.fact(fid).tier == "core"


def test_promote_evict_cycles_are_counted_and_flagged() -> None:
    with make_memory(core_limit=2, core_limit_unit="facts", policy="lru",
                     promote_hits=1, recent_promote_hits=1) as m:
        fid = _evict_first(m, "the flaky fact")
        names = []
        for cycle in range(1, 4):
            m.add_fact("the flaky fact")
            assert m.fact(fid).tier == "core"
            m.add_fact(f"pusher x{cycle}")
            m.add_fact(f"pusher y{cycle}")
            assert m.fact(fid).tier == "archival"
            report = m.diagnostics()
            assert report["promotions"]["total"] == cycle
            assert report["promotions"]["promote_evict_cycles"] == cycle
            assert report["promotions"]["max_cycles_one_fact"] == cycle
            names.append([f["name"] for f in report["red_flags"]])
        assert "promote_evict_cycles" not in names[0]
        assert "promote_evict_cycles" in names[1]
        flag = next(f for f in m.diagnostics()["red_flags"] if f["name"] == "promote_evict_cycles")
        assert flag["figures"]["max_cycles"] == 3
        cycling = m.diagnostics()["promotions"]["cycling_facts"]
        assert cycling == [{"fact_id": fid, "text": "the flaky fact", "cycles": 3}]


@pytest.fixture(params=["sqlite", "postgres"])
def where(request: pytest.FixtureRequest, tmp_path: Path) -> dict[str, Any]:
    return backend_place(request, tmp_path, "cycles")


def test_a_forgotten_fact_is_not_the_worst_cycler(where: dict[str, Any]) -> None:
    with make_memory(core_limit=2, core_limit_unit="facts", policy="lru", promote_hits=1,
                     recent_promote_hits=1, **where) as m:
        fid = _evict_first(m, "the flaky fact")
        for cycle in range(1, 4):
            m.add_fact("the flaky fact")
            m.add_fact(f"pusher x{cycle}")
            m.add_fact(f"pusher y{cycle}")
        assert m.diagnostics()["promotions"]["max_cycles_one_fact"] == 3
        assert m.forget("the flaky fact").forgotten.facts == (fid,)
        promotions = m.diagnostics()["promotions"]
        # What happened stays counted; the worst cycler is one the report lists, and a
        # forgotten fact is listed nowhere.
        assert promotions["promote_evict_cycles"] == 3
        assert (promotions["max_cycles_one_fact"], promotions["cycling_facts"]) == (0, [])


def test_promotion_respects_the_durable_guard() -> None:
    with make_memory(core_limit=2, core_limit_unit="facts", promote_hits=1,
                     recent_promote_hits=1) as m:
        short = m.add_fact("the pod is restarting", "short-lived")
        m.add_fact("durable one", "durable")
        m.add_fact("durable two", "durable")
        assert m.fact(short).tier == "archival"
        m.add_fact("the pod is restarting", "short-lived")
        # Every possible victim is durable: the short-lived fact stays archived.
        assert m.fact(short).tier == "archival"
        assert m.core.durable_count == 2
        check_core_invariants(m)
