"""What the perf run stores: Zipf text, model-free vectors, and the archival corpus.

The vocabulary and its Zipf law are memory_bench's; ``BagEmbedder`` stands
in for a sentence model (its docstring says how its vectors resemble one's).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from tiermem.bench.memory_bench import WORDS
from tiermem.bench.turn_bench import TOPICS
from tiermem.memory.embed.embeddings import normalize_rows
from tiermem.memory.tiers.archival import NewPassage

DIM = 384
_CUM = np.cumsum(1.0 / np.arange(1, len(WORDS) + 1))
_WORD_ARRAY = np.asarray(WORDS, dtype=object)


def zipf_indices(rows: int, words: int, seed: int) -> np.ndarray:
    """Word ranks (0 = most frequent) drawn from memory_bench's Zipf law, ``rows x words``."""
    draws = np.random.default_rng(seed).random((rows, words)) * _CUM[-1]
    return np.minimum(np.searchsorted(_CUM, draws, side="right"), len(WORDS) - 1)


def texts_of(indices: np.ndarray) -> list[str]:
    """The texts spelled by rows of word ranks."""
    return [" ".join(row) for row in _WORD_ARRAY[indices].tolist()]


class BagEmbedder:
    """Deterministic text vectors shaped like a sentence model's, with no model to run.

    A text's vector is the normalised sum of random unit word vectors,
    weighted by ln(1 + Zipf rank) as a stand-in for idf, plus one direction
    shared by every text. Texts that share words are close, and the shared
    direction gives unrelated texts a baseline cosine of about 0.2 (MiniLM:
    0.35 between LoCoMo turns), so a query clears the 0.3 match threshold with
    a few percent of the rows, as with a real model, instead of with none, as
    with independent random vectors (which would leave hybrid search nothing
    to fuse).
    """

    id = "bench-bag-384"
    dim = DIM
    min_similarity = 0.3
    _SHARED = 0.5

    def __init__(self, seed: int = 7) -> None:
        rng = np.random.default_rng(seed)
        self._vectors = normalize_rows(rng.standard_normal((len(WORDS), DIM), dtype=np.float32))
        self._weights = np.log1p(np.arange(1, len(WORDS) + 1)).astype(np.float32)
        shared = rng.standard_normal(DIM).astype(np.float32)
        self._shared = shared / np.linalg.norm(shared)
        self._rank = {w: i for i, w in enumerate(WORDS)}
        self._unknown: dict[str, np.ndarray] = {}

    def of_indices(self, indices: np.ndarray) -> np.ndarray:
        """Vectors of texts given as word ranks (``rows x words``), in chunks to bound memory."""
        out = np.empty((len(indices), DIM), dtype=np.float32)
        for start in range(0, len(indices), 4096):
            chunk = indices[start : start + 4096]
            bags = np.einsum("rw,rwd->rd", self._weights[chunk], self._vectors[chunk])
            out[start : start + 4096] = self._finish(bags)
        return out

    def _finish(self, bags: np.ndarray) -> np.ndarray:
        return normalize_rows(normalize_rows(bags) + self._SHARED * self._shared)

    def _word(self, word: str) -> tuple[np.ndarray, float]:
        rank = self._rank.get(word)
        if rank is not None:
            return self._vectors[rank], float(self._weights[rank])
        vector = self._unknown.get(word)
        if vector is None:
            seed = int.from_bytes(hashlib.blake2b(word.encode(), digest_size=8).digest(), "little")
            vector = np.random.default_rng(seed).standard_normal(DIM).astype(np.float32)
            vector /= np.linalg.norm(vector)
            self._unknown[word] = vector
        return vector, float(self._weights[-1])

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        bags = np.zeros((len(texts), DIM), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in text.lower().split():
                vector, weight = self._word(word)
                bags[row] += weight * vector
        return self._finish(bags) if len(texts) else bags

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed_documents([text])[0]


class Precomputed:
    """An embedder that returns vectors computed beforehand, so ingest excludes embedding."""

    def __init__(self, base: BagEmbedder, texts: Sequence[str] = (),
                 vectors: np.ndarray | None = None) -> None:
        self.base, self.id, self.dim = base, base.id, base.dim
        self.min_similarity = base.min_similarity
        self.load(texts, np.zeros((0, DIM), np.float32) if vectors is None else vectors)

    def load(self, texts: Sequence[str], vectors: np.ndarray) -> None:
        """Replace the vectors on hand (one batch at a time keeps a 1M load in memory)."""
        self._row = {t: i for i, t in enumerate(texts)}
        self._vectors = vectors

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        rows = [self._row.get(t) for t in texts]
        if any(r is None for r in rows):
            return self.base.embed_documents(texts)
        return self._vectors[np.asarray(rows, dtype=np.int64)]

    def embed_query(self, text: str) -> np.ndarray:
        return self.base.embed_query(text)


@dataclass
class Corpus:
    """Archival passages with their vectors, tags and metadata."""

    texts: list[str]
    vectors: np.ndarray
    tags: list[str]

    def passages(self, start: int, stop: int) -> list[NewPassage]:
        return [NewPassage(text=self.texts[i], tags=[self.tags[i]],
                           metadata={"source": "bench", "n": i}, source="bench")
                for i in range(start, stop)]


def make_corpus(size: int, bag: BagEmbedder, seed: int) -> Corpus:
    """``size`` passages of 25 Zipf words, their vectors, and a tag each."""
    indices = zipf_indices(size, 25, seed)
    tags = [TOPICS[i % len(TOPICS)] for i in range(size)]
    return Corpus(texts_of(indices), bag.of_indices(indices), tags)
