"""The vectors of any embedder, checked before tiermem stores or searches with them.

An embedder is the one part of the memory a user writes themselves, and the
``Embedder`` protocol's promises (``(n, dim)`` rows, unit length) are easy to break:
a server that drops a row, a model of another size, a vector of NaNs for an odd
input. Unchecked, a wrong count fails deep in a transaction with a ``zip`` or index
error, a NaN row is stored and never matches again, and a row of length 300 outranks
every true match. So every call goes through ``CheckedEmbedder``: a wrong shape or a
value that is not finite raises ``EmbedderOutputError`` (naming the embedder and what
it returned) before anything is stored, and rows are brought to unit length.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tiermem.memory.embed.embeddings import Embedder, embed_queries, normalize_rows
from tiermem.memory.errors import EmbedderOutputError

__all__ = ["CheckedEmbedder", "checked"]

#: How far from 1 a row's length may be before it is scaled (float32 rounding is ~1e-7).
_UNIT_SLACK = 1e-4


class CheckedEmbedder:
    """``inner``'s vectors, checked and of unit length; its other attributes as they are."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.id = inner.id
        self.dim = inner.dim
        self.min_similarity = inner.min_similarity

    def __getattr__(self, name: str) -> Any:
        # The optional calibrations (strong_similarity, near_similarity) and anything
        # else the inner embedder has; "inner" itself is missing only while unpickling.
        if name == "inner":
            raise AttributeError(name)
        return getattr(self.inner, name)

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return self._rows(self.inner.embed_documents(texts), len(texts), "embed_documents")

    def embed_query(self, text: str) -> np.ndarray:
        return self._rows(self.inner.embed_query(text), None, "embed_query")

    def embed_queries(self, texts: Sequence[str]) -> list[np.ndarray]:
        vectors = embed_queries(self.inner, texts)
        if len(vectors) != len(texts):
            raise self._error("embed_queries", f"{len(vectors)} vectors for {len(texts)} texts")
        return [self._rows(v, None, "embed_queries") for v in vectors]

    def _rows(self, value: Any, count: int | None, call: str) -> np.ndarray:
        """``value`` as float32 unit rows: ``(count, dim)``, or ``(dim,)`` when count is None."""
        try:
            matrix = np.asarray(value, dtype=np.float32)
        except (TypeError, ValueError) as exc:
            raise self._error(call, f"{type(value).__name__}, not numbers ({exc})") from None
        dim = self.dim
        wanted = (dim,) if count is None else (count, dim)
        if matrix.shape != wanted:
            raise self._error(call, f"an array of shape {matrix.shape} where {wanted} was due")
        if not np.isfinite(matrix).all():
            raise self._error(call, "values that are not finite numbers (NaN or infinity)")
        rows = matrix.reshape(-1, dim)
        lengths = np.linalg.norm(rows, axis=1)
        if np.all((np.abs(lengths - 1.0) <= _UNIT_SLACK) | (lengths == 0)):
            return matrix
        return normalize_rows(rows).reshape(wanted)

    def _error(self, call: str, what: str) -> EmbedderOutputError:
        return EmbedderOutputError(
            f"the embedder {self.inner.id!r} (dim {self.inner.dim}) returned {what} from "
            f"{call}; nothing was stored. Fix the embedder: it must return float rows of "
            f"its dim, one per text")


def checked(embedder: Embedder) -> CheckedEmbedder:
    """``embedder`` behind a ``CheckedEmbedder`` (once: a checked one is returned as is)."""
    return embedder if isinstance(embedder, CheckedEmbedder) else CheckedEmbedder(embedder)
