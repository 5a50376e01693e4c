"""Performance benchmark: tiermem against ChromaDB and against this machine's own limits.

Run: ``python cli.py benchmark --perf [--sizes 10000,100000] [--json PATH] [--quick]
[--recall-dense]``

Six comparisons, each measured in one process. Where two systems or two
configurations are compared, their operations alternate (A B A B ...), with
the order rotated, so background load on a shared machine hits both alike.
Figures are medians and p99 over every repetition; ratios are of medians.

1. ``archival``: ingest (text + vector + metadata, committed per batch) and
   top-10 search, tiermem against ChromaDB's ``PersistentClient`` given the
   same precomputed vectors; tiermem's hybrid search (FTS5 + dense) as well.
2. ``dense_floor``: tiermem's exact dense search (an 8-bit scan with float32
   rescoring, memory/prefilter.py) and a plain float32 FAISS scan, against
   the time needed to read every float32 vector once at the read bandwidth
   measured in the same run, and against reading the 8-bit copy once.
3. ``recall``: append throughput (per turn, row by row, and bulk) and
   full-text search by query class, from rare words to one in most messages;
   with ``--recall-dense``, again with a vector per message (``recall_dense``).
4. ``eviction``: ``add_fact`` with an eviction, at three core sizes.
5. ``step``: the agent runtime's own time per turn, model and embedding time
   taken out, with a full store against an empty one.
6. ``cold_start``: ``cli.py chat --offline`` until it exits on ``/exit``, and
   opening a home with a saved FAISS index against rebuilding it.

Every size derives from ``--sizes`` (archival passages, default 10k and
100k): the recall stores hold 10x those numbers of messages, the cores
1/100, 1/10 and all of the largest size, and the agent's store the largest
archival and recall sizes together.

No embedding model runs: ``BagEmbedder`` gives text-correlated vectors at no
cost, so both sides of a comparison get identical vectors and the figures are
those of the stores. Text comes from a Zipf-distributed vocabulary
(bench/memory_bench.py), so full-text posting lists have realistic lengths.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import itertools
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from bench.memory_bench import COMMON_WORD, WORDS, memory_bandwidth_gbs
from bench.timing import _eviction_samples, _filled_core, _stats, _timed
from bench.turn_bench import TOPICS, CyclingScript, TimedEmbedder, TimedModel
from memory.archival import NewPassage
from memory.embeddings import normalize_rows
from memory.recall import NewMessage

DEFAULT_SIZES = (10_000, 100_000)
DIM = 384
ROOT = Path(__file__).resolve().parents[1]
CHROMA_MISSING = ("chromadb is not installed; install the bench extra "
                  "(pip install -e '.[bench]') to compare against it")
# Performance targets (name: limit), each judged at the largest size measured.
TARGETS = {
    "archival_ingest_vs_chroma": 10.0,  # tiermem rate / chroma rate, at least
    "archival_search_vs_chroma": 1.0,  # tiermem p50 / chroma p50, at most
    "exact_over_floor": 1.5,  # exact dense p50 / bandwidth floor, at most
    "recall_search_p99_ms": 50.0,  # every query class, at most
    "eviction_ratio": 2.0,  # p50 at the largest core / p50 at the smallest, at most
    "step_overhead_p50_ms": 5.0,  # at most
    "cold_start_s": 2.0,  # at most
}


@dataclass(frozen=True)
class PerfOptions:
    """What to measure and how many times."""

    sizes: tuple[int, ...] = DEFAULT_SIZES
    quick: bool = False
    seed: int = 0
    chroma: bool = True
    recall_dense: bool = False

    @property
    def recall_sizes(self) -> tuple[int, ...]:
        return tuple(sorted({10 * s for s in self.sizes}))

    @property
    def core_sizes(self) -> tuple[int, ...]:
        top = max(self.sizes)
        return tuple(sorted({max(1, top // 100), max(1, top // 10), top}))

    @property
    def queries(self) -> int:
        return 40 if self.quick else 200

    @property
    def passes(self) -> int:
        return 1 if self.quick else 3

    @property
    def turns(self) -> int:
        return 16 if self.quick else 200

    @property
    def cold_runs(self) -> int:
        return 1 if self.quick else 5


# -- text and vectors ----------------------------------------------------------------------
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


# -- timing --------------------------------------------------------------------------------
def alternate(ops: dict[str, Callable[[int], Any]], count: int) -> dict[str, list[float]]:
    """Run every op ``count`` times (op(i), i = 0..count-1), alternating between the ops.

    Which op goes first rotates each round, so neither always runs on a cache
    the other warmed.
    """
    names = list(ops)
    samples: dict[str, list[float]] = {name: [] for name in names}
    for i in range(count):
        shift = i % len(names)
        for name in names[shift:] + names[:shift]:
            start = time.perf_counter()
            ops[name](i)
            samples[name].append(time.perf_counter() - start)
    return samples


def _ratio(a: float, b: float) -> float:
    return a / b if b > 0 else float("inf")


def _p50_ms(samples: Sequence[float]) -> float:
    return 1000 * statistics.median(samples)


# -- 1 and 2: archival and the bandwidth floor ---------------------------------------------
def open_chroma(path: Path) -> Any:
    """A ChromaDB collection with telemetry off and no embedding function (nothing downloads)."""
    os.environ["ANONYMIZED_TELEMETRY"] = "False"
    import chromadb
    from chromadb.config import Settings

    client = chromadb.PersistentClient(path=str(path),
                                       settings=Settings(anonymized_telemetry=False))
    return client.create_collection("passages", embedding_function=None,
                                    metadata={"hnsw:space": "ip"})


def chroma_available() -> bool:
    """Whether the bench extra (ChromaDB) is installed."""
    try:
        import chromadb  # noqa: F401
    except ImportError:
        return False
    return True


def measure_archival(size: int, corpus: Corpus, bag: BagEmbedder, opts: PerfOptions,
                     work: Path) -> dict[str, Any]:
    """Ingest ``corpus`` into tiermem and ChromaDB batch by batch, then search both.

    Both sides get the same texts, vectors and metadata, and every batch is
    committed before the next. Search compares like with like: tiermem's
    exact top 10 with its rows read back, against ChromaDB's query, which
    returns documents, metadata and distances by default.
    """
    from memory import HierarchicalMemory

    embedder = Precomputed(bag, corpus.texts, corpus.vectors)
    memory = HierarchicalMemory(work / f"archival-{size}", embedder=embedder, recall_dense=False)
    use_chroma = opts.chroma and chroma_available()
    collection = open_chroma(work / f"chroma-{size}") if use_chroma else None
    batch = min(1000, size)
    starts = list(range(0, size, batch))

    def chroma_add(b: int) -> None:
        assert collection is not None
        lo, hi = starts[b], min(starts[b] + batch, size)
        collection.add(ids=[str(i) for i in range(lo, hi)], embeddings=corpus.vectors[lo:hi],
                       documents=corpus.texts[lo:hi],
                       metadatas=[{"source": "bench", "n": i, "tag": corpus.tags[i]}
                                  for i in range(lo, hi)])

    rowids: list[int] = []  # tiermem's id of each corpus passage; chroma's id is the index
    ops: dict[str, Callable[[int], Any]] = {"tiermem": lambda b: rowids.extend(
        memory.archival.insert_many(corpus.passages(starts[b], min(starts[b] + batch, size))))}
    if collection is not None:
        ops["chroma"] = chroma_add
    ingest = alternate(ops, len(starts))
    result: dict[str, Any] = {"passages": size, "batch": batch, "tiermem": {}}
    result["tiermem"]["ingest_per_s"] = size / sum(ingest["tiermem"])

    query_idx = zipf_indices(opts.queries, 3, opts.seed + 2 * size + 1)
    queries = texts_of(query_idx)
    qvecs = np.stack([bag.embed_query(q) for q in queries])
    vectors = memory.archival.vectors
    n = len(queries)

    def exact(i: int) -> Any:
        return vectors.search(qvecs[i % n], 10)

    def float_scan(i: int) -> Any:
        return vectors.index.search(qvecs[i % n][None, :], 10)

    def dense(i: int) -> Any:
        ids, _ = vectors.search(qvecs[i % n], 10)
        return memory.archival.get_many(ids.tolist())

    def hybrid(i: int) -> Any:
        return memory.archival.search(queries[i % n], k=10, query_vector=qvecs[i % n])

    search_ops: dict[str, Callable[[int], Any]] = {"exact": exact, "float_scan": float_scan,
                                                   "dense": dense}
    if collection is not None:
        search_ops["chroma"] = lambda i: collection.query(
            query_embeddings=qvecs[i % n : i % n + 1], n_results=10)
    for op in (*search_ops.values(), hybrid):  # warm caches and lazy initialisation once
        op(0)
    search = alternate(search_ops, n * opts.passes)
    # Hybrid search is slower, so it gets one pass, alternating with chroma again.
    hybrid_ops = {"hybrid": hybrid, **({"chroma": search_ops["chroma"]} if collection else {})}
    mixed = alternate(hybrid_ops, n)
    result["tiermem"]["exact_faiss"] = _stats(search["exact"])
    result["tiermem"]["float_scan"] = _stats(search["float_scan"])
    result["tiermem"]["prefilter"] = vectors.prefilter is not None
    result["tiermem"]["recall_at_10"] = _recall_vs_float_scan(vectors, qvecs)
    result["tiermem"]["dense_top10"] = _stats(search["dense"])
    result["tiermem"]["hybrid_top10"] = _stats(mixed["hybrid"])
    result["tiermem"]["dense_matches_p50"] = statistics.median(
        len(vectors.above(q, bag.min_similarity)[0]) for q in qvecs[: min(n, 50)])
    if collection is not None:
        result["chroma"] = {"ingest_per_s": size / sum(ingest["chroma"]),
                            "query_top10": _stats(search["chroma"]),
                            "recall_at_10": _chroma_recall(collection, vectors, qvecs[:50],
                                                           rowids)}
        result["ratios"] = {
            "ingest": result["tiermem"]["ingest_per_s"] / result["chroma"]["ingest_per_s"],
            "dense_p50": _ratio(_p50_ms(search["dense"]), _p50_ms(search["chroma"])),
            "hybrid_p50": _ratio(_p50_ms(mixed["hybrid"]), _p50_ms(mixed["chroma"])),
        }
    else:
        result["chroma"] = {"skipped": CHROMA_MISSING if opts.chroma else "disabled"}
    memory.close()
    return result


def _recall_vs_float_scan(vectors: Any, qvecs: np.ndarray) -> float:
    """Share of a plain float32 scan's top 10 that tiermem's search returns (1.0 if exact)."""
    found = sum(len(set(vectors.search(q, 10)[0].tolist())
                    & set(vectors.index.search(q[None, :], 10)[1][0].tolist())) for q in qvecs)
    return found / (10 * len(qvecs))


def _chroma_recall(collection: Any, vectors: Any, qvecs: np.ndarray,
                   rowids: Sequence[int]) -> float:
    """Share of the exact top 10 that ChromaDB's HNSW returns (it is approximate)."""
    found = 0
    for q in qvecs:
        exact = {int(i) for i in vectors.search(q, 10)[0]}
        got = collection.query(query_embeddings=q[None, :], n_results=10, include=[])
        found += len(exact & {rowids[int(i)] for i in got["ids"][0]})
    return found / (10 * len(qvecs))


def dense_floor(archival: dict[str, Any], bandwidth_gbs: float) -> dict[str, Any]:
    """Exact dense search against the time to read every vector once (N x dim x 4 B / bandwidth).

    With the prefilter, search reads one byte per dimension instead of four,
    so it is also set against that smaller floor (N x dim x 1 B / bandwidth).
    """
    floor_ms = archival["passages"] * DIM * 4 / (bandwidth_gbs * 1e9) * 1000
    tiermem = archival["tiermem"]
    exact = tiermem["exact_faiss"]["p50_ms"]
    out = {"passages": archival["passages"], "floor_ms": floor_ms, "exact_p50_ms": exact,
           "exact_over_floor": exact / floor_ms,
           "float_scan_p50_ms": tiermem["float_scan"]["p50_ms"],
           "float_scan_over_floor": tiermem["float_scan"]["p50_ms"] / floor_ms,
           "prefilter": tiermem["prefilter"]}
    if tiermem["prefilter"]:
        out["byte_floor_ms"] = floor_ms / 4
        out["exact_over_byte_floor"] = exact / (floor_ms / 4)
    return out


# -- 3: recall -----------------------------------------------------------------------------
QUERY_CLASSES = ("rare", "medium", "frequent", "common", "common_rare")


def _messages(count: int, seed: int, turn: int = 0,
              vectors_into: Precomputed | None = None) -> list[NewMessage]:
    """Messages of 20 Zipf words; their vectors go into ``vectors_into`` if given."""
    indices = zipf_indices(count, 20, seed)
    texts = texts_of(indices)
    if vectors_into is not None:
        vectors_into.load(texts, vectors_into.base.of_indices(indices))
    return [NewMessage("user" if i % 2 == 0 else "assistant", t, turn + i // 2)
            for i, t in enumerate(texts)]


def _query_words(rng: np.random.Generator, stored: np.ndarray, lo: int, hi: int,
                 count: int) -> list[str]:
    """Words of Zipf rank in [lo, hi) that occur in ``stored`` (so every query matches)."""
    present = np.unique(stored[(stored >= lo) & (stored < hi)])
    return [WORDS[int(i)] for i in rng.choice(present, size=count)]


def recall_queries(rng: np.random.Generator, sample: np.ndarray, count: int
                   ) -> dict[str, list[str]]:
    """Queries per class; ``sample`` is word ranks of stored messages.

    rare: two words of rank 2000 and above; medium: one word of rank 100-300
    (about 1% of messages); frequent: rank 10-30 (5-15%); common: the most
    frequent word, in most messages (the slow case); common_rare: both.
    """
    rare = _query_words(rng, sample, 2000, len(WORDS), 2 * count)
    return {
        "rare": [f"{rare[2 * i]} {rare[2 * i + 1]}" for i in range(count)],
        "medium": _query_words(rng, sample, 100, 300, count),
        "frequent": _query_words(rng, sample, 10, 30, count),
        "common": [COMMON_WORD] * count,
        "common_rare": [f"{COMMON_WORD} {w}" for w in rare[:count]],
    }


def measure_recall(opts: PerfOptions, bag: BagEmbedder, work: Path,
                   dense: bool = False) -> list[dict[str, Any]]:
    """Grow one store through the recall sizes; measure appends and searches at each.

    ``dense`` stores a vector with every user and assistant message, as
    recall does by default, so searches fuse full text with dense matches;
    without it they are FTS5 only.
    """
    from memory import HierarchicalMemory

    out = []
    embedder = Precomputed(bag) if dense else None
    memory = HierarchicalMemory(work / ("recall-dense" if dense else "recall"),
                                embedder=embedder or bag, recall_dense=dense)
    rng = np.random.default_rng(opts.seed + 3)
    seeds = itertools.count(opts.seed + 1000)
    try:
        for size in opts.recall_sizes:
            row: dict[str, Any] = {"messages": size}
            row.update(_append_rates(memory, size, opts, next(seeds), embedder))
            loading, before = 0.0, len(memory.recall)
            while len(memory.recall) < size:
                batch = _messages(min(50_000, size - len(memory.recall)), next(seeds),
                                  vectors_into=embedder)
                loading += _timed(memory.recall.append_many, batch, bulk=True)
            if len(memory.recall) > before:
                row["load_per_s"] = (len(memory.recall) - before) / loading
            turn = memory.tick + 1
            texts = texts_of(zipf_indices(30 if opts.quick else 200, 20, next(seeds)))
            row["append_turn"] = _stats([_timed(memory.recall.append_many, [
                NewMessage("user", t, turn + i), NewMessage("assistant", t, turn + i)])
                for i, t in enumerate(texts)])
            # Query words are drawn from text made by the same law as the store's.
            sample = zipf_indices(min(size, 20_000), 20, next(seeds))
            queries = recall_queries(rng, sample, 10 if opts.quick else 50)
            row["search"] = _recall_search(memory, queries, opts.passes)
            out.append(row)
    finally:
        memory.close()
    return out


def _append_rates(memory: Any, size: int, opts: PerfOptions, seed: int,
                  embedder: Precomputed | None = None) -> dict[str, float]:
    """Batches appended with ``bulk=True`` and row by row through the trigger, alternating."""
    batch = max(2, min(5000, size // 20))
    rounds = 2 if opts.quick else 4
    if len(memory.recall) + 2 * rounds * batch > size:
        return {}
    pending = _messages(2 * rounds * batch, seed, vectors_into=embedder)
    samples = alternate({
        "bulk": lambda i: memory.recall.append_many(
            pending[2 * i * batch : (2 * i + 1) * batch], bulk=True),
        "trigger": lambda i: memory.recall.append_many(
            pending[(2 * i + 1) * batch : (2 * i + 2) * batch]),
    }, rounds)
    return {"append_bulk_per_s": batch / statistics.median(samples["bulk"]),
            "append_rows_per_s": batch / statistics.median(samples["trigger"])}


def _recall_search(memory: Any, queries: dict[str, list[str]], passes: int
                   ) -> dict[str, dict[str, float]]:
    """Every class's queries, alternating between classes, as conversation_search runs them."""
    from tools.memory_tools import PAGE_SIZE

    next_id = int(memory.store.execute("SELECT max(id) FROM messages").fetchone()[0]) + 1
    totals: dict[str, list[int]] = {c: [] for c in queries}
    exact: dict[str, list[bool]] = {c: [] for c in queries}

    def search(cls: str) -> Callable[[int], None]:
        def run(i: int) -> None:
            result = memory.recall.search(queries[cls][i % len(queries[cls])], k=PAGE_SIZE,
                                          roles=["user", "assistant"], before_id=next_id)
            totals[cls].append(result.total)
            exact[cls].append(result.total_exact)
        return run

    count = len(next(iter(queries.values()))) * passes
    samples = alternate({c: search(c) for c in queries}, count)
    # Past recall's window the total is a lower bound (only the newest matches are ranked).
    return {c: {**_stats(samples[c]), "matches_p50": float(statistics.median(totals[c])),
                "total_exact": all(exact[c])} for c in queries}


# -- 4: eviction ---------------------------------------------------------------------------
def measure_eviction(opts: PerfOptions) -> dict[str, Any]:
    """``add_fact`` with an eviction at each core size, the sizes alternating in blocks."""
    sizes = opts.core_sizes
    memories = {s: _filled_core(s, "freq_recency_durable", timed=False)[0] for s in sizes}
    try:
        samples, missing = _eviction_samples(memories, 4 if opts.quick else 15, 20, "perf")
    finally:
        for memory in memories.values():
            memory.close()
    out: dict[str, Any] = {"facts": {str(s): _stats(samples[s]) for s in sizes}}
    out["ratio_p50"] = _ratio(statistics.median(samples[sizes[-1]]),
                              statistics.median(samples[sizes[0]]))
    out["adds"] = sum(len(v) for v in samples.values())
    out["every_add_evicted"] = missing == 0  # else the figures are not eviction costs
    return out


# -- 5: agent step -------------------------------------------------------------------------
def measure_step(opts: PerfOptions, bag: BagEmbedder, corpus: Corpus, recall_home: Path,
                 work: Path) -> dict[str, Any]:
    """Turn overhead with the largest archival and recall stores, against an empty store."""
    from agent.loop import Agent
    from memory import HierarchicalMemory

    full = work / "step-full"
    shutil.copytree(recall_home, full, ignore=shutil.ignore_patterns("writer.lock"))
    embedder = TimedEmbedder(Precomputed(bag, corpus.texts, corpus.vectors))
    with HierarchicalMemory(full, embedder=embedder, recall_dense=False) as memory:
        for lo in range(0, len(corpus.texts), 1000):
            memory.archival.insert_many(corpus.passages(lo, min(lo + 1000, len(corpus.texts))))
        sizes = {"passages": len(memory.archival), "messages": len(memory.recall)}
    homes = {"full": full, "empty": work / "step-empty"}
    texts = [f"The {TOPICS[i % len(TOPICS)]} lead is {('Ann', 'Raj', 'Mo')[i % 3]}. Where is the"
             f" {TOPICS[(i * 7) % len(TOPICS)]} runbook?" for i in range(50)]
    overhead: dict[str, list[float]] = {name: [] for name in homes}
    blocks = 4
    per_block = max(1, opts.turns // blocks)
    for block in range(blocks):
        for name in (list(homes) if block % 2 == 0 else list(homes)[::-1]):
            with HierarchicalMemory(homes[name], embedder=embedder,
                                    recall_dense=False) as memory:
                model = TimedModel(CyclingScript())
                agent = Agent(memory, model)
                agent.step("warm up")  # first turn loads the context window
                for i in range(per_block):
                    model.seconds = embedder.seconds = 0.0
                    start = time.perf_counter()
                    agent.step(texts[(block * per_block + i) % len(texts)])
                    total = time.perf_counter() - start
                    overhead[name].append(total - model.seconds - embedder.seconds)
    return {**sizes, "turns": per_block * blocks,
            "overhead_full": _stats(overhead["full"]),
            "overhead_empty": _stats(overhead["empty"]),
            "ratio_p50": _ratio(statistics.median(overhead["full"]),
                                statistics.median(overhead["empty"]))}


# -- 6: cold start -------------------------------------------------------------------------
def measure_cold_start(opts: PerfOptions, bag: BagEmbedder, archival_home: Path,
                       work: Path) -> dict[str, Any]:
    """The offline chat from launch to exit, and opening a home: saved FAISS index vs rebuild.

    Without a TTY the chat reads ``/exit`` where it would draw its first
    prompt, so launch-to-exit bounds the time to that prompt; a bare
    interpreter runs alongside for scale.
    """
    from memory import HierarchicalMemory
    from memory.vector_index import remove_index_files

    env = {**os.environ, "TIERMEM_HOME": str(work / "cold-home"), "ANONYMIZED_TELEMETRY": "False"}
    chat = [sys.executable, str(ROOT / "cli.py"), "chat", "--offline"]
    bare = [sys.executable, "-c", "pass"]

    def run(command: list[str]) -> Callable[[int], None]:
        def go(_: int) -> None:
            subprocess.run(command, input="/exit\n", env=env, cwd=ROOT, text=True, check=True,
                           capture_output=True, timeout=120)
        return go

    first = _timed(run(chat), 0)  # creates the agent home
    starts = alternate({"chat": run(chat), "python": run(bare)}, opts.cold_runs)
    index = archival_home / "archival.faiss"

    def open_home(rebuild: bool) -> Callable[[int], None]:
        def go(_: int) -> None:
            if rebuild:
                remove_index_files(index)
            start = time.perf_counter()
            memory = HierarchicalMemory(archival_home, embedder=bag, recall_dense=False)
            elapsed = time.perf_counter() - start
            rebuilt = memory.archival.vectors.rebuilt_on_open
            memory.close()  # saves the index again, outside the timed part
            if rebuilt != rebuild:
                raise RuntimeError(f"expected rebuilt_on_open={rebuild}, got {rebuilt}")
            opened[rebuild].append(elapsed)
        return go

    opened: dict[bool, list[float]] = {False: [], True: []}
    alternate({"load": open_home(False), "rebuild": open_home(True)}, opts.cold_runs)
    with HierarchicalMemory(archival_home, embedder=bag, recall_dense=False) as memory:
        passages = len(memory.archival)
    return {
        "chat_first_run_ms": 1000 * first,
        "chat": _stats(starts["chat"]),
        "python_startup": _stats(starts["python"]),
        "open_home": {"passages": passages, "load_index": _stats(opened[False]),
                      "rebuild_index": _stats(opened[True]),
                      "rebuild_over_load": _ratio(statistics.median(opened[True]),
                                                  statistics.median(opened[False]))},
    }


# -- the run -------------------------------------------------------------------------------
def run_perf(opts: PerfOptions, work: Path | None = None,
             progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Measure the six comparisons; returns the report (see ``write_json``)."""
    say = progress or (lambda _: None)
    started = time.perf_counter()
    with _workdir(work) as tmp:
        bag = BagEmbedder(seed=opts.seed + 7)
        bandwidth = [memory_bandwidth_gbs(3)]
        report: dict[str, Any] = {"meta": _meta(opts), "archival": []}
        corpus = None
        for size in sorted(opts.sizes):
            say(f"archival: {size} passages, tiermem and chroma side by side")
            corpus = make_corpus(size, bag, opts.seed + size)
            report["archival"].append(measure_archival(size, corpus, bag, opts, tmp))
            bandwidth.append(memory_bandwidth_gbs(3))
        assert corpus is not None
        report["meta"]["bandwidth_gbs"] = max(bandwidth)
        report["dense_floor"] = [dense_floor(a, max(bandwidth)) for a in report["archival"]]
        say(f"recall: {', '.join(str(s) for s in opts.recall_sizes)} messages")
        report["recall"] = measure_recall(opts, bag, tmp)
        if opts.recall_dense:
            say("recall with a vector per message (the default), same sizes")
            report["recall_dense"] = measure_recall(opts, bag, tmp, dense=True)
        say(f"eviction: cores of {', '.join(str(s) for s in opts.core_sizes)} facts")
        report["eviction"] = measure_eviction(opts)
        say("agent step overhead")
        report["step"] = measure_step(opts, bag, corpus, tmp / "recall", tmp)
        say("cold start")
        report["cold_start"] = measure_cold_start(opts, bag, tmp / f"archival-{max(opts.sizes)}",
                                                  tmp)
    report["targets"] = targets(report)
    report["meta"]["seconds"] = time.perf_counter() - started
    return report


@contextlib.contextmanager
def _workdir(work: Path | None) -> Iterator[Path]:
    """``work`` if given (kept afterwards, for inspection), else a temporary directory."""
    if work is not None:
        work.mkdir(parents=True, exist_ok=True)
        yield work
        return
    with tempfile.TemporaryDirectory(prefix="tiermem-perf-") as tmp:
        yield Path(tmp)


def _meta(opts: PerfOptions) -> dict[str, Any]:
    return {"sizes": list(opts.sizes), "recall_sizes": list(opts.recall_sizes),
            "core_sizes": list(opts.core_sizes), "quick": opts.quick,
            "python": platform.python_version(), "cpus": os.cpu_count() or 1,
            "queries": opts.queries, "passes": opts.passes}


def targets(report: dict[str, Any]) -> list[dict[str, Any]]:
    """Each target with the figure it is judged on (at the largest size)."""
    out: list[dict[str, Any]] = []

    def add(name: str, measured: float, at_most: bool, where: str) -> None:
        limit = TARGETS[name]
        met = measured <= limit if at_most else measured >= limit
        out.append({"name": name, "measured": measured, "limit": limit,
                    "kind": "at most" if at_most else "at least", "where": where, "met": met})

    top = report["archival"][-1]
    if "ratios" in top:
        add("archival_ingest_vs_chroma", top["ratios"]["ingest"], False,
            f"{top['passages']} passages")
        add("archival_search_vs_chroma", top["ratios"]["dense_p50"], True,
            f"{top['passages']} passages, dense top 10 with rows")
    floor = report["dense_floor"][-1]
    add("exact_over_floor", floor["exact_over_floor"], True, f"{floor['passages']} passages")
    recall = report["recall"][-1]
    worst = max(recall["search"], key=lambda c: recall["search"][c]["p99_ms"])
    add("recall_search_p99_ms", recall["search"][worst]["p99_ms"], True,
        f"{recall['messages']} messages, worst class: {worst}")
    add("eviction_ratio", report["eviction"]["ratio_p50"], True,
        f"{report['meta']['core_sizes'][-1]} vs {report['meta']['core_sizes'][0]} facts")
    add("step_overhead_p50_ms", report["step"]["overhead_full"]["p50_ms"], True,
        f"{report['step']['passages']} passages, {report['step']['messages']} messages")
    add("cold_start_s", report["cold_start"]["chat"]["p50_ms"] / 1000, True,
        "cli.py chat --offline to exit on /exit")
    return out


# -- output --------------------------------------------------------------------------------
def _ms(stats: dict[str, Any]) -> str:
    return f"{stats['p50_ms']:.2f} / {stats['p99_ms']:.2f} ms"


def _rate(per_s: float) -> str:
    return f"{per_s:,.0f}/s"


def table_rows(report: dict[str, Any]) -> list[tuple[str, str, str, str, str]]:
    """(measure, size, tiermem, baseline, ratio) rows; times are p50 / p99."""
    rows: list[tuple[str, str, str, str, str]] = []
    for a in report["archival"]:
        size, t, c = f"{a['passages']:,}", a["tiermem"], a["chroma"]
        has = "skipped" not in c
        rows.append((f"1 archival ingest (committed, batches of {a['batch']})", size,
                     _rate(t["ingest_per_s"]), _rate(c["ingest_per_s"]) if has else "-",
                     f"{a['ratios']['ingest']:.1f}x faster" if has else "-"))
        rows.append(("1 search top 10 with rows: dense exact vs chroma HNSW", size,
                     _ms(t["dense_top10"]), _ms(c["query_top10"]) if has else "-",
                     f"{a['ratios']['dense_p50']:.2f}x the time" if has else "-"))
        rows.append((f"1 hybrid search (FTS5 + dense, {t['dense_matches_p50']:.0f} dense "
                     "matches)", size, _ms(t["hybrid_top10"]), _ms(c["query_top10"]) if has
                     else "-", f"{a['ratios']['hybrid_p50']:.2f}x the time" if has else "-"))
        if has:
            rows.append(("1 recall@10 against a float32 scan's top 10", size,
                         f"{t['recall_at_10']:.2f}", f"{c['recall_at_10']:.2f}", "-"))
    for f in report["dense_floor"]:
        bandwidth = f"{report['meta']['bandwidth_gbs']:.1f} GB/s"
        how = "8-bit scan + rescoring" if f["prefilter"] else "float32 scan"
        rows.append((f"2 exact dense ({how}) vs float32 read floor at {bandwidth}",
                     f"{f['passages']:,}", f"{f['exact_p50_ms']:.2f} ms",
                     f"{f['floor_ms']:.2f} ms", f"{f['exact_over_floor']:.2f}x the floor"))
        if f["prefilter"]:
            rows.append(("2 same, vs the 8-bit copy's read floor", f"{f['passages']:,}",
                         f"{f['exact_p50_ms']:.2f} ms", f"{f['byte_floor_ms']:.2f} ms",
                         f"{f['exact_over_byte_floor']:.2f}x the floor"))
        rows.append(("2 plain float32 FAISS scan vs float32 read floor", f"{f['passages']:,}",
                     f"{f['float_scan_p50_ms']:.2f} ms", f"{f['floor_ms']:.2f} ms",
                     f"{f['float_scan_over_floor']:.2f}x the floor"))
    for r, how in [*((r, "") for r in report["recall"]),
                   *((r, " with vectors") for r in report.get("recall_dense", []))]:
        size = f"{r['messages']:,}"
        rows.append((f"3 recall{how} append, one turn (2 messages, committed)", size,
                     _ms(r["append_turn"]), "-", "-"))
        if "append_bulk_per_s" in r:
            rows.append((f"3 recall{how} append, batches: bulk=True vs row trigger", size,
                         _rate(r["append_bulk_per_s"]), _rate(r["append_rows_per_s"]),
                         f"{r['append_bulk_per_s'] / r['append_rows_per_s']:.1f}x faster"))
        for cls, s in r["search"].items():
            more = "" if s["total_exact"] else "at least "
            rows.append((f"3 recall{how} search: {cls} ({more}{s['matches_p50']:,.0f} matches)",
                         size, _ms(s), "-", "-"))
    e = report["eviction"]
    sizes = list(e["facts"])
    for s in sizes:
        rows.append(("4 add_fact with eviction", f"{int(s):,} facts", _ms(e["facts"][s]), "-",
                     f"{e['facts'][s]['p50_ms'] / e['facts'][sizes[0]]['p50_ms']:.2f}x"
                     f" vs {int(sizes[0]):,}"))
    st = report["step"]
    rows.append((f"5 step overhead: {st['passages']:,} passages + {st['messages']:,} messages"
                 " vs empty", "", _ms(st["overhead_full"]), _ms(st["overhead_empty"]),
                 f"{st['ratio_p50']:.2f}x"))
    cs = report["cold_start"]
    rows.append(("6 chat --offline to exit, vs bare python", "",
                 _ms(cs["chat"]), _ms(cs["python_startup"]),
                 f"first run {cs['chat_first_run_ms']:.0f} ms"))
    oh = cs["open_home"]
    rows.append(("6 open home: FAISS load vs rebuild", f"{oh['passages']:,}",
                 _ms(oh["load_index"]), _ms(oh["rebuild_index"]),
                 f"rebuild {oh['rebuild_over_load']:.1f}x"))
    return rows


def print_report(console: Any, report: dict[str, Any]) -> None:
    from rich.table import Table

    meta = report["meta"]
    table = Table(title=f"tiermem performance ({meta['cpus']} cpus, {meta['seconds']:.0f} s;"
                        " p50 / p99)")
    for column in ("measure", "size", "tiermem", "baseline", "ratio"):
        table.add_column(column, justify="left" if column == "measure" else "right")
    for row in table_rows(report):
        table.add_row(*row)
    console.print(table)
    targets_table = Table(title="targets (at the largest size)")
    for column in ("target", "limit", "measured", "where", "met"):
        targets_table.add_column(column)
    for t in report["targets"]:
        targets_table.add_row(t["name"], f"{t['kind']} {t['limit']:g}", f"{t['measured']:.3g}",
                              t["where"], "[green]yes[/green]" if t["met"]
                              else "[bold red]no[/bold red]")
    console.print(targets_table)
    for a in report["archival"]:
        if "skipped" in a["chroma"]:
            console.print(f"chroma skipped at {a['passages']}: {a['chroma']['skipped']}")
            break


def write_json(path: Path, report: dict[str, Any]) -> None:
    path.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")


def parse_sizes(text: str | None) -> tuple[int, ...]:
    """``"10000,100000"`` as sizes; ValueError names what is wrong."""
    if not text:
        return DEFAULT_SIZES
    try:
        sizes = tuple(sorted({int(part) for part in text.split(",") if part.strip()}))
    except ValueError:
        raise ValueError(f"--sizes must be whole numbers separated by commas, not {text!r}"
                         ) from None
    if not sizes or min(sizes) < 100:
        raise ValueError(f"--sizes must be at least 100 passages each, not {text!r}")
    return sizes


def main(sizes: str | None = None, quick: bool = False, json_path: Path | None = None,
         seed: int = 0, work: Path | None = None, recall_dense: bool = False) -> int:
    """The ``benchmark --perf`` command: measure, print the table, write the JSON."""
    from rich.console import Console

    console = Console()
    if not console.is_terminal:  # a file or pipe: keep the table's rows on one line each
        console = Console(width=160)
    try:
        opts = PerfOptions(sizes=parse_sizes(sizes), quick=quick, seed=seed,
                           recall_dense=recall_dense)
    except ValueError as exc:
        sys.stderr.write(f"tiermem: {exc}\n")
        return 2
    if not chroma_available():
        console.print(f"note: {CHROMA_MISSING}", markup=False)
    report = run_perf(opts, work=work,
                      progress=lambda text: console.print(f"[dim]{text} ...[/dim]"))
    print_report(console, report)
    if json_path is not None:
        write_json(json_path, report)
        console.print(f"wrote {json_path}", markup=False)
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--sizes", help="archival sizes, comma separated (default 10000,100000)")
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    parser.add_argument("--json", type=Path, help="write the report here")
    parser.add_argument("--work", type=Path, help="keep the stores in this directory")
    parser.add_argument("--recall-dense", action="store_true",
                        help="also measure recall with a vector per message")
    args = parser.parse_args()
    sys.exit(main(args.sizes, args.quick, args.json, work=args.work,
                  recall_dense=args.recall_dense))
