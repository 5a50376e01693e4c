"""The search indexes a backend gives over its tables: full-text (``LexicalIndex`` and
the ``LexicalRanking`` of one query) and dense (``VectorIndex``)."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Protocol

import numpy as np

from tiermem.memory.store.records import RowFilter

__all__ = ["LexicalIndex", "LexicalRanking", "VectorIndex"]


class LexicalRanking(Protocol):
    """One query's full-text matches in relevance order, read as deep as the caller needs.

    Scores are relevance (BM25 or the backend's ranking; higher is better), on a
    scale that fusion normalises by ``best``. With a window (``LexicalIndex.rank``)
    only the newest ``window`` matches are ranked and ``exact`` is False when more
    matched; ``total`` then counts the ones ranked.
    """

    #: Whether ``total`` counts every match (False: a window cut older ones off).
    exact: bool
    #: The matches handed out so far, by row id, best first.
    found: dict[int, float]
    #: The best score of all matches.
    best: float
    #: The last score handed out.
    cut: float

    @property
    def truncated(self) -> bool:
        """Whether matches remain below the ones handed out."""
        ...

    def top(self, depth: int) -> dict[int, float]:
        """The best ``depth`` matches (all if fewer), best first."""
        ...

    def scores_of(self, ids: Sequence[int]) -> dict[int, float]:
        """Scores of those ``ids``, not yet handed out, that match."""
        ...

    def everything(self) -> dict[int, float]:
        """Every match ranked (a window's worth at most), best first."""
        ...

    def total(self) -> int:
        """How many matches were ranked: every one, unless ``exact`` is False."""
        ...

    def close(self) -> None:
        """Let go of what the ranking holds (a cursor, a read transaction): until then its
        reads may all see the state it began with, so close it once ranked, before the rows
        ranked are read or anything is written."""
        ...


class LexicalIndex(Protocol):
    """Full-text search over one table (facts, passages or messages).

    ``terms`` are a query's content words (memory.search.lexical.query_terms: lowercased,
    stopwords out, symbols as their stand-in words); the backend quotes them and
    applies its own stemming. The indexed text of a row is
    ``memory.text.symbols.indexed_text`` of its text.
    """

    def rank(self, terms: Sequence[str], filt: RowFilter,
             window: int | None = None) -> LexicalRanking:
        """The rows matching any of ``terms`` and passing ``filt``, in relevance order;
        with ``window``, only the newest ``window`` matches are ranked."""
        ...

    def scores(self, terms: Sequence[str], every_term: bool = False,
               among: Collection[int] | None = None) -> dict[int, float]:
        """Every row matching any (or, with ``every_term``, every) term, with its score;
        with ``among``, only those of these rows (core's, out of every fact). The others
        are not scored, which is most of the cost (the matches are still walked)."""
        ...

    def common_terms(self, terms: Sequence[str], rows: int) -> set[str]:
        """Those ``terms`` found in more than half of the table's ``rows`` rows."""
        ...


class VectorIndex(Protocol):
    """Dense search over one table's stored vectors, by row id (inner product).

    With an exact index (``vector_index=exact``, and SQLite's ``auto`` below its
    size) every answer is exact. With an approximate one (``hnsw``, or ``auto``
    past the size; memory.store.vector_choice) ``search`` and ``nearest`` may
    miss near rows, and ``nearest``'s bound may be exceeded by a row left out;
    the similarities they return are still the rows' true ones. ``above`` and
    ``similarities`` are exact either way, so counts built on them are too.
    """

    def __len__(self) -> int:
        """How many rows have a vector."""
        ...

    @property
    def approximate(self) -> bool:
        """Whether ``search`` and ``nearest`` go through an approximate index now."""
        ...

    def ids(self) -> np.ndarray:
        """The ids of the rows with a vector (int64, any order)."""
        ...

    def add(self, ids: np.ndarray, vectors: np.ndarray) -> None:
        """These rows were stored with these vectors in the current transaction."""
        ...

    def remove(self, ids: np.ndarray) -> None:
        """These rows lost their vectors (or were deleted) in the current transaction."""
        ...

    def search(self, query: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """The ``k`` nearest (ids, similarities), best first (approximately, through an
        approximate index)."""
        ...

    def nearest(self, query: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray, float]:
        """About the ``k`` nearest rows with their exact similarities, best first, and a
        similarity that no row left out exceeds (-inf when none is left out).

        The bound is exact with an exact index; through an approximate one it is the
        similarity of the nearest row found beyond the ``k``, which a row the index
        did not find may exceed."""
        ...

    def above(self, query: np.ndarray, threshold: float) -> tuple[np.ndarray, np.ndarray]:
        """Every (id, similarity) with similarity >= ``threshold``, best first."""
        ...

    def similarities(self, ids: Sequence[int], query: np.ndarray) -> dict[int, float]:
        """The similarity of each of ``ids`` that has a vector."""
        ...

    def rebuild(self) -> None:
        """Make the index match the stored vectors again (after rows were written directly)."""
        ...

    def save(self) -> None:
        """Persist what a later open can reuse (nothing, for an index that is the table)."""
        ...

    def differences(self, limit: int = 5) -> list[str]:
        """How the index differs from the stored vectors; empty when it matches them."""
        ...
