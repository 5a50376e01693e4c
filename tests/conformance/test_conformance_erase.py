"""Erasure and edits on every backend: what goes, what it takes with it, what stays."""

from __future__ import annotations

import pytest
from backends import Backend
from leak_helpers import read_paths_showing
from memory_helpers import (
    check_archival_consistent,
    check_core_invariants,
    turn_filing_a_passage,
)

from tiermem.memory.errors import InvalidInputError
from tiermem.memory.text.digest import digest_of_all


def test_an_edited_fact_leaves_no_old_text_in_any_read_path(backend: Backend) -> None:
    with backend.memory(core_limit=2, core_limit_unit="facts", promote_hits=1,
                        recent_promote_hits=1) as m:
        card = m.add_fact("my card number is 4111 1111", "durable")
        m.add_fact("my favourite colour is teal", "durable")
        m.add_fact("my dog is called Biscuit", "durable")
        m.add_fact("my card number is 4111 1111", "durable")
        assert m.fact(card).tier == "core"  # type: ignore[union-attr]
        m.replace_in_core("4111 1111", "redacted")
        assert read_paths_showing(m, "4111 1111", query="card number 4111") == []
        check_archival_consistent(m)


def test_erasing_a_message_erases_the_facts_learned_from_it(backend: Backend) -> None:
    with backend.memory(core_limit=2, core_limit_unit="facts") as m:
        learned = m.process_interaction("I'm allergic to sesame. I live in Porto.", "Noted.")
        m.process_interaction("I'm vegetarian.", "Got it.")  # evicts a fact to archival
        assert {f.source_message_id for f in m.facts() if f.id in learned} == {1}
        assert m.store.passages.made_from(learned)  # one of them has a passage now

        report = m.erase(messages=[1], reason="asked to forget the first message")

        assert (report.facts, report.messages) == (2, 1)
        assert report.passages == 1
        assert [f.text for f in m.facts()] == ["User is vegetarian"]
        for text in ("sesame", "Porto"):
            assert read_paths_showing(m, text) == []
        assert len(m.recall) == 3 and len(m.archival) == 0
        check_core_invariants(m)
        check_archival_consistent(m)
        assert m.erasure_count() == 1


def test_erasing_a_message_erases_the_passage_the_agent_filed_from_it(backend: Backend) -> None:
    with backend.memory() as m:
        said, filed = turn_filing_a_passage(m, "my door code is 4417, note it",
                                            "User's door code is 4417")
        _, other = turn_filing_a_passage(m, "I moved to Lyon", "User moved to Lyon in May")
        assert m.store.passages.get_many([filed])[filed].source_message_id == said

        report = m.erase(messages=[said], reason="asked to forget the message")

        assert (report.facts, report.passages, report.messages) == (0, 1, 1)
        assert m.archival_search("door code 4417").total == 0
        assert read_paths_showing(m, "code is 4417", query="door code 4417") == []
        assert [h.id for h in m.archival_search("moved to Lyon").hits] == [other]
        assert len(m.archival) == 1
        check_archival_consistent(m)


def test_erasing_a_fact_erases_its_passage_and_a_passage_its_fact(backend: Backend) -> None:
    with backend.memory(core_limit=1, core_limit_unit="facts") as m:
        first = m.add_fact("the staging password is hunter2", "durable")
        second = m.add_fact("the deploy day is Tuesday", "durable")
        m.add_fact("the on-call lead is Priya", "durable")  # both earlier ones evicted
        filed = m.archival_insert("the office wifi is guest-42")
        passage_of_second = m.fact(second).passage_id  # type: ignore[union-attr]
        assert passage_of_second is not None

        by_fact = m.erase(facts=[first], reason="secret")
        by_passage = m.erase(passages=[passage_of_second, filed], reason="stale")

        assert (by_fact.facts, by_fact.passages) == (1, 1)
        assert (by_passage.facts, by_passage.passages) == (1, 2)
        assert [f.text for f in m.facts()] == ["the on-call lead is Priya"]
        for text in ("hunter2", "Tuesday", "guest-42"):
            assert read_paths_showing(m, text) == []
        check_core_invariants(m)
        check_archival_consistent(m)


def test_the_report_counts_and_digests_but_holds_no_content(backend: Backend) -> None:
    with backend.memory() as m:
        fact = m.add_fact("the launch code is 0000", "durable")
        report = m.erase(facts=[fact, 999], messages=[55], reason="test")
        assert (report.facts, report.passages, report.messages) == (1, 0, 0)
        assert report.digest == digest_of_all([f"fact:{fact}", "the launch code is 0000"])
        assert "0000" not in repr(report.to_dict())
        assert m.events_since(0)[0]["text"] == ""  # the add event stays, without text
        nothing = m.erase(facts=[fact], reason="again")
        assert (nothing.facts, nothing.passages, nothing.messages) == (0, 0, 0)
        assert m.erasure_count() == 1


@pytest.mark.parametrize("bad", [["1"], [True], [0], "12", 3])
def test_erase_refuses_what_is_not_a_list_of_ids(backend: Backend, bad: object) -> None:
    with backend.memory() as m:
        m.add_fact("kept", "durable")
        with pytest.raises(InvalidInputError, match="ids"):
            m.erase(facts=bad, reason="test")  # type: ignore[arg-type]
        with pytest.raises(InvalidInputError, match="reason"):
            m.erase(facts=[1], reason=" ")
        assert [f.text for f in m.facts()] == ["kept"]


def test_the_purge_runs_after_the_erasure_and_says_what_it_cannot_reach(
        backend: Backend) -> None:
    with backend.memory() as m:
        m.process_interaction("my passport number is X1234567", "ok")
        report = m.erase(messages=[1], reason="asked")
        assert not report.purge_pending
        if backend.name == "postgres":
            assert any("write-ahead log" in note and "backups" in note
                       for note in report.not_reached)
        else:
            assert report.not_reached == []


def test_a_snapshot_after_erasure_and_its_restore_hold_none_of_it(backend: Backend) -> None:
    with backend.memory(core_limit=1, core_limit_unit="facts") as m:
        m.process_interaction("I'm allergic to sesame.", "Noted.")
        m.add_fact("User's team is payments", "durable")  # the sesame fact is evicted
        m.set_state("context", {"summary": "user: I'm allergic to sesame.\nuser: hello there"})
        m.erase(messages=[1], reason="asked")
        snap = m.snapshot()
    assert "sesame" not in repr(snap)
    with backend.restored(snap) as restored:
        assert read_paths_showing(restored, "sesame") == []
        assert restored.get_state("context")["summary"] == "[erased]\nuser: hello there"


def test_what_was_forgotten_can_be_erased_and_the_counts_stay_true(backend: Backend) -> None:
    with backend.memory(core_limit=1, core_limit_unit="facts") as m:
        card = m.add_fact("the staging card is 4111 1111", "durable")
        m.add_fact("the deploy day is Tuesday", "durable")  # evicts the card to archival
        passage = m.fact(card).passage_id  # type: ignore[union-attr]
        note = m.archival_insert("the spare key is under the blue pot")
        m.process_interaction("the spare key is under the blue pot", "Noted.")
        assert m.forget("the spare key is under the blue pot").outcome == "matched"
        assert m.forget("the staging card is 4111 1111").outcome == "matched"
        counts = (len(m.archival), len(m.recall))

        # Forgotten rows are hidden from reads, yet erasure still finds and removes them.
        report = m.erase(facts=[card], passages=[note], messages=[1], reason="asked")

        # The text matched the fact learned from the message too, so all of it was forgotten
        # (2 facts, their 2 passages and the note, the message): none was counted any more.
        assert (report.facts, report.passages, report.messages) == (2, 3, 1)
        assert passage is not None and m.store.passages.made_from([card]) == []
        assert counts == (0, 1) and (len(m.archival), len(m.recall)) == counts
        assert len(m.archival) == m.store.passages.count()
        assert len(m.recall) == m.store.messages.count()
        check_archival_consistent(m)


def test_forget_with_erase_forgets_then_erases_what_it_chose(backend: Backend) -> None:
    with backend.memory() as m:
        m.process_interaction("my locker code is 7720", "Noted.")
        m.archival_insert("my locker code is 7720")
        result = m.forget("my locker code is 7720", erase=True)
        assert result.outcome == "matched" and result.erasure is not None
        assert (result.erasure.passages, result.erasure.messages) == (1, 1)
        # The fact extracted from the message goes with it, though the request named none.
        assert len(result.forgotten.facts) == 1 and result.erasure.facts == 1
        assert read_paths_showing(m, "code is 7720", query="locker code 7720") == []
        assert m.store.messages.count() == 1  # the assistant's reply stays
        # Nothing matched: nothing erased, and the result says so.
        missed = m.forget("no such text", erase=True)
        assert missed.outcome == "unmatched" and missed.erasure is None


def test_the_totals_after_an_erasure_are_what_diagnostics_and_a_reopen_count(
        backend: Backend) -> None:
    # The live totals kept counting an erased fact's eviction and promotion, while
    # diagnostics() and a reopen sum those of the facts stored.
    home = backend.home()
    with home.open(core_limit=1, core_limit_unit="facts", promote_hits=1,
                   recent_promote_hits=1) as m:
        first = m.add_fact("first fact", "durable")
        m.add_fact("second fact", "durable")  # evicts the first
        m.add_fact("first fact", "durable")  # a hit: promoted back, evicting the second
        m.add_fact("third fact", "durable")  # evicts the first again
        assert m.totals == {"evictions": 3, "promotions": 1}
        m.erase(facts=[first], reason="asked")
        live = m.totals
        diagnosed = m.diagnostics()
        assert live == {"evictions": 1, "promotions": 0}  # the second fact's
        assert (diagnosed["evictions"]["total"], diagnosed["promotions"]["total"]) == (
            live["evictions"], live["promotions"])
    with home.open() as reopened:
        assert reopened.totals == live
