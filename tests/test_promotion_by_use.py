"""Evicted facts return to core when they are used again: through the chat's archival
search tool (as through ``query(touch=True)``), and when the user states them again;
a search counts only the facts it is about."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from memory_helpers import PlacedEmbedder, check_core_invariants, make_memory

from tiermem.agent.loop import Agent
from tiermem.agent.offline import OfflinePolicy
from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.types import Fact

T0 = 1_709_618_820.0  # 2024-03-05 06:07 UTC
NAME = "User's name is Ada"
PEANUTS = "User is allergic to peanuts"
HITS = {"promote_hits": 2, "recent_promote_hits": 4, "hysteresis_window": 20}


def _open(home: Path, **session: Any) -> HierarchicalMemory:
    return HierarchicalMemory(home, embedder=HashingEmbedder(), now=lambda: T0, **HITS,
                              **session)


def _fact(m: HierarchicalMemory, text: str) -> Fact:
    return next(f for f in m.facts() if f.text == text)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """An agent that learned three facts, then ran a session with ``--core-limit 5``
    (this session only), which moved two of them to archival."""
    with _open(tmp_path) as m:
        agent = Agent(m, OfflinePolicy())
        for text in ("My name is Ada.", "I am allergic to peanuts.", "I live in Lyon."):
            agent.step(text)
        assert len(m.core) == 3
    with _open(tmp_path, core_limit=5, store_settings=False) as m:
        assert m.moved_on_open == 2
        assert [f.text for f in m.core] == ["User lives in Lyon"]
    return tmp_path


def _archival_results(result: Any) -> dict[str, Any]:
    [content] = [r.content for r in result.tool_results if r.name == "archival_memory_search"]
    return dict(json.loads(content))


@pytest.mark.parametrize(("idle", "needed"), [(0, "recent_promote_hits"),
                                              (20, "promote_hits")])
def test_a_fact_the_chat_answers_from_archival_returns_to_core(
    home: Path, idle: int, needed: str
) -> None:
    with _open(home) as m:  # the stored limit again: room for everything
        for _ in range(idle):  # interactions pass: the eviction is no longer recent
            with m.interaction():
                pass
        agent = Agent(m, OfflinePolicy())
        asks = HITS[needed]
        for ask in range(1, asks):
            result = agent.step("What is my name?")
            assert result.reply is not None and "From archival (evicted from core " in (
                result.reply)
            assert _fact(m, NAME).tier == "archival", f"promoted after {ask} uses"
            assert _fact(m, NAME).hits_since_eviction == ask
            assert result.memory_changes == []
        result = agent.step("What is my name?")
        assert _fact(m, NAME).tier == "core"
        assert result.memory_changes == [f"archival -> core: {NAME}"]
        assert _archival_results(result)["memory_changes"] == [f"archival -> core: {NAME}"]
        # The fact the question was not about stays where it was.
        assert _fact(m, PEANUTS).tier == "archival"
        assert _fact(m, PEANUTS).hits_since_eviction == 0
        assert m.diagnostics()["promotions"]["total"] == 1
        check_core_invariants(m)
        # From now on it is answered from core, not quoted from archival as evicted.
        reply = agent.step("What is my name?").reply
        assert reply == f"(offline, quoting memory)\n- From core memory: {NAME}"
        assert m.diagnostics()["promotions"]["total"] == 1


def test_a_fact_stated_again_returns_to_core_when_core_has_room(home: Path) -> None:
    with _open(home) as m:
        result = Agent(m, OfflinePolicy()).step("I am allergic to peanuts.")
        assert _fact(m, PEANUTS).tier == "core"
        assert result.memory_changes == [f"archival -> core: {PEANUTS}"]
        assert result.reply is not None
        assert f"- archival -> core: {PEANUTS} (core " in result.reply
        assert "Already in" not in result.reply
        assert m.diagnostics()["promotions"]["total"] == 1


def test_a_fact_stated_again_with_core_full_counts_one_use_and_says_so(home: Path) -> None:
    with _open(home, core_limit=5, store_settings=False) as m:
        reply = Agent(m, OfflinePolicy()).step("I am allergic to peanuts.").reply
        assert _fact(m, PEANUTS).tier == "archival"
        assert reply == ("Noted.\n- Already in archival, and core has no room for it; it has "
                         "1 of the 4 uses that bring it back to core (core 4/5 tokens).")
        assert m.diagnostics()["promotions"]["total"] == 0


# -- the memory API -------------------------------------------------------------------------


def _evicted(m: HierarchicalMemory) -> int:
    """Add a fact then two more to a 2-fact core; returns the evicted first one."""
    fid = m.add_fact("User is allergic to peanuts")
    m.add_fact("the rack is in hall B")
    m.add_fact("the rack is in hall C")
    assert m.fact(fid).tier == "archival"
    return fid


def test_archival_search_counts_hits_only_with_touch() -> None:
    with make_memory(core_limit=2, core_limit_unit="facts", promote_hits=1,
                     recent_promote_hits=2) as m:
        fid = _evicted(m)
        with m.interaction():
            m.archival_search("peanuts")
        assert m.fact(fid).hits_since_eviction == 0  # side-effect free by default
        with m.interaction():
            m.archival_search("peanuts", touch=True)
            m.archival_search("peanuts", touch=True)  # once per interaction
        assert m.fact(fid).hits_since_eviction == 1
        with m.interaction():
            m.archival_search("peanuts", touch=True)
        assert m.fact(fid).tier == "core"
        assert [e["kind"] for e in m.events_since(0)][-2:] == ["evict", "promote"]
        check_core_invariants(m)


def test_a_read_only_memory_counts_no_hits(tmp_path: Path) -> None:
    with make_memory(tmp_path, core_limit=2, core_limit_unit="facts") as m:
        fid = _evicted(m)
    with make_memory(tmp_path, read_only=True) as seen:
        seen.archival_search("peanuts", touch=True)
    with make_memory(tmp_path) as m:
        assert m.fact(fid).hits_since_eviction == 0


def test_only_the_facts_a_search_is_about_count() -> None:
    from tiermem.memory.embed.embeddings import strong_similarity
    from tiermem.memory.ops.searches import count_used

    with make_memory(core_limit=2, core_limit_unit="facts") as m:
        for text in ("Ticket 4411: Acme sees duplicated invoices", "Acme is on the Enterprise plan",
                     "the rack is in hall B", "the rack is in hall C"):
            m.add_fact(text)
        ticket, plan = (_fact(m, "Ticket 4411: Acme sees duplicated invoices"),
                        _fact(m, "Acme is on the Enterprise plan"))
        assert ticket.tier == plan.tier == "archival"
        with m.interaction():
            page = m.archival_search("Which plan is Acme on?", touch=True)
        # Both are on the page; the ticket shares only the customer's name with the question.
        assert {h.fact_id for h in page.hits} == {ticket.id, plan.id}
        assert m.fact(plan.id).hits_since_eviction == 1
        assert m.fact(ticket.id).hits_since_eviction == 0
        with m.interaction():
            m.archival_search("What was ticket 4411 about?", touch=True)
        assert m.fact(ticket.id).hits_since_eviction == 1
        # Close enough in meaning counts without the words; nearest alone does not.
        [shown] = [h for h in page.hits if h.fact_id == ticket.id]
        for similarity, counted in ((m.embedder.min_similarity, 1),
                                    (strong_similarity(m.embedder), 2)):
            shown.similarity = similarity
            with m.interaction():
                count_used(m, "invoices twice", [shown])
            assert m.fact(ticket.id).hits_since_eviction == counted


def test_a_query_counts_toward_promotion_only_the_archived_facts_it_is_about() -> None:
    near, close = "the badge reader is by the west door", "guests sign in at the front desk"
    # Neither shares a word with the question; one is merely nearest in meaning.
    embedder = PlacedEmbedder({near: 0.6, close: 0.85})
    with make_memory(core_limit=2, core_limit_unit="facts", embedder=embedder,
                     promote_hits=3, recent_promote_hits=3) as m:
        for text in (near, close, "the rack is in hall B", "the rack is in hall C"):
            m.add_fact(text)
        near_id, close_id = _fact(m, near).id, _fact(m, close).id
        assert m.fact(near_id).tier == m.fact(close_id).tier == "archival"
        with m.interaction():
            hits = m.query("Where do visitors check in?", k=10)
        assert {near_id, close_id} <= {h.fact_id for h in hits}
        assert m.fact(close_id).hits_since_eviction == 1
        assert m.fact(near_id).hits_since_eviction == 0
        # The same question through the archival search tool counts the same facts.
        with m.interaction():
            m.archival_search("Where do visitors check in?", touch=True)
        assert m.fact(close_id).hits_since_eviction == 2
        assert m.fact(near_id).hits_since_eviction == 0


def test_stating_an_archived_fact_again_with_room_brings_it_back_at_once() -> None:
    with make_memory(core_limit=2, core_limit_unit="facts", promote_hits=3,
                     recent_promote_hits=5) as m:
        fid = _evicted(m)
        m.add_fact("User is allergic to peanuts")  # core full: one hit of five
        assert m.fact(fid).tier == "archival" and m.fact(fid).hits_since_eviction == 1
        m.replace_in_core("the rack is in hall C", "")  # retired: core has room
        before = m.fact(fid).access_count
        m.add_fact("User is allergic to peanuts")
        fact = m.fact(fid)
        assert fact.tier == "core" and fact.promotions == 1 and fact.hits_since_eviction == 0
        assert fact.access_count == before + 1 and fact.last_access == m.tick
        [event] = [e for e in m.events_since(0) if e["kind"] == "promote"]
        assert event["detail"] == "stated again with room in core"
        assert m.diagnostics()["promotions"]["total"] == 1
        check_core_invariants(m)
