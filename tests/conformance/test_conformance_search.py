"""Archival search (paging with real totals, tag and date filters) and query() across tiers."""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Callable

import numpy as np
import pytest
from backends import Backend
from memory_helpers import PlacedEmbedder

from tiermem.memory.embed.embeddings import HashingEmbedder
from tiermem.memory.hierarchy import HierarchicalMemory
from tiermem.memory.search.fusion import query_terms
from tiermem.memory.types import SearchResult


def _day(day: int, hour: int = 12) -> float:
    return dt.datetime(2024, 5, day, hour, 0, tzinfo=dt.UTC).timestamp()


def _expected_matches(m: HierarchicalMemory, query: str) -> set[int]:
    """Brute force: rows sharing a content word, or embedded close enough to the query."""
    terms = set(query_terms(query))
    qv = m.embedder.embed_query(query)
    found = set()
    for row in m.archival.iter_rows():
        words = set(query_terms(row["text"]))
        vector = np.frombuffer(row["embedding"], dtype=np.float32)
        if terms & words or float(vector @ qv) >= m.embedder.min_similarity:
            found.add(row["id"])
    return found


@pytest.fixture
def paged(backend: Backend) -> HierarchicalMemory:
    m = backend.memory()
    for i in range(25):
        m.archival_insert(f"ticket {i}: the flux capacitor overheated again")
    for i in range(15):
        m.archival_insert(f"the weather in lisbon is mild on day {i}")
    yield m
    m.close()


def test_paging_reports_real_totals(paged: HierarchicalMemory) -> None:
    expected = _expected_matches(paged, "flux capacitor")
    assert len(expected) == 25
    pages = [paged.archival_search("flux capacitor", k=10, page=p) for p in (1, 2, 3, 4)]
    assert [p.total for p in pages] == [25, 25, 25, 25]
    assert [p.pages for p in pages] == [3, 3, 3, 3]
    assert [len(p.hits) for p in pages] == [10, 10, 5, 0]
    ids = [h.id for p in pages for h in p.hits]
    assert len(ids) == len(set(ids))
    assert set(ids) == expected
    scores = [h.score for p in pages for h in p.hits]
    assert scores == sorted(scores, reverse=True)
    for page in pages:
        assert page.page_size == 10
        for hit in page.hits:
            assert hit.tier == "archival" and hit.score > 0 and hit.created_at > 0
            assert "flux capacitor" in hit.text


def test_total_does_not_depend_on_the_page_size(paged: HierarchicalMemory) -> None:
    for k in (1, 3, 7, 25, 100):
        assert paged.archival_search("flux capacitor", k=k).total == 25
    assert paged.archival_search("lisbon weather", k=2).total == 15
    for query in ("quantum zebra", "capacitor day", "ticket 4 lisbon", "the and of"):
        assert paged.archival_search(query, k=3).total == len(_expected_matches(paged, query))


def test_tag_filters_filter(backend: Backend) -> None:
    with backend.memory() as m:
        for i in range(12):
            tag = ("billing", "ops", "legal")[i % 3]
            m.archival_insert(f"note {i} about the acme account", tags=[tag, "acme"])
        m.archival_insert("note about the acme account without tags")
        billing = m.archival_search("acme account", tags=["billing"], k=50)
        assert billing.total == 4
        assert all("billing" in h.tags for h in billing.hits)
        either = m.archival_search("acme account", tags=["BILLING", " ops "], k=50)
        assert either.total == 8
        assert all({"billing", "ops"} & set(h.tags) for h in either.hits)
        assert m.archival_search("acme account", tags=["acme"], k=50).total == 12
        assert m.archival_search("acme account", k=50).total == 13
        assert m.archival_search("acme account", tags=["nope"]).total == 0


def test_date_filters_filter_on_when_the_passage_was_learned(backend: Backend) -> None:
    with backend.memory() as m:
        for day in range(1, 11):
            m.archival_insert(f"standup notes for may {day}: deploy went fine",
                              created_at=_day(day))
        window = m.archival_search("standup deploy", start="2024-05-03", end="2024-05-05", k=50)
        assert window.total == 3
        assert sorted(h.created_at for h in window.hits) == [_day(3), _day(4), _day(5)]
        since = m.archival_search("standup", start=dt.date(2024, 5, 8), k=50)
        assert sorted(h.created_at for h in since.hits) == [_day(8), _day(9), _day(10)]
        until = m.archival_search("standup", end=_day(2), k=50)
        assert sorted(h.created_at for h in until.hits) == [_day(1), _day(2)]
        exact = m.archival_search("standup", start="2024-05-06T12:00:00+00:00",
                                  end=dt.datetime(2024, 5, 6, 12, tzinfo=dt.UTC), k=50)
        assert [h.created_at for h in exact.hits] == [_day(6)]
        # created_at is when the passage was stored, not when it was searched.
        assert {h.created_at for h in m.archival_search("standup", k=50).hits} == {
            _day(d) for d in range(1, 11)}


def test_filters_combine_with_paging(backend: Backend) -> None:
    with backend.memory() as m:
        for i in range(30):
            m.archival_insert(f"latency report {i}", tags=["perf" if i % 2 else "misc"],
                              created_at=_day(1 + i % 10))
        pages = [m.archival_search("latency report", tags=["perf"], start="2024-05-05",
                                   k=4, page=p) for p in (1, 2, 3, 4)]
        matching = [i for i in range(30) if i % 2 and 1 + i % 10 >= 5]
        assert {p.total for p in pages} == {len(matching)}
        ids = [h.id for p in pages for h in p.hits]
        assert sorted(ids) == [i + 1 for i in matching]


# -- query() ---------------------------------------------------------------------------------


def _stock(m: HierarchicalMemory) -> int:
    m.add_fact("User is allergic to peanuts", "durable")
    evicted = m.add_fact("User had peanuts at the team lunch", "short-lived")
    m.add_fact("filler fact one", "durable")
    m.add_fact("filler fact two", "durable")  # evicts the short-lived fact
    assert m.fact(evicted).tier == "archival"
    m.archival_insert("peanuts are legumes, not nuts", tags=["trivia"])
    m.process_interaction("Do you remember my peanuts thing?", "Yes, you are allergic.")
    return evicted


def test_query_ranks_every_tier_on_one_scale_and_tags_every_hit(backend: Backend) -> None:
    with backend.memory(core_limit=3, core_limit_unit="facts") as m:
        evicted = _stock(m)
        hits = m.query("peanuts", k=10)
        tiers = [h.tier for h in hits]
        assert "User is allergic to peanuts" in [h.text for h in hits if h.tier == "core"]
        assert {"archival", "recall"} <= set(tiers)
        assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
        archival = {h.text: h for h in hits if h.tier == "archival"}
        was = archival["User had peanuts at the team lunch"]
        assert was.was_in_core and was.evicted_at is not None and was.fact_id == evicted
        plain = archival["peanuts are legumes, not nuts"]
        assert not plain.was_in_core and plain.evicted_at is None and plain.fact_id is None
        for hit in hits:
            if hit.tier == "recall":
                assert hit.role in ("user", "assistant") and hit.turn == m.tick
            assert hit.created_at > 0
        assert len(m.query("peanuts", k=2)) == 2


def test_fact_scores_among_some_rows_are_those_rows_scores(backend: Backend) -> None:
    with backend.memory(core_limit=2, core_limit_unit="facts") as m:
        for text in ("the vpn gateway is in frankfurt", "the vpn client needs a token",
                     "the office printer is in frankfurt", "lunch is at noon"):
            m.add_fact(text, "durable")  # the first two are evicted to archival
        facts = m.store.lexical("facts")
        terms = ["vpn", "frankfurt"]
        everything = facts.scores(terms)
        assert len(everything) == 3
        core = m.core.ids()
        assert facts.scores(terms, among=core) == {
            i: s for i, s in everything.items() if i in core}
        assert facts.scores(terms, every_term=True, among=list(everything)) == \
            facts.scores(terms, every_term=True)
        assert len(facts.scores(terms, every_term=True)) == 1
        assert facts.scores(terms, among=[]) == {}
        # query() scores core's facts only, with the scores they have among every fact.
        hits = [h for h in m.query("vpn frankfurt", k=10, touch=False) if h.tier == "core"]
        assert [h.text for h in hits] == ["the office printer is in frankfurt"]
        assert hits[0].relevance == everything[hits[0].id]


def test_query_does_not_repeat_a_core_fact_from_its_old_passage(backend: Backend) -> None:
    with backend.memory(core_limit=2, core_limit_unit="facts", promote_hits=1,
                     recent_promote_hits=1) as m:
        fid = m.add_fact("the vpn gateway is in frankfurt", "durable")
        m.add_fact("filler one", "durable")
        m.add_fact("filler two", "durable")
        m.add_fact("the vpn gateway is in frankfurt")  # promoted back
        assert fid in m.core
        hits = m.query("vpn gateway frankfurt")
        assert [h.fact_id for h in hits].count(fid) == 1
        assert hits[0].tier == "core"


def test_query_on_an_empty_memory_and_without_content_words(backend: Backend) -> None:
    with backend.memory() as m:
        assert m.query("anything at all") == []
        m.add_fact("User is allergic to peanuts")
        assert m.query("the of and") == []


def _all_pages(search: Callable[..., SearchResult], k: int) -> list[int]:
    ids: list[int] = []
    page = 1
    while hits := search(k=k, page=page).hits:
        ids += [h.id for h in hits]
        page += 1
    return ids


def _fruit(backend: Backend, rows: int, words: int, seed: int) -> HierarchicalMemory:
    """Passages of a few fruit names each and a number of their own."""
    rng = random.Random(seed)
    fruit = "apple banana cherry date elder fig grape honeydew kiwi lemon mango nectarine"
    m = backend.memory(embedder=HashingEmbedder(64), recall_dense=False)
    for i in range(rows):
        m.archival_insert(" ".join(rng.sample(fruit.split(), words)) + f" n{i}")
    return m


@pytest.mark.parametrize("query", ["apple banana", "kiwi", "mango fig grape"])
def test_paging_past_the_fusion_depth_neither_repeats_nor_skips(
    backend: Backend, query: str
) -> None:
    with _fruit(backend, rows=300, words=4, seed=1) as m:
        whole = m.archival_search(query, k=1000)
        assert whole.total == len(whole.hits) > 100
        for k in (7, 20, 33):
            ids = _all_pages(lambda **kw: m.archival_search(query, **kw), k)
            assert ids == [h.id for h in whole.hits]
        scores = [h.score for h in whole.hits]
        assert scores == sorted(scores, reverse=True) and scores[-1] > 0


def test_query_does_not_lift_a_tier_whose_best_match_is_weak(backend: Backend) -> None:
    """Each tier's own search scores its best hit about 1, however weak; query() puts
    every candidate on one scale, so a passage that matches every word outranks a
    message that shares one word with the question."""
    with backend.memory() as m:
        for topic in ("billing export", "holiday rota", "office wifi", "coffee machine",
                      "badge access", "parking permits"):
            m.archival_insert(f"notes about the {topic}")
        m.archival_insert("deploy runbook for the payments service")
        m.process_interaction("My sister works in payments at a bank in another town.",
                              "Nice, that sounds interesting.")
        question = "payments service deploy runbook"
        own_best = m.recall_search(question, k=1).hits[0]
        hits = m.query(question, k=5, touch=False)
        assert (hits[0].tier, hits[0].text) == ("archival",
                                                "deploy runbook for the payments service")
        message = next(h for h in hits if h.tier == "recall" and h.id == own_best.id)
        assert message.score < own_best.score and message.score < hits[0].score / 2
        for hit in hits:  # every hit says what its score was fused from
            assert hit.relevance >= 0 and (hit.similarity is None or -1 <= hit.similarity <= 1)


@pytest.mark.parametrize("query", ["apple kiwi", "n7 grape", "lemon"])
def test_a_capped_dense_side_ranks_as_every_match(
    backend: Backend, query: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tiermem.memory.tiers import archival

    with _fruit(backend, rows=200, words=3, seed=2) as m:
        every = [m.archival_search(query, k=9, page=page) for page in (1, 2, 3)]
        assert all(r.total_exact for r in every)
        # The nearest three in meaning first, widened as ranking needs.
        monkeypatch.setattr(archival, "DENSE_CAP_FROM", 1)
        monkeypatch.setattr(archival, "DENSE_CAP", 3)
        for page, whole in zip((1, 2, 3), every, strict=True):
            capped = m.archival_search(query, k=9, page=page)
            assert [(h.id, h.score) for h in capped.hits] == [
                (h.id, h.score) for h in whole.hits]
            assert capped.total <= whole.total
            assert capped.total == whole.total or not capped.total_exact


def test_archival_matches_its_nearest_passages_below_the_threshold(backend: Backend) -> None:
    # No passage shares a word with the query or reaches the threshold (0.3); the nearest
    # down to half of it match, and filters choose among the passages they pass.
    cosines = {"a striped horse grazing": 0.25, "a savanna at dusk": 0.2,
               "a waterhole at noon": 0.18, "tax forms due in april": 0.1}
    m = backend.memory(embedder=PlacedEmbedder(cosines))
    try:
        for text in cosines:
            m.archival_insert(text, tags=["africa"] if "at" in text.split() else [])
        found = m.archival_search("zebra", k=10)
        assert [h.text for h in found.hits] == list(cosines)[:3] and found.total == 3
        sims = [h.similarity for h in found.hits]
        assert sims == pytest.approx([0.25, 0.2, 0.18], abs=1e-6)
        tagged = m.archival_search("zebra", k=10, tags=["africa"], start="2000-01-01")
        assert [h.text for h in tagged.hits] == ["a savanna at dusk", "a waterhole at noon"]
        assert m.archival_search("zebra", k=10, nearest=0).total == 0
    finally:
        m.close()
