"""Archival search's nearest rows in meaning: they match below the threshold when too few
clear it, never below the embedder's near similarity, and only in archival_search."""

from __future__ import annotations

import numpy as np
import pytest
from memory_helpers import PlacedEmbedder

from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.embed.embeddings import near_similarity
from tiermem.memory.search.fusion import NEAREST_MATCHES
from tiermem.memory.tiers import archival

QUERY = "zebra"  # no passage holds the word: only meaning can match


def _memory(cosines: dict[str, float], tags: dict[str, list[str]] | None = None
            ) -> HierarchicalMemory:
    memory = HierarchicalMemory(None, embedder=PlacedEmbedder(cosines), recall_dense=False)
    for text in cosines:
        memory.archival_insert(text, tags=(tags or {}).get(text, []))
    return memory


def test_the_nearest_rows_match_below_the_threshold_when_none_clear_it() -> None:
    cosines = {"a striped horse grazing": 0.25, "a savanna at dusk": 0.2,
               "tax forms due in april": 0.1}
    with _memory(cosines) as memory:
        result = memory.archival_search(QUERY, k=10)
        assert [h.text for h in result.hits] == ["a striped horse grazing", "a savanna at dusk"]
        assert result.total == 2 and result.total_exact
        assert result.hits[0].similarity == pytest.approx(0.25, abs=1e-6)
        assert result.hits[0].score > result.hits[1].score > 0
        # at the threshold alone (as query() ranks, and as search did before) nothing matches
        assert memory.archival_search(QUERY, k=10, nearest=0).total == 0
        assert memory.archival.search(QUERY, k=10).total == 0
        assert memory.query(QUERY, k=10, touch=False) == []


def test_rows_below_the_threshold_stay_out_once_enough_clear_it() -> None:
    cosines = {f"grassland fact {n}": 0.5 + n / 100 for n in range(NEAREST_MATCHES)}
    cosines["a striped horse grazing"] = 0.29
    with _memory(cosines) as memory:
        result = memory.archival_search(QUERY, k=50)
        assert result.total == NEAREST_MATCHES
        assert "a striped horse grazing" not in [h.text for h in result.hits]


def test_only_the_nearest_rows_match_and_pages_slice_one_order() -> None:
    # More rows between the near similarity and the threshold than the nearest taken.
    cosines = {f"grassland note {n}": 0.16 + n * 0.005 for n in range(NEAREST_MATCHES + 5)}
    with _memory(cosines) as memory:
        result = memory.archival_search(QUERY, k=50)
        nearest = sorted(cosines, key=cosines.__getitem__, reverse=True)[:NEAREST_MATCHES]
        assert [h.text for h in result.hits] == nearest
        assert result.total == NEAREST_MATCHES
        paged = [memory.archival_search(QUERY, k=3, page=p).hits for p in (1, 2, 3)]
        assert [h.text for page in paged for h in page] == nearest[:9]


def test_filters_choose_the_nearest_among_the_rows_they_pass() -> None:
    cosines = {"a striped horse grazing": 0.25, "a savanna at dusk": 0.2,
               "a waterhole at noon": 0.18}
    tags = {"a savanna at dusk": ["africa"], "a waterhole at noon": ["africa"]}
    with _memory(cosines, tags) as memory:
        result = memory.archival_search(QUERY, k=10, tags=["africa"])
        assert [h.text for h in result.hits] == ["a savanna at dusk", "a waterhole at noon"]
        assert result.total == 2


def test_near_similarity_is_half_the_threshold_unless_the_embedder_sets_it() -> None:
    assert near_similarity(PlacedEmbedder({})) == pytest.approx(0.15)
    hashing = HashingEmbedder()
    # The hashing embedder's cosines below its threshold are a word or two in common.
    assert near_similarity(hashing) == hashing.min_similarity


def test_a_capped_search_takes_the_nearest_from_the_list_it_read(
        monkeypatch: pytest.MonkeyPatch) -> None:
    cosines = {f"grassland note {n}": 0.16 + n * 0.005 for n in range(NEAREST_MATCHES + 5)}
    with _memory(cosines) as memory:
        vectors = memory.archival.vectors
        real_search, real_nearest = vectors.search, vectors.nearest
        calls = {"search": 0, "nearest": 0}
        in_nearest = [False]

        def search(query: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
            calls["search"] += not in_nearest[0]  # nearest() may use search() itself
            return real_search(query, k)

        def nearest(query: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray, float]:
            calls["nearest"] += 1
            in_nearest[0] = True
            try:
                return real_nearest(query, k)
            finally:
                in_nearest[0] = False

        monkeypatch.setattr(vectors, "search", search)
        monkeypatch.setattr(vectors, "nearest", nearest)
        every = [h.text for h in memory.archival_search(QUERY, k=50).hits]
        assert calls == {"search": 1, "nearest": 0} and len(every) == NEAREST_MATCHES
        monkeypatch.setattr(archival, "DENSE_CAP_FROM", 1)
        monkeypatch.setattr(archival, "DENSE_CAP", 30)
        capped = memory.archival_search(QUERY, k=50)
        # the same passages, from the one read of the capped list
        assert [h.text for h in capped.hits] == every
        assert calls == {"search": 1, "nearest": 1}


def _tagged_nearest(cosines: dict[str, float], tags: dict[str, list[str]],
                    nearest: int) -> list[str]:
    """The ``nearest`` passages tagged ``keep`` nearest the query, by brute force."""
    kept = [t for t in cosines if "keep" in tags.get(t, [])]
    return sorted(kept, key=lambda t: -cosines[t])[:nearest]


@pytest.mark.parametrize("every", [4, 150])
def test_a_filtered_search_looks_up_few_rows_for_its_nearest(
        every: int, monkeypatch: pytest.MonkeyPatch) -> None:
    # 200 passages between the near similarity and the threshold; the tag filter passes
    # one in four (the nearest are among the first rows read) or one in 150 (they are not).
    cosines = {f"grassland note {n}": 0.151 + n * 0.00074 for n in range(200)}
    tags = {text: ["keep"] for n, text in enumerate(cosines) if n % every == 0}
    with _memory(cosines, tags) as memory:
        passages = memory.store.passages
        real_passing, looked_up = passages.passing, []

        def passing(ids: list[int], filt: object) -> list[int]:
            looked_up.extend(ids)
            return real_passing(ids, filt)

        monkeypatch.setattr(passages, "passing", passing)
        hits = memory.archival_search(QUERY, k=10, tags=["keep"], nearest=5).hits
        assert [h.text for h in hits] == _tagged_nearest(cosines, tags, 5)
        assert len(looked_up) == len(set(looked_up))  # no row is looked up twice
        if every == 4:
            assert len(looked_up) == 5 * 16  # the first read held them: 80 rows of 200
        else:
            assert len(looked_up) == 200  # too few pass: every row above 0.15 is read
