"""Retirements: a fact moved to archival as no longer true is counted apart from the
evictions that made room in core, so a nearly empty core shows no eviction pressure. They
count the facts the memory holds as retired: a retirement taken back, by the fact stated
again or by the statement that retired it taken back, and a fact forgotten, count none."""

from __future__ import annotations

from backends import Backend

from tiermem.agent.loop import Agent
from tiermem.agent.offline import OfflinePolicy


def test_a_retired_fact_counts_as_a_retirement_not_an_eviction(backend: Backend) -> None:
    with backend.memory(core_limit=2, core_limit_unit="facts", policy="lru") as m:
        m.add_fact("User lives in Lisbon", "durable")
        m.replace_in_core("User lives in Lisbon", "")  # "I moved", "Forget that."
        m.add_fact("User works at Acme", "durable")
        m.replace_in_core("User works at Acme", "")
        report = m.diagnostics()
        assert report["evictions"]["total"] == 0
        assert report["evictions"]["retirements"] == 2
        assert m.totals["evictions"] == 0
        # A fact pushed out for room is still an eviction, beside the retirements.
        for text in ("basil note", "cedar note", "dune note"):
            m.add_fact(text, "durable")
        report = m.diagnostics()
        assert (report["evictions"]["total"], report["evictions"]["retirements"]) == (1, 2)


def test_a_fact_said_and_retired_over_and_over_is_no_promote_evict_cycle(
        backend: Backend) -> None:
    # Each statement brings the retired fact back to core; its retirement that follows is
    # no eviction, so no cycle, and the flag that would have tuning changed stays down.
    with backend.memory() as m:
        for _ in range(3):
            m.add_fact("the deploy freeze is on", "durable")
            m.replace_in_core("the deploy freeze is on", "")
        report = m.diagnostics()
        assert report["evictions"]["retirements"] == 1  # each statement took one back
        assert report["promotions"]["promote_evict_cycles"] == 0
        assert "promote_evict_cycles" not in [flag["name"] for flag in report["red_flags"]]


def test_a_retirement_taken_back_in_the_chat_is_not_counted(backend: Backend) -> None:
    with backend.memory() as m:
        agent = Agent(m, OfflinePolicy())
        agent.step("I live in Lisbon.")
        agent.step("I moved to Porto.")  # retires "User lives in Lisbon"
        assert m.diagnostics()["evictions"]["retirements"] == 1
        reply = agent.step("Forget that.").reply
        # Lisbon is current again; only the move is held as no longer true.
        assert "archival -> core: User lives in Lisbon" in reply
        assert "core -> archival (superseded): User moved to Porto" in reply
        assert m.diagnostics()["evictions"]["retirements"] == 1


def test_a_retired_fact_forgotten_is_not_counted(backend: Backend) -> None:
    with backend.memory() as m:
        m.add_fact("User lives in Lisbon", "durable")
        m.add_fact("User works at Acme", "durable")
        m.replace_in_core("User lives in Lisbon", "")
        m.replace_in_core("User works at Acme", "")
        assert m.diagnostics()["evictions"]["retirements"] == 2
        m.forget("User lives in Lisbon")
        assert m.diagnostics()["evictions"]["retirements"] == 1
