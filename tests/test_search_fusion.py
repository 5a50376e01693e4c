"""Hybrid search fusion: the weighted sum, dense-query pruning of common words, RRF."""

from __future__ import annotations

import pytest

from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.search.fusion import (
    PRUNE_MIN_ROWS,
    FusionWeights,
    dense_query_text,
    without_words,
)
from tiermem.memory.search.fusion_scores import weighted_ranking

TOPICS = ["violin lessons", "adoption agencies", "pottery class", "camping trip", "charity race",
          "dance studio", "clothing store", "job interview", "road trip", "book club"]


def _memory(rows: int, fusion: FusionWeights | None = None) -> HierarchicalMemory:
    m = HierarchicalMemory(None, embedder=HashingEmbedder(), recall_dense=False, fusion=fusion)
    for i in range(rows):
        speaker = "Ann" if i % 2 else "Bob"
        m.archival_insert(f"{speaker}: we talked about the {TOPICS[i % len(TOPICS)]} today {i}")
    return m


def test_words_in_most_rows_are_dropped_from_the_dense_query() -> None:
    with _memory(PRUNE_MIN_ROWS + 10) as m:
        # "talked" is in every row, "violin" in a tenth: only the first is dropped
        passages = m.store.lexical("passages")
        text = dense_query_text(passages, "Who talked about violin?", len(m.archival))
        assert text == "Who about violin?"
        # a query made only of common words is left whole
        assert dense_query_text(passages, "we talked", len(m.archival)) == "we talked"
    with _memory(PRUNE_MIN_ROWS - 1) as small:  # too few rows to judge a word by its frequency
        text = dense_query_text(small.store.lexical("passages"), "Who talked about violin?",
                                len(small.archival))
        assert text == "Who talked about violin?"


def test_without_words_takes_the_possessive_along() -> None:
    assert without_words("What is Caroline's identity?", {"caroline"}) == "What is identity?"
    assert without_words("Carolines and Caroline", {"caroline"}) == "Carolines and"
    assert without_words("unchanged", set()) == "unchanged"


def test_single_list_weights_rank_by_that_list_alone() -> None:
    with _memory(40, FusionWeights(1.0, 0.0)) as lexical:
        hits = lexical.archival_search("violin lessons", k=40)
        assert hits.total == 4  # the dense list is not consulted, nor counted
        assert all("violin" in h.text for h in hits.hits)
    with _memory(40) as both:
        fused = both.archival_search("violin lessons", k=40)
        assert fused.total >= 4 and {"violin" in h.text for h in fused.hits[:4]} == {True}
        scores = [h.score for h in fused.hits]
        assert scores == sorted(scores, reverse=True) and 0 < scores[-1] <= scores[0] <= 1


def test_a_given_query_vector_is_used_as_is() -> None:
    with _memory(40, FusionWeights(0.0, 1.0)) as m:
        vector = m.embedder.embed_query("pottery class")
        hits = m.archival_search("violin", k=3).hits
        assert all("violin" in h.text for h in hits)
        steered = m.archival.search("violin", k=3, query_vector=vector).hits
        assert all("pottery" in h.text for h in steered)


def test_rrf_is_still_available_and_weights_are_checked() -> None:
    with _memory(30, FusionWeights(1.0, 0.5, method="rrf")) as m:
        hits = m.archival_search("camping trip", k=5).hits
        assert "camping" in hits[0].text
        assert hits[0].score == pytest.approx(1.0 / 61 + 0.5 / 61)
    with pytest.raises(ValueError, match="method"):
        FusionWeights(method="borda")
    with pytest.raises(ValueError, match="weights"):
        FusionWeights(0.0, 0.0)


def test_the_weighted_ranking_gives_each_row_its_own_scores_as_plain_numbers() -> None:
    # Rows 3 and 8 match on words alone, 5 in meaning alone, 2 both; 7 and 9 tie.
    lexical = {8: 4.0, 2: 2.0, 3: 1.0, 7: 1.0, 9: 1.0}
    dense = {5: 0.7, 2: 0.5}
    floor, span, w_lex, w_dense = 0.3, 0.4, 0.6, 0.4
    ranked = weighted_ranking(lexical, dense, floor, span, w_lex, w_dense, limit=6)

    def fused(i: int) -> float:
        near = (dense[i] - floor) / span if i in dense else 0.0
        return (w_lex * lexical.get(i, 0.0) / 4.0 + w_dense * near) / (w_lex + w_dense)

    expected = sorted(lexical.keys() | dense, key=lambda i: (-fused(i), i))[:6]
    assert [r.id for r in ranked] == expected  # the tie of 3, 7 and 9 goes by id
    for r in ranked:
        assert type(r.id) is int and type(r.score) is float and type(r.relevance) is float
        assert r.score == pytest.approx(fused(r.id))
        assert r.relevance == lexical.get(r.id, 0.0)
        assert r.similarity == dense.get(r.id)  # None for a row that matched on words alone
        assert r.similarity is None or type(r.similarity) is float
