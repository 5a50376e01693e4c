"""Tombstones: a forgotten fact, passage or message leaves every read path, on every backend."""

from __future__ import annotations

import json

import pytest
from backends import Backend
from memory_helpers import turn_filing_a_passage

from tiermem.memory.hierarchy import HierarchicalMemory
from tiermem.memory.ops.forget import apply_forget
from tiermem.memory.search.fusion import FusionWeights
from tiermem.memory.tiers.recall import EMBEDDED_ROLES

SECRET = "my card number is 4111 1111"
WEIGHTS = {"words": FusionWeights(lexical=1.0, dense=0.0),
           "meaning": FusionWeights(lexical=0.0, dense=1.0),
           "hybrid": FusionWeights()}


def _planted(m: HierarchicalMemory) -> None:
    """The secret as a core fact evicted to archival (a fact and its passage), a passage
    filed on its own, and a user message."""
    m.add_fact(SECRET, "durable")
    m.add_fact("I live in Lisbon", "durable")
    m.add_fact("I like green tea", "durable")  # core holds 2: the secret is evicted
    m.archival_insert(f"note: {SECRET}")
    m.process_interaction(f"{SECRET}, keep it safe", "Noted.")


def _found_anywhere(m: HierarchicalMemory, query: str) -> list[str]:
    texts = [h.text for h in m.query(query, k=50, touch=False)]
    texts += [h.text for h in m.archival_search(query, k=50).hits]
    texts += [h.text for h in m.recall_search(query, k=50).hits]
    texts += [f.text for f in m.core] + [f.text for f in m.facts()]
    return [t for t in texts if "4111" in t]


@pytest.mark.parametrize("search", sorted(WEIGHTS))
def test_forgotten_items_leave_every_search_and_listing(backend: Backend, search: str) -> None:
    with backend.memory(core_limit=2, core_limit_unit="facts", fusion=WEIGHTS[search]) as m:
        _planted(m)
        assert len(_found_anywhere(m, "card number 4111 1111")) >= 3
        facts = [f.id for f in m.facts() if "4111" in f.text]
        note = [h.id for h in m.archival_search(f"note: {SECRET}", k=50).hits
                if "4111" in h.text]
        message = [h.id for h in m.recall_search(f"{SECRET}, keep it safe", k=50).hits
                   if "4111" in h.text]
        assert facts and note and len(message) == 1
        passages_before, messages_before = len(m.archival), len(m.recall)
        apply_forget(m, [*(("facts", i) for i in facts), *(("passages", i) for i in note),
                         ("messages", message[0])])
        assert _found_anywhere(m, "card number 4111 1111") == []
        assert all(m.fact(i) is None for i in facts)
        assert m.archival_search("card number 4111 1111").total == 0
        assert m.recall_search("card number 4111 1111").total == 0
        assert len(m.archival) < passages_before and len(m.recall) == messages_before - 1
        assert m.recall.rows(message) == []


def test_forget_counts_only_live_rows_and_paging_totals_follow(backend: Backend) -> None:
    with backend.memory() as m:
        ids = [m.archival_insert(f"ticket {i}: the flux capacitor overheated") for i in range(12)]
        assert m.archival_search("flux capacitor", k=5).total == 12
        first = m.forget("ticket 3: the flux capacitor overheated")
        assert first.outcome == "matched" and first.forgotten.passages == (ids[3],)
        again = m.store.forgetting.forget([], [ids[3]], [], 2.0)
        assert again.passages == ()  # a forgotten row is not forgotten twice
        pages = [m.archival_search("flux capacitor", k=5, page=p) for p in (1, 2, 3)]
        assert [p.total for p in pages] == [11, 11, 11]
        found = [h.id for p in pages for h in p.hits]
        assert sorted(found) == sorted(i for i in ids if i != ids[3])
        assert ids[3] not in [i for i, _ in m.store.passages.texts()]
        assert ids[3] not in [i for i, _ in m.store.passages.texts(without_vector=True)]
        assert m.store.passages.count_without_vector(m.embedder.id) == 0


def test_tombstones_and_audit_survive_reopen_and_snapshot(backend: Backend) -> None:
    home = backend.home()
    with home.open(core_limit=2, core_limit_unit="facts") as m:
        _planted(m)
        result = m.forget(SECRET)
        assert result.outcome == "matched"
        assert result.forgotten.facts and result.forgotten.passages
        snapshot = m.snapshot()
    with home.open(core_limit=2, core_limit_unit="facts") as m:
        assert SECRET not in _found_anywhere(m, "card number 4111 1111")
        assert SECRET not in [f.text for f in m.facts()]
        assert [r.outcome for r in m.forget_requests()] == ["matched"]
    with backend.restored(snapshot) as restored:
        assert SECRET not in [f.text for f in restored.facts()]
        assert all(h.text != SECRET for h in restored.archival_search(SECRET, k=50).hits)
        assert [r.forgotten for r in restored.forget_requests()] == [result.forgotten]
        restored.process_interaction(SECRET, "ok")  # extraction does not bring it back
        assert SECRET.replace("my", "User's") not in [f.text for f in restored.facts()]


def test_extraction_skips_a_forgotten_fact_and_an_explicit_add_restores_it(
        backend: Backend) -> None:
    with backend.memory() as m:
        m.process_interaction("My sister is called Ana.", "Nice.")
        extracted = [f.text for f in m.facts()]
        assert len(extracted) == 1
        m.forget(extracted[0])
        m.process_interaction("My sister is called Ana.", "Nice.")
        assert m.facts() == []
        fact_id = m.add_fact(extracted[0])  # the user states it again, explicitly
        assert [f.text for f in m.facts()] == extracted and m.fact(fact_id) is not None
        m.process_interaction("My sister is called Ana.", "Nice.")
        assert [f.id for f in m.facts()] == [fact_id]  # a re-assertion, not a new fact


def test_a_rolled_back_forget_leaves_everything_findable(backend: Backend) -> None:
    with backend.memory() as m:
        passage = m.archival_insert("the vault code is 9931")
        with pytest.raises(RuntimeError), m.interaction():
            assert m.forget("the vault code is 9931").outcome == "matched"
            assert m.archival_search("vault code").total == 0
            raise RuntimeError("the turn fails")
        assert [h.id for h in m.archival_search("vault code").hits] == [passage]
        assert m.forget_requests() == []


def test_a_forgotten_message_can_still_be_erased(backend: Backend) -> None:
    with backend.memory() as m:
        m.process_interaction("the locker code is 5512", "ok")
        result = m.forget("the locker code is 5512")
        assert len(result.forgotten.messages) == 1
        assert m.recall.erase(list(result.forgotten.messages), "erase after forget") == 1
        assert not any(r["content"] == "the locker code is 5512"
                       for r in m.recall.iter_rows())


def test_a_forgotten_message_takes_the_passage_the_agent_filed_from_it(
        backend: Backend) -> None:
    with backend.memory() as m:
        said, filed = turn_filing_a_passage(m, "my door code is 4417, note it",
                                            "User's door code is 4417")
        _, other = turn_filing_a_passage(m, "I moved to Lyon", "User moved to Lyon in May")

        result = m.forget("my door code is 4417, note it")

        assert result.outcome == "matched"
        assert (result.forgotten.messages, result.forgotten.passages) == ((said,), (filed,))
        assert m.archival_search("door code 4417").total == 0
        assert m.query("door code 4417", k=50, touch=False) == []
        assert [h.id for h in m.archival_search("moved to Lyon").hits] == [other]
        assert len(m.archival) == 1
        # The audit lists the passage, so erasing what was forgotten reaches it too.
        assert m.erase_forgotten().passages == 1


def test_a_forgotten_message_takes_the_facts_learned_from_it(backend: Backend) -> None:
    with backend.memory() as m:
        learned = m.process_interaction("my locker code is 7720", "Noted.")
        kept = m.process_interaction("I moved to Lyon", "Noted.")
        assert learned and kept

        result = m.forget("my locker code is 7720")

        assert result.outcome == "matched"
        assert (result.forgotten.messages, result.forgotten.facts) == ((1,), tuple(learned))
        assert m.core.ids() == kept  # not shown in the prompt any more
        assert m.query("locker code 7720", k=50, touch=False) == []
        # Extraction does not learn it again from the conversation.
        assert m.process_interaction("my locker code is 7720", "Noted.") == []


def test_audit_rows_hold_no_request_text_and_never_enter_search(backend: Backend) -> None:
    with backend.memory() as m:
        m.archival_insert("an unrelated passage about gardening")
        result = m.forget("forget the zebracorn password")
        assert result.outcome == "unmatched" and result.count == 0
        rows = list(m.store.export_rows("forget_requests"))
        assert len(rows) == 1 and not any("zebracorn" in str(v) for v in rows[0].values())
        assert m.archival_search("zebracorn").total == 0
        assert m.recall_search("zebracorn").total == 0
        assert m.query("zebracorn password") == []
        assert m.store.messages.texts(EMBEDDED_ROLES) == []


def test_a_forgotten_fact_leaves_the_diagnostics_report(backend: Backend) -> None:
    with backend.memory() as m:
        card = m.add_fact("the staging card is 4111 1111", "durable")
        fact = m.fact(card)
        assert fact is not None
        fact.cycles = 6  # as a fact that kept going in and out of core
        with m.store.transaction():
            m.store.facts.update(fact)
        assert "4111" in json.dumps(m.diagnostics(), default=str)
        assert m.forget("the staging card is 4111 1111").outcome == "matched"
        assert "4111" not in json.dumps(m.diagnostics(), default=str)



def test_the_messages_facts_came_from_are_read_together(backend: Backend) -> None:
    with backend.memory(core_limit=1, core_limit_unit="facts") as m:
        m.process_interaction("I moved to Lisbon and I like green tea", "Noted.")
        said = m.recall_search("Lisbon green tea", k=1).hits[0].id
        lisbon = m.add_fact("User lives in Lisbon", "durable", source_message_id=said)
        tea = m.add_fact("User likes green tea", "durable", source_message_id=said)  # evicts
        own = m.add_fact("User was told about the weather", "durable")  # no source message
        assert [f.id for f in m.core] == [own]
        apply_forget(m, [("facts", tea)])
        asked = [own, tea, lisbon, max(lisbon, tea, own) + 100]
        assert m.store.facts.source_messages(asked) == {lisbon: said}
        assert m.core.source_messages(asked) == {lisbon: said}
        assert m.store.facts.source_messages([]) == {}


def test_the_facts_forgotten_from_a_message_are_read_until_erased(backend: Backend) -> None:
    with backend.memory() as m:
        [kept] = m.process_interaction("I moved to Lyon", "Noted.")
        [gone] = m.process_interaction("my locker code is 7720", "Noted.")
        [lyon, locker] = [m.store.facts.source_messages([i])[i] for i in (kept, gone)]
        assert m.store.facts.forgotten_from([lyon, locker]) == []
        assert m.forget("User's locker code is 7720").outcome == "matched"
        # The forgotten one, whole; the live one learned from its message is not.
        assert [(f.id, f.text, f.source_message_id)
                for f in m.store.facts.forgotten_from([lyon, locker])] == [
            (gone, "User's locker code is 7720", locker)]
        m.erase_forgotten()
        assert m.store.facts.forgotten_from([lyon, locker]) == []
