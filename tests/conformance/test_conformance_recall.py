"""Recall: append-only storage of every message, audited erasure, and search."""

from __future__ import annotations

import datetime as dt

import pytest
from backends import Backend
from memory_helpers import check_core_invariants

from tiermem.memory.errors import InvalidInputError
from tiermem.memory.hierarchy import HierarchicalMemory


def _day(day: int) -> float:
    return dt.datetime(2024, 5, day, 12, 0, tzinfo=dt.UTC).timestamp()


# -- process_interaction ---------------------------------------------------------------------


def test_process_interaction_logs_both_messages_and_extracts_facts(backend: Backend) -> None:
    with backend.memory() as m:
        ids = m.process_interaction(
            "I'm allergic to peanuts. Right now the pod is restarting.", "Noted, thanks."
        )
        assert m.tick == 1
        rows = [{key: r[key] for key in ("turn", "role", "content")}
                for r in m.recall.iter_rows()]
        assert rows == [
            {"turn": 1, "role": "user",
             "content": "I'm allergic to peanuts. Right now the pod is restarting."},
            {"turn": 1, "role": "assistant", "content": "Noted, thanks."},
        ]
        assert len(m.recall) == 2
        facts = {f.text: f for f in m.core}
        assert set(facts) == {"User is allergic to peanuts", "Right now the pod is restarting"}
        assert facts["User is allergic to peanuts"].durability == "durable"
        assert facts["Right now the pod is restarting"].durability == "short-lived"
        assert sorted(ids) == sorted(f.id for f in facts.values())
        assert all(f.source == "extracted:turn:1" for f in facts.values())
        check_core_invariants(m)


def test_questions_are_logged_but_not_stored_as_facts(backend: Backend) -> None:
    with backend.memory() as m:
        assert m.process_interaction("What is the production region?", "eu-west-1.") == []
        assert len(m.core) == 0 and len(m.recall) == 2


def test_reasserting_in_a_later_interaction_counts_and_does_not_duplicate(backend: Backend) -> None:
    with backend.memory() as m:
        [first] = m.process_interaction("I'm allergic to peanuts.", "Noted.")
        [again] = m.process_interaction("I am allergic to peanuts", "I know.")
        assert first == again
        assert len(m.core) == 1 and m.fact(first).access_count == 2
        assert len(m.recall) == 4


def test_speaker_name_replaces_the_first_person(backend: Backend) -> None:
    with backend.memory() as m:
        m.process_interaction("I'm allergic to peanuts.", "Noted.", speaker="Caroline")
        assert [f.text for f in m.core] == ["Caroline is allergic to peanuts"]


# -- append-only -----------------------------------------------------------------------------


@pytest.fixture
def chat(backend: Backend) -> HierarchicalMemory:
    m = backend.memory()
    m.process_interaction("The deploy failed on the billing service.", "Rolling back.")
    m.process_interaction("The rollback finished.", "Good, billing is healthy.")
    yield m
    m.close()


def test_the_store_has_no_way_to_edit_a_message(chat: HierarchicalMemory) -> None:
    # Append-only by construction: the contract offers no edit and no delete but erase
    # (the SQLite backend's triggers also refuse them in SQL: test_sqlite_recall_triggers).
    methods = {name for name in dir(chat.store.messages) if not name.startswith("_")}
    assert not {name for name in methods if "update" in name or "delete" in name
                or "edit" in name}
    assert "erase" in methods


def test_erase_removes_messages_and_records_why(chat: HierarchicalMemory) -> None:
    assert chat.recall.vectors is not None
    vectors_before = len(chat.recall.vectors)
    assert vectors_before == 4  # user and assistant messages are embedded
    before = chat.recall_search("billing", k=50)
    assert {1, 4} <= {h.id for h in before.hits}
    assert chat.recall.erase([1, 2, 999], "user asked to forget the incident") == 2
    assert len(chat.recall) == 2
    assert [r["id"] for r in chat.recall.iter_rows()] == [3, 4]
    erasures = [(r["message_id"], r["reason"]) for r in chat.store.export_rows("erasures")]
    assert erasures == [(1, "user asked to forget the incident"),
                        (2, "user asked to forget the incident")]
    assert len(chat.recall.vectors) == vectors_before - 2
    assert chat.recall.vectors.differences() == []
    result = chat.recall_search("billing", k=50)
    assert {h.id for h in result.hits} == {h.id for h in before.hits} - {1, 2}
    assert result.total == len(result.hits)


def test_erase_needs_a_reason(chat: HierarchicalMemory) -> None:
    with pytest.raises(InvalidInputError):
        chat.recall.erase([1], "  ")
    assert len(chat.recall) == 4


def test_status_is_the_one_mutable_column(chat: HierarchicalMemory) -> None:
    chat.recall.set_status(1, "unanswered")
    assert [r["status"] for r in chat.recall.rows([1, 2])] == ["unanswered", "ok"]


# -- search ----------------------------------------------------------------------------------


def test_recall_search_filters_by_role_and_date(backend: Backend) -> None:
    with backend.memory() as m:
        for day in range(1, 6):
            m.process_interaction(f"The kafka lag on day {day} is high.",
                                  f"Kafka lag noted for day {day}.", created_at=_day(day))
        everything = m.recall_search("kafka lag", k=50)
        assert everything.total == 10
        users = m.recall_search("kafka lag", roles=["user"], k=50)
        assert users.total == 5 and {h.role for h in users.hits} == {"user"}
        window = m.recall_search("kafka lag", start="2024-05-02", end="2024-05-03", k=50)
        assert window.total == 4
        assert {h.created_at for h in window.hits} == {_day(2), _day(3)}
        both = m.recall_search("kafka", roles=["assistant"], start=_day(4), k=50)
        assert [(h.role, h.created_at) for h in sorted(both.hits, key=lambda h: h.id)] == [
            ("assistant", _day(4)), ("assistant", _day(5))]
        for hit in everything.hits:
            assert hit.tier == "recall" and hit.score > 0
            assert hit.turn in range(1, 6) and hit.role in ("user", "assistant")
        with pytest.raises(InvalidInputError, match="start is after end"):
            m.recall_search("kafka", start="2024-05-04", end="2024-05-01")
        with pytest.raises(InvalidInputError, match="roles"):
            m.recall_search("kafka", roles=["robot"])


def test_recall_search_never_returns_its_own_results(backend: Backend) -> None:
    with backend.memory() as m:
        m.process_interaction("The kafka lag is high.", "Noted.")
        m.recall.append("tool", "Found: The kafka lag is high.", 1,
                        tool_name="conversation_search", tool_call_id="c1")
        m.recall.append("tool", "archival: kafka runbook step 3", 1,
                        tool_name="archival_memory_search", tool_call_id="c2")
        result = m.recall_search("kafka", k=50)
        assert result.total == 3
        texts = {h.text for h in result.hits}
        # The reply holds the user's words as full-text context.
        assert texts == {"The kafka lag is high.", "Noted.", "archival: kafka runbook step 3"}
        tools = m.recall_search("kafka", roles=["tool"])
        assert [h.text for h in tools.hits] == ["archival: kafka runbook step 3"]


def test_recall_search_pages_with_real_totals(backend: Backend) -> None:
    with backend.memory(recall_dense=False) as m:
        for i in range(13):
            m.process_interaction(f"Ticket {i} mentions the flux capacitor.", "Logged.")
        # Each ticket and the reply after it, which holds the ticket as full-text context.
        pages = [m.recall_search("flux capacitor", k=5, page=p) for p in range(1, 8)]
        assert [r.total for r in pages] == [26] * 7
        assert pages[0].pages == 6
        assert [len(r.hits) for r in pages] == [5, 5, 5, 5, 5, 1, 0]
        ids = [h.id for r in pages for h in r.hits]
        assert len(ids) == len(set(ids)) == 26
