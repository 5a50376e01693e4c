"""``query()``: every core fact that matches is returned, scored as the other tiers are."""

from __future__ import annotations

import numpy as np
import pytest
from memory_helpers import make_memory

from memory.embeddings import HashingEmbedder
from memory.search import FusionWeights


class SynonymEmbedder(HashingEmbedder):
    """Hashing, with "automobile" read as "car": a match in meaning that shares no word."""

    def __init__(self) -> None:
        super().__init__()
        self.id = "hashing-synonyms-256"

    def _embed(self, text: str) -> np.ndarray:
        return super()._embed(text.lower().replace("automobile", "car"))


def test_a_matching_core_fact_is_returned_however_many_hits_outrank_it() -> None:
    with make_memory(core_limit=4, core_limit_unit="facts") as m:
        fid = m.add_fact("User is allergic to peanuts and carries an epipen", "durable")
        for i in range(12):
            m.archival_insert(f"peanuts peanuts roasted peanuts batch {i}")
            m.process_interaction(f"Peanuts again, peanuts {i}?", "Peanuts noted.")
        hits = m.query("peanuts", k=3)
        assert len(hits) == 3
        assert hits[0].fact_id == fid and hits[0].tier == "core"
        # Every other hit scores above it: the core fact is there because it matches.
        assert all(h.score >= hits[0].score for h in hits[1:])


def test_a_core_fact_that_matches_only_in_meaning_is_returned() -> None:
    with make_memory(core_limit=4, core_limit_unit="facts", embedder=SynonymEmbedder()) as m:
        fid = m.add_fact("User drives a red car", "durable")
        m.add_fact("User prefers tea", "durable")
        m.archival_insert("the automobile show opens in may")
        hits = m.query("automobile", k=5)
        core = [h for h in hits if h.tier == "core"]
        assert [h.fact_id for h in core] == [fid]
        assert hits[0].fact_id == fid and hits[0].score > 0
        assert "User prefers tea" not in [h.text for h in hits]  # below the threshold


def test_when_more_core_facts_match_than_k_the_best_scoring_fill_it() -> None:
    with make_memory(core_limit=6, core_limit_unit="facts") as m:
        best = m.add_fact("amber basil cedar", "durable")
        second = m.add_fact("amber basil tea", "durable")
        m.add_fact("amber lamp", "durable")
        m.add_fact("dune sand", "durable")
        m.archival_insert("amber basil cedar everywhere")
        hits = m.query("amber basil cedar", k=2)
        assert [(h.tier, h.fact_id) for h in hits] == [("core", best), ("core", second)]
        assert hits[0].score > hits[1].score
        everything = m.query("amber basil cedar", k=10)
        core = [h.text for h in everything if h.tier == "core"]
        assert core == ["amber basil cedar", "amber basil tea", "amber lamp"]
        assert [h.tier for h in everything[3:]] == ["archival"]


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
        for text in core:
            assert core[text] == pytest.approx(archival[text], rel=1e-6)
        assert core[texts[0]] == pytest.approx(1.0)


@pytest.mark.parametrize("fusion", [
    FusionWeights(), FusionWeights(dense=0.0), FusionWeights(lexical=0.0),
    FusionWeights(method="rrf"),
])
def test_the_core_guarantee_holds_for_every_fusion(fusion: FusionWeights) -> None:
    with make_memory(core_limit=3, core_limit_unit="facts", fusion=fusion) as m:
        fid = m.add_fact("the deploy window is friday", "durable")
        m.add_fact("coffee is on the second floor", "durable")
        for i in range(8):
            m.archival_insert(f"deploy window deploy window notes {i}")
        hits = m.query("deploy window", k=2)
        assert hits[0].fact_id == fid
        assert len(hits) == 2 and hits[1].tier == "archival"
        assert all(h.text != "coffee is on the second floor" for h in hits)


def test_core_embeddings_follow_edits() -> None:
    with make_memory(core_limit=3, core_limit_unit="facts", embedder=SynonymEmbedder(),
                     fusion=FusionWeights(lexical=0.0)) as m:
        m.add_fact("User drives a red car", "durable")
        assert [h.tier for h in m.query("automobile")] == ["core"]
        m.replace_in_core("red car", "blue bicycle")
        assert m.query("automobile") == []
        m.replace_in_core("blue bicycle", "green car")
        assert [h.text for h in m.query("automobile")] == ["User drives a green car"]
