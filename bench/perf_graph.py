"""The HNSW graph against exact search: its time, and how much of the exact answer it finds.

Recall@10 here is the share of the exact top 10 (a float32 scan of every
vector) that a search through the graph returns. The archival stores are
below the size from which ``vector_index="auto"`` uses the graph, so there it
is switched on for the measurement and off again; the recall store with a
vector per message uses it by itself from that size on, and there the
measure also covers what a user sees: how many of ``recall_search``'s first
page are the ones exact search gives.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from tiermem.bench.perf_method import alternate
from tiermem.bench.sqlite_only import faiss_index
from tiermem.bench.timing import _stats
from tiermem.memory.tiers.recall import RECALL_WINDOW


def _recall_at_10(found: list[np.ndarray], truth: list[np.ndarray]) -> float:
    hits = sum(len(set(f[:10].tolist()) & set(t[:10].tolist())) for f, t in zip(
        found, truth, strict=True))
    return round(hits / (10 * len(truth)), 4)


def _exact_top10(vectors: Any, qvecs: np.ndarray) -> list[np.ndarray]:
    return [vectors.index.search(q[None, :], 10)[1][0] for q in qvecs]


def archival_graph(vectors_of: Any, qvecs: np.ndarray, passes: int) -> dict[str, Any]:
    """Top 10 through the graph against the exact search, alternating, at one archival size."""
    vectors = faiss_index(vectors_of)
    mode = vectors.vector_index
    start = time.perf_counter()
    vectors.vector_index = "hnsw"
    try:
        vectors.wait_for_graph()
        built = time.perf_counter() - start
        n = len(qvecs)

        def exact(i: int) -> None:
            vectors.vector_index = "exact"
            vectors.search(qvecs[i % n], 10)

        def graph(i: int) -> None:
            vectors.vector_index = "hnsw"
            vectors.search(qvecs[i % n], 10)

        samples = alternate({"exact": exact, "hnsw": graph}, n * passes)
        vectors.vector_index = "hnsw"
        found = [vectors.search(q, 10)[0] for q in qvecs]
        return {"build_s": round(built, 3), "ef_search": vectors.ef_search,
                "top10": _stats(samples["hnsw"]), "exact_top10": _stats(samples["exact"]),
                "recall_at_10": _recall_at_10(found, _exact_top10(vectors, qvecs))}
    finally:
        # Off again, and not saved: later measurements open this home as it was.
        vectors.vector_index, vectors.graph = mode, None


def recall_graph(memory: Any, queries: dict[str, list[str]], page: int) -> dict[str, Any]:
    """At one recall size: whether the graph answers, how long it took to build (searches
    scan meanwhile), its recall@10, and how many of ``recall_search``'s first page it keeps."""
    vectors = faiss_index(memory.recall.vectors)
    texts = [t for cls in queries.values() for t in cls[:10]]
    qvecs = np.stack([memory.embedder.embed_query(t) for t in texts]).astype(np.float32)
    start = time.perf_counter()
    vectors.wait_for_graph()
    out: dict[str, Any] = {"approximate": vectors.approximate,
                           "build_s": round(time.perf_counter() - start, 3)}
    if not vectors.approximate:
        return out
    truth = _exact_top10(vectors, qvecs)
    out["ef_search"] = vectors.ef_search
    out["recall_at_10"] = _recall_at_10([vectors.search(q, 10)[0] for q in qvecs], truth)
    out["window_recall_at_10"] = _recall_at_10(
        [vectors.nearest(q, RECALL_WINDOW)[0] for q in qvecs], truth)
    kept = 0.0
    for text in texts:
        pages = []
        for mode in ("hnsw", "exact"):
            vectors.vector_index = mode
            pages.append({h.id for h in memory.recall.search(
                text, k=page, roles=["user", "assistant"]).hits})
        vectors.vector_index = "auto"
        kept += len(pages[0] & pages[1]) / max(len(pages[1]), 1)
    out["search_page_kept"] = round(kept / len(texts), 4)
    return out


__all__ = ["archival_graph", "recall_graph"]
