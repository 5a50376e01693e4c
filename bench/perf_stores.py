"""Comparisons 1 to 3 of the perf run: the stores themselves.

Archival ingest and top-10 search against ChromaDB, exact dense search
against the memory-bandwidth floor, and recall appends and full-text search
by query class.
"""

from __future__ import annotations

import itertools
import os
import statistics
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from tiermem.bench.memory_bench import COMMON_WORD, WORDS
from tiermem.bench.perf_data import DIM, BagEmbedder, Corpus, Precomputed, texts_of, zipf_indices
from tiermem.bench.perf_graph import archival_graph, recall_graph
from tiermem.bench.perf_method import PerfOptions, _p50_ms, _ratio, alternate, settled_heap
from tiermem.bench.sqlite_only import faiss_index
from tiermem.bench.timing import _stats, _timed
from tiermem.memory.search.fusion import NEAREST_MATCHES
from tiermem.memory.tiers.recall import NewMessage

CHROMA_MISSING = ("chromadb is not installed; install the bench extra "
                  "(pip install -e '.[bench]') to compare against it")


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
    from tiermem.memory import HierarchicalMemory

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
    vectors = faiss_index(memory.archival.vectors)
    n = len(queries)

    def exact(i: int) -> Any:
        return vectors.search(qvecs[i % n], 10)

    def float_scan(i: int) -> Any:
        return vectors.index.search(qvecs[i % n][None, :], 10)

    def dense(i: int) -> Any:
        ids, _ = vectors.search(qvecs[i % n], 10)
        return memory.archival.get_many(ids.tolist())

    def hybrid(i: int) -> Any:
        # As archival_search runs it: the nearest passages match when few clear the threshold.
        return memory.archival.search(queries[i % n], k=10, query_vector=qvecs[i % n],
                                      nearest=NEAREST_MATCHES)

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
    result["tiermem"]["hnsw"] = archival_graph(vectors, qvecs[: min(n, 100)], opts.passes)
    result["tiermem"].update(_hybrid_after_writes(memory, corpus, size, hybrid, n))
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


def _hybrid_after_writes(memory: Any, corpus: Corpus, size: int,
                         hybrid: Callable[[int], Any], rounds: int) -> dict[str, Any]:
    """Hybrid search right after a passage is added (as after an eviction or an
    archival_insert), and the same search repeated at once, round by round. The passages
    added are deleted after, so that later measures open the corpus as it was."""
    after: list[float] = []
    again: list[float] = []
    added: list[int] = []
    with settled_heap():
        for i in range(rounds):
            added += memory.archival.insert_many(corpus.passages(i % size, i % size + 1))
            for samples in (after, again):
                start = time.perf_counter()
                hybrid(i)
                samples.append(time.perf_counter() - start)
    memory.archival.delete(added)
    return {"hybrid_after_write": _stats(after), "hybrid_repeated": _stats(again)}


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
    from tiermem.memory import HierarchicalMemory

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
            if dense:  # first: the graph the size calls for, ready before searches are timed
                from tiermem.tools.memory_tools import PAGE_SIZE

                row["hnsw"] = recall_graph(memory, queries, PAGE_SIZE)
            row["search"] = _recall_search(memory, queries, opts.passes)
            out.append(row)
    finally:
        memory.close()
    return out


def _append_rates(memory: Any, size: int, opts: PerfOptions, seed: int,
                  embedder: Precomputed | None = None) -> dict[str, float]:
    """Batches appended with and without ``bulk=True``, alternating. SQLite's full-text index
    takes either in one statement when its transaction commits (``index_appended``)."""
    batch = max(2, min(5000, size // 20))
    rounds = 2 if opts.quick else 4
    if len(memory.recall) + 2 * rounds * batch > size:
        return {}
    pending = _messages(2 * rounds * batch, seed, vectors_into=embedder)
    samples = alternate({
        "bulk": lambda i: memory.recall.append_many(
            pending[2 * i * batch : (2 * i + 1) * batch], bulk=True),
        "rows": lambda i: memory.recall.append_many(
            pending[(2 * i + 1) * batch : (2 * i + 2) * batch]),
    }, rounds)
    return {"append_bulk_per_s": batch / statistics.median(samples["bulk"]),
            "append_rows_per_s": batch / statistics.median(samples["rows"])}


def _recall_search(memory: Any, queries: dict[str, list[str]], passes: int
                   ) -> dict[str, dict[str, float]]:
    """Every class's queries, alternating between classes, as conversation_search runs them."""
    from tiermem.tools.memory_tools import PAGE_SIZE

    next_id = memory.store.messages.max_id() + 1
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
