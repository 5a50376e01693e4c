"""``query()``: one ranking of all tiers that never leaves out a strong core match."""

from __future__ import annotations

import numpy as np
import pytest
from memory_helpers import make_memory

from tiermem.memory.embed.embeddings import HashingEmbedder, strong_similarity
from tiermem.memory.search.fusion import FusionWeights
from tiermem.memory.search.query import FACT_WEIGHT
from tiermem.memory.types import Hit


class SynonymEmbedder(HashingEmbedder):
    """Hashing, with "automobile" read as "car": a match in meaning that shares no word."""

    def __init__(self, strong: float | None = None) -> None:
        super().__init__()
        self.id = "hashing-synonyms-256"
        self.strong_similarity = strong

    def _embed(self, text: str) -> np.ndarray:
        return super()._embed(text.lower().replace("automobile", "car"))


def _rank_of(hits: list[Hit], fact_id: int) -> int:
    return next(i for i, h in enumerate(hits) if h.tier == "core" and h.fact_id == fact_id)


def test_a_strong_core_match_is_returned_however_many_hits_outrank_it() -> None:
    with make_memory(core_limit=4, core_limit_unit="facts") as m:
        fid = m.add_fact("User is allergic to peanuts and carries an epipen", "durable")
        for i in range(12):
            m.archival_insert(f"peanuts peanuts roasted peanuts batch {i}")
            m.process_interaction(f"Peanuts again, peanuts {i}?", "Peanuts noted.")
        # On score alone the fact is far from the first three.
        assert _rank_of(m.query("peanuts", k=30, touch=False), fid) >= 3
        hits = m.query("peanuts", k=3)
        assert len(hits) == 3
        # It has every word of the query, so it takes the weakest place, in score order.
        assert hits[-1].fact_id == fid and hits[-1].tier == "core"
        assert hits[0].score >= hits[1].score > hits[2].score


def test_a_core_fact_that_says_the_query_in_other_words_is_returned() -> None:
    embedder = SynonymEmbedder()
    with make_memory(core_limit=4, core_limit_unit="facts", embedder=embedder) as m:
        fid = m.add_fact("red car", "durable")
        m.add_fact("red red red red", "durable")
        for i in range(4):
            m.archival_insert(f"red automobile {i}")
        query = "red automobile"
        # Not every word, but its embedding is a strong match.
        assert float(embedder.embed_documents(["red car"])[0] @ embedder.embed_query(query)) >= (
            strong_similarity(embedder))
        assert _rank_of(m.query(query, k=30, touch=False), fid) >= 2
        hits = m.query(query, k=2)
        assert [h.tier for h in hits] == ["archival", "core"] and hits[1].fact_id == fid


def test_an_embedder_may_calibrate_its_strong_similarity() -> None:
    # The default: 70% of the way from the match threshold (0.2 here) to 1.
    assert strong_similarity(HashingEmbedder()) == pytest.approx(0.76)
    embedder = SynonymEmbedder(strong=0.999)
    assert strong_similarity(embedder) == 0.999
    with make_memory(core_limit=4, core_limit_unit="facts", embedder=embedder) as m:
        m.add_fact("the red car", "durable")  # near "red automobile", yet short of 0.999
        m.add_fact("red red red red", "durable")
        for i in range(4):
            m.archival_insert(f"red automobile {i}")
        assert [h.tier for h in m.query("red automobile", k=2)] == ["archival", "archival"]
        embedder.strong_similarity = None
        assert [h.tier for h in m.query("red automobile", k=2)] == ["archival", "core"]


def test_weak_core_matches_do_not_crowd_out_a_better_hit() -> None:
    topics = ["hiking", "pottery", "painting", "camping", "music", "dancing", "cooking",
              "reading", "swimming", "running", "chess", "guitar", "baking", "cycling", "yoga",
              "poetry", "gardening", "fishing", "skiing", "knitting"]
    with make_memory(core_limit=len(topics), core_limit_unit="facts") as m:
        for topic in topics:
            m.add_fact(f"Caroline: enjoys {topic} on weekends", "durable")
        m.archival_insert("Caroline did research on adoption agencies")
        # Every core fact matches by the speaker's name alone, none strongly.
        hits = m.query("What did Caroline research?", k=5, touch=False)
        assert len(hits) == 5
        assert hits[0].text == "Caroline did research on adoption agencies"
        assert all(h.score < hits[0].score for h in hits[1:])
        assert [h.text for h in m.query("What did Caroline research?", k=1, touch=False)] == [
            "Caroline did research on adoption agencies"]


def test_when_more_core_facts_match_strongly_than_k_the_best_scoring_fill_it() -> None:
    with make_memory(core_limit=6, core_limit_unit="facts") as m:
        best = m.add_fact("amber basil cedar", "durable")
        second = m.add_fact("amber basil cedar and tea", "durable")
        third = m.add_fact("cedar, then basil, then amber, then a long list of other things",
                           "durable")
        m.add_fact("amber lamp", "durable")
        m.archival_insert("amber basil cedar everywhere")
        hits = m.query("amber basil cedar", k=2)
        assert {h.fact_id for h in hits} == {best, second}
        assert hits[0].score >= hits[1].score
        everything = m.query("amber basil cedar", k=10)
        assert {h.fact_id for h in everything if h.tier == "core"} >= {best, second, third}
        assert [h.score for h in everything] == sorted((h.score for h in everything),
                                                       reverse=True)


def test_core_facts_are_scored_like_the_same_text_in_archival() -> None:
    texts = ["the vpn gateway is in frankfurt", "the vpn client is outdated",
             "lunch is at noon"]
    with make_memory(core_limit=5, core_limit_unit="facts") as m:
        for text in texts:
            m.add_fact(text, "durable")
            m.archival_insert(text)
        hits = m.query("vpn gateway frankfurt", k=10, touch=False)
        core = {h.text: h.score for h in hits if h.tier == "core"}
        archival = {h.text: h.score for h in hits if h.tier == "archival"}
        assert set(core) == set(archival) == set(texts[:2])
        # A fact weighs FACT_WEIGHT against other hits, wherever it is.
        for text in core:
            assert core[text] == pytest.approx(FACT_WEIGHT * archival[text], rel=1e-6)
        assert core[texts[0]] == pytest.approx(FACT_WEIGHT)


# Dense alone is left out: there the best match in core scores 1.0, which nothing outranks.
@pytest.mark.parametrize("fusion", [
    FusionWeights(), FusionWeights(dense=0.0), FusionWeights(method="rrf"),
])
def test_the_core_guarantee_holds_for_every_fusion(fusion: FusionWeights) -> None:
    with make_memory(core_limit=10, core_limit_unit="facts", fusion=fusion) as m:
        fid = m.add_fact("deploy window: friday", "durable")  # every word of the query
        # Outranks it in core without being a strong match, so it scores below 1.0.
        m.add_fact("window window window window", "durable")
        for i in range(6):
            m.add_fact(f"deploy notes {i}", "durable")
        for i in range(8):
            m.archival_insert(f"deploy window deploy window notes {i}")
        for i in range(30):  # so the query's words are rare in archival, as in a real store
            m.archival_insert(f"lunch menu item {i}")
        assert _rank_of(m.query("deploy window", k=30, touch=False), fid) >= 2
        hits = m.query("deploy window", k=2)
        assert len(hits) == 2 and hits[1].fact_id == fid and hits[1].tier == "core"
        assert hits[0].score >= hits[1].score


def test_core_embeddings_follow_edits() -> None:
    with make_memory(core_limit=3, core_limit_unit="facts", embedder=SynonymEmbedder(),
                     fusion=FusionWeights(lexical=0.0)) as m:
        m.add_fact("User drives a red car", "durable")
        assert [h.tier for h in m.query("automobile")] == ["core"]
        m.replace_in_core("red car", "blue bicycle")
        assert m.query("automobile") == []
        m.replace_in_core("blue bicycle", "green car")
        assert [h.text for h in m.query("automobile")] == ["User drives a green car"]


def test_a_fact_and_the_message_it_was_learned_from_take_one_place() -> None:
    with make_memory() as m:
        learned = m.process_interaction("I'm allergic to sesame.", "Noted.")
        m.process_interaction("The sesame bagels arrived today.", "Enjoy them.")
        fact = m.fact(learned[0])
        assert fact is not None and fact.source_message_id == 1
        # Not a strong match (the fact lacks "seeds"): a strong one keeps its own place.
        hits = m.query("allergic to sesame seeds", k=10, touch=False)
        standing_for_first = [h for h in hits if (h.tier == "recall" and h.id == 1)
                              or h.fact_id == fact.id]
        assert len(standing_for_first) == 1
        assert hits[0] is standing_for_first[0]


def test_a_strong_core_match_keeps_its_place_beside_the_message_it_came_from() -> None:
    with make_memory() as m:
        m.process_interaction("My badge number is 4417.", "Noted.")
        fact = next(f for f in m.facts() if "4417" in f.text)
        assert fact.tier == "core" and fact.source_message_id == 1
        hits = m.query("badge number 4417", k=3)
        # The fact holds every word of the question: it is never merged away.
        assert any(h.tier == "core" and h.id == fact.id for h in hits)
