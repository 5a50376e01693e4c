"""What ``query()`` costs, counted: each text it searches with is embedded once, whichever
tiers search with it; archived facts are read from the store together; a time question's
hits are tested for a stated time once per text."""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Sequence

import numpy as np
import pytest
from memory_helpers import make_memory

from tiermem.memory.embed.embeddings import HashingEmbedder
from tiermem.memory.hierarchy import HierarchicalMemory
from tiermem.memory.ops import searches
from tiermem.memory.ops.forget_config import ForgetConfig
from tiermem.memory.ops.forget_select import candidates
from tiermem.memory.search import dates
from tiermem.memory.search.fusion_weights import FusionWeights
from tiermem.memory.search.lexical import PRUNE_MIN_ROWS
from tiermem.memory.store.sqlite.lexical import SQLiteLexical


class CountingEmbedder(HashingEmbedder):
    """Hashing, counting the texts it embeds as queries (it keeps no cache of its own)."""

    def __init__(self) -> None:
        super().__init__()
        self.queries: Counter[str] = Counter()

    def embed_query(self, text: str) -> np.ndarray:
        self.queries[text] += 1
        return super().embed_query(text)


def _filled(m: HierarchicalMemory, messages: int) -> None:
    m.add_fact("Caroline keeps bees on the roof", "durable")
    m.archival_insert("Caroline sold honey at the market in May")
    for i in range(messages):
        m.process_interaction(f"Caroline said hello {i}", f"Hello again {i}")


def test_the_question_is_embedded_once_for_all_three_tiers() -> None:
    embedder = CountingEmbedder()
    with make_memory(embedder=embedder, recall_dense=True) as m:
        _filled(m, 3)
        embedder.queries.clear()
        hits = m.query("Where does Caroline keep her bees?", k=5, touch=False)
        assert {h.tier for h in hits} == {"core", "archival", "recall"}
        # Core, archival and recall all embed the question as written: one call between them.
        assert embedder.queries == Counter({"Where does Caroline keep her bees?": 1})


def test_a_tier_that_drops_a_common_word_embeds_its_own_text_once() -> None:
    embedder = CountingEmbedder()
    with make_memory(embedder=embedder, recall_dense=True) as m:
        # Enough messages, every user message naming Caroline, for recall to drop her name.
        _filled(m, PRUNE_MIN_ROWS)
        embedder.queries.clear()
        m.query("Where does Caroline keep her bees?", k=5, touch=False)
        # Core and archival embed the question; recall embeds it without the name.
        assert embedder.queries == Counter({"Where does Caroline keep her bees?": 1,
                                            "Where does keep her bees?": 1})


class BatchingEmbedder(CountingEmbedder):
    """Counting, with the optional ``embed_queries``: each call's texts are recorded."""

    def __init__(self) -> None:
        super().__init__()
        self.batches: list[list[str]] = []

    def embed_queries(self, texts: list[str]) -> list[np.ndarray]:
        self.batches.append(list(texts))
        return [HashingEmbedder.embed_query(self, text) for text in texts]


def test_the_texts_of_all_tiers_go_to_the_model_in_one_call() -> None:
    question = "Where does Caroline keep her bees?"
    ranked = {}
    for embedder in (CountingEmbedder(), BatchingEmbedder()):
        with make_memory(embedder=embedder, recall_dense=True) as m:
            _filled(m, PRUNE_MIN_ROWS)
            m.process_interaction("The bees swarmed over the roof today", "Oh no!")
            embedder.queries.clear()
            hits = m.query(question, k=20, touch=False)
            ranked[type(embedder)] = [(h.tier, h.id, h.score) for h in hits]
            if isinstance(embedder, BatchingEmbedder):
                # Core and archival embed the question, recall its text without the name:
                # one call for both, and none one by one.
                assert embedder.batches == [[question, "Where does keep her bees?"]]
                assert not embedder.queries
    # The same vectors, so the same hits in the same order.
    assert ranked[BatchingEmbedder] == ranked[CountingEmbedder]
    assert {tier for tier, _, _ in ranked[CountingEmbedder]} == {"core", "archival", "recall"}


def test_forget_embeds_its_search_once_for_all_tiers() -> None:
    embedder = CountingEmbedder()
    with make_memory(embedder=embedder, recall_dense=True) as m:
        _filled(m, 3)
        embedder.queries.clear()
        found = candidates(m, "Caroline's bees", ForgetConfig())
        assert {h.tier for h in found} >= {"core", "recall"}
        assert embedder.queries == Counter({"Caroline's bees": 1})


def test_archived_facts_behind_the_hits_are_read_in_one_go() -> None:
    with make_memory(core_limit=1, core_limit_unit="facts") as m:
        for i in range(6):  # each fact evicts the one before it to archival
            m.process_interaction(f"My sister plays the cello in orchestra {i}", "Lovely.")
            m.add_fact(f"User's sister plays the cello in orchestra {i}", "durable",
                       source_message_id=m.recall_search(f"orchestra {i}", k=1).hits[0].id)
        reads: Counter[str] = Counter()
        facts = m.store.facts
        get, sources = facts.get, facts.source_messages
        facts.get = lambda i: (reads.update(["get"]), get(i))[1]  # type: ignore[method-assign]
        facts.source_messages = lambda ids: (  # type: ignore[method-assign]
            reads.update(["source_messages"]), sources(ids))[1]
        archived = m.archival_search("sister cello orchestra", k=10).hits
        assert sum(h.fact_id is not None for h in archived) >= 3
        m.query("sister cello orchestra", k=10, touch=False)
        assert reads == Counter({"source_messages": 1})


def test_whether_a_text_states_a_time_is_worked_out_once() -> None:
    dates._states_time_cached.cache_clear()
    said = "We went camping last week"
    assert dates.mentions_time(said) and dates.mentions_time(said)
    assert dates._states_time_cached.cache_info().hits == 1
    # A long text is tested each time, so the cache holds short texts only.
    long = "we went camping " * dates.MENTIONS_CACHED_CHARS
    assert not dates.mentions_time(long)
    assert dates._states_time_cached.cache_info().currsize == 1


BEES = "Caroline keeps bees on the roof"
BUSY = "Bees keep Caroline busy in spring"
# Close in meaning to the question (the hashing embedder's cosine 0.83, over its
# strong_similarity 0.76) without its word "bees".
HIVES = "Where does Caroline keep her hives?"
GOATS = "Caroline keeps goats in the yard"


@pytest.mark.parametrize(("fusion", "used_texts"), [
    (FusionWeights(), {BEES, BUSY, HIVES}),
    # Ranked by reciprocal ranks, hits carry no similarity: HIVES still counts, as
    # query() pinned it for its meaning.
    (FusionWeights(method="rrf"), {BEES, BUSY, HIVES}),
    # A search without a lexical side pins no fact for its words: BUSY is a hit, not
    # a strong match, and is not counted.
    (FusionWeights(lexical=0.0, dense=1.0), {HIVES})])
def test_touching_counts_the_core_facts_query_pinned_with_no_second_lookup(
        monkeypatch: pytest.MonkeyPatch, fusion: FusionWeights, used_texts: set[str]) -> None:
    question = "Where does Caroline keep her bees?"
    with make_memory(fusion=fusion) as m:
        _filled(m, 3)  # core holds BEES
        for text in (BUSY, HIVES, GOATS, "Caroline likes green tea"):
            m.add_fact(text, "durable")
        lookups: list[tuple[str, bool]] = []
        scores = SQLiteLexical.scores

        def counted(index: SQLiteLexical, terms: Sequence[str], every_term: bool = False,
                    among: Collection[int] | None = None) -> dict[int, float]:
            lookups.append((index.table, every_term))
            return scores(index, terms, every_term, among)

        monkeypatch.setattr(SQLiteLexical, "scores", counted)
        used: list[int] = []
        count_use = m.lifecycle.count_use
        monkeypatch.setattr(m.lifecycle, "count_use",
                            lambda ids: (used.extend(ids), count_use(ids))[1])
        hits = m.query(question, k=10, touch=False)
        searched = Counter(lookups)
        lookups.clear()
        assert m.query(question, k=10, touch=True) == hits
        assert Counter(lookups) == searched  # the touch step looked nothing up
        pinned = searches.query_all(m, question, 10, None).core_strong
        assert pinned is not None
        assert {m.core.get(i).text for i in pinned} == used_texts  # type: ignore[union-attr]
        assert {m.core.get(i).text for i in used} == used_texts  # type: ignore[union-attr]
        core_hits = {h.text for h in hits if h.tier == "core"}
        assert used_texts <= core_hits


def test_the_messages_behind_the_facts_are_read_once_when_replies_are_lifted() -> None:
    with make_memory(core_limit=1, core_limit_unit="facts") as m:
        for i in range(4):  # each fact evicts the one before it to archival
            m.process_interaction(f"Does my sister play the cello in orchestra {i}?",
                                  "She does.")
            m.add_fact(f"User's sister plays the cello in orchestra {i}", "durable",
                       source_message_id=m.recall_search(f"orchestra {i}", k=1).hits[0].id)
        archived = m.archival_search("sister cello orchestra", k=10).hits
        assert sum(h.fact_id is not None for h in archived) >= 3
        reads: Counter[str] = Counter()
        facts = m.store.facts
        sources = facts.source_messages
        facts.source_messages = lambda ids: (  # type: ignore[method-assign]
            reads.update(["source_messages"]), sources(ids))[1]
        hits = m.query("sister cello orchestra", k=10, touch=False)
        # The archived facts were candidates, each taking one place with the question it
        # was learned from, whose reply ranks beside it: what lifts the replies and what
        # merges facts with their messages share one read of the messages behind them.
        assert any(h.tier == "recall" and h.text == "She does." for h in hits)
        assert not any(h.tier == "archival" for h in hits)
        assert reads == Counter({"source_messages": 1})
