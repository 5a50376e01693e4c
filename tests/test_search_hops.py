"""The second retrieval round (memory/search/hops.py): what it adds, and what it must not move."""

from __future__ import annotations

from typing import Any

import pytest

from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.errors import InvalidInputError
from tiermem.memory.search.hops import HopSettings, expansion_terms, fuse_rounds
from tiermem.memory.types import Hit

QUESTION = "Where did Melanie go camping?"
# The evidence shares no word with the question, only a place with the first round's best hit.
FIRST = "Melanie: We went camping with the kids near Tahoe last summer."
EVIDENCE = "Caroline: Tahoe was freezing at night, but the lake shore was gorgeous."
FILLER = [
    "Caroline: Camping sounds great, I have never tried it.",
    "Melanie: Pottery class was fun, I made a bowl.",
] + [f"Caroline: I painted picture number {n} of the sunset for my gallery wall."
     for n in range(30)]


def _memory(tier: str = "archival") -> HierarchicalMemory:
    """The texts in archival, or in the conversation log."""
    memory = HierarchicalMemory(None, embedder=HashingEmbedder())
    with memory.interaction() as turn:
        for text in [FIRST, *FILLER, EVIDENCE]:
            if tier == "archival":
                memory.archival_insert(text)
            else:
                memory.recall.append("user", text, turn)
    return memory


def test_the_second_round_finds_evidence_sharing_only_an_entity_with_the_first_hit() -> None:
    with _memory() as memory:
        plain = [h.text for h in memory.archival_search(QUESTION, k=5).hits]
        hopped = [h.text for h in memory.archival_search(QUESTION, k=5, hop=HopSettings()).hits]
        assert EVIDENCE not in plain
        assert EVIDENCE in hopped
        # the first round's best hit keeps its place
        assert plain[0] == hopped[0] == FIRST
        across = [h.text for h in memory.query(QUESTION, k=5, touch=False, hop=HopSettings())]
        assert EVIDENCE in across
        assert EVIDENCE not in [h.text for h in memory.query(QUESTION, k=5, touch=False)]
    # the same in the conversation log
    with _memory("recall") as memory:
        recall = [h.text for h in memory.recall_search(QUESTION, k=5, hop=HopSettings()).hits]
        assert EVIDENCE in recall and recall[0] == FIRST
        assert EVIDENCE not in [h.text for h in memory.recall_search(QUESTION, k=5).hits]


def test_a_second_round_ranks_the_first_page_only() -> None:
    with _memory() as memory, pytest.raises(InvalidInputError, match="page 1"):
        memory.archival_search(QUESTION, k=5, page=2, hop=HopSettings())


def test_expansion_prefers_names_and_numbers_and_skips_the_question_and_common_words() -> None:
    seeds = ["Jon: I flew to Rome in 2022 for the dance studio opening.",
             "Gina: The studio in Rome looked lovely, the dance floor too."]
    words = expansion_terms("How did Jon open the dance studio?", seeds, most=4,
                            common=lambda terms: {"lovely"} & set(terms))
    assert words[:2] == ["rome", "2022"]  # a name in both seeds, then a number
    assert not {"jon", "dance", "studio", "open", "lovely"} & set(words)
    assert len(words) == 4
    # a capitalised word that only starts a sentence is no name
    assert expansion_terms("Who?", ["Yesterday was fine. Yesterday again."], most=1) == [
        "yesterday"]
    assert "yesterday" not in expansion_terms(
        "Who?", ["Yesterday was fine. Bob came, Bob left."], most=1)


def _hit(row: int, score: float, tier: str = "archival") -> Hit:
    return Hit(text=f"row {row}", tier=tier, score=score, created_at=0.0, id=row)


def test_fusion_keeps_the_first_rounds_best_and_discounts_what_only_the_second_found() -> None:
    first = [_hit(i, 1.0 - i / 10) for i in range(6)]           # 1.0, 0.9, ... 0.5
    second = [_hit(100 + i, 1.0) for i in range(6)] + [_hit(5, 1.0)]
    fused = fuse_rounds(first, second, k=6, settings=HopSettings(keep=2, discount=0.5))
    ids = [h.id for h in fused]
    # the kept two stay first whatever the second round says
    assert ids[:2] == [0, 1]
    # row 5 was found twice (0.5 + 0.5) and climbs over rows 2..4 (0.8 .. 0.6)
    assert ids[2] == 5 and fused[2].score == pytest.approx(1.0)
    # a hit of the second round alone scores at most the discount: under the first's 0.6
    assert ids[3:] == [2, 3, 4]
    # a pinned hit of the first round's best k stays among the k, in its fused place
    settings = HopSettings(keep=1, discount=1.0)
    assert [h.id for h in fuse_rounds(first, second, k=3, settings=settings)] == [0, 5, 100]
    pinned = fuse_rounds(first, second, k=3, settings=settings, pinned=lambda h: h.id == 2)
    assert [h.id for h in pinned] == [0, 5, 2]
    # the inputs are left as they were
    assert [h.score for h in first] == pytest.approx([1.0, 0.9, 0.8, 0.7, 0.6, 0.5])


@pytest.mark.parametrize("field,value", [
    ("discount", 0), ("discount", 1.5), ("discount", float("nan")), ("discount", "0.5"),
    ("discount", True), ("seeds", 0), ("terms", 2.0), ("pool", None), ("keep", -1),
    ("keep", False),
])
def test_settings_are_checked(field: str, value: Any) -> None:
    with pytest.raises(InvalidInputError, match=rf"HopSettings\.{field} must be .*leave it "
                                                r"out for the default"):
        HopSettings(**{field: value})
