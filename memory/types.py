"""Plain data records shared by the tiers: facts, search hits and result pages."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

Durability = Literal["durable", "short-lived"]
Tier = Literal["core", "recall", "archival"]
DURABILITIES: tuple[str, ...] = ("durable", "short-lived")


@dataclass
class Fact:
    """One fact of core memory (or one that core evicted to archival).

    ``created_at`` is wall-clock (Unix seconds). ``created_tick`` and
    ``last_access`` are on the memory's clock: the interaction count by
    default, or Unix seconds with ``clock="wall"``; the eviction score uses
    these.
    """

    id: int
    text: str
    durability: str
    created_at: float
    created_tick: float
    last_access: float
    access_count: int
    source: str
    tokens: int
    tier: str = "core"
    evicted_at: float | None = None
    passage_id: int | None = None
    evictions: int = 0
    promotions: int = 0
    cycles: int = 0
    hits_since_eviction: int = 0
    evicted_tick: float | None = None
    entered_core_seq: int = 0
    last_counted_tick: float = -1.0
    #: The recall message the fact was learned from (erasing it erases the fact), if any.
    source_message_id: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Hit:
    """One search result, tagged with the tier it came from.

    ``created_at`` is when the item was stored (not when it was searched).
    ``was_in_core`` and ``evicted_at`` are meaningful for archival hits;
    ``role`` and ``turn`` for recall hits; ``fact_id`` links a core fact, or
    an archival passage that a core fact was evicted into. ``relevance`` (BM25
    on the query's words, 0 without a match) and ``similarity`` (cosine to the
    query, None when not a match in meaning) are what ``score`` was fused from.
    """

    text: str
    tier: str
    score: float
    created_at: float
    id: int
    was_in_core: bool = False
    evicted_at: float | None = None
    role: str | None = None
    turn: int | None = None
    fact_id: int | None = None
    durability: str | None = None
    tags: list[str] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)
    relevance: float = 0.0
    similarity: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class SearchResult:
    """One page of results plus the real number of matches across all pages.

    ``total_exact`` is False when ``total`` is a lower bound: more matched
    than were ranked (recall ranks a window of the newest matches), and
    ``pages`` counts the pages of those ranked. ``unchecked`` is True when a
    privacy policy's recall layer stopped checking matches one past the page
    asked: ``total`` counts the shown ones up to there, and later pages may
    hold more (memory.privacy.recall.filtered_page).
    """

    hits: list[Hit]
    total: int
    page: int
    page_size: int
    total_exact: bool = True
    unchecked: bool = False

    @property
    def pages(self) -> int:
        return max(1, -(-self.total // self.page_size)) if self.page_size else 1

    def __len__(self) -> int:
        return len(self.hits)

    def __iter__(self) -> Iterator[Hit]:
        return iter(self.hits)
