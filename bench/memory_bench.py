"""Memory engine micro-benchmarks: archival, recall, eviction and the embedder.

Run: ``python bench/memory_bench.py [--sizes 10000,100000] [--json PATH]``

Figures are medians and p99 over repeated operations in one process, and
ratios where a baseline is measured in the same run (eviction at 10k vs 1k
facts; exact dense search vs this machine's memory-bandwidth floor). Synthetic
passages use 384-d random unit vectors so the embedding model's cost is
excluded from store figures; the embedder is measured on its own.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tiermem.memory import HierarchicalMemory
from tiermem.memory.embed.embeddings import normalize_rows
from tiermem.memory.output_file import write_atomic
from tiermem.memory.tiers.archival import NewPassage
from tiermem.memory.tiers.recall import NewMessage


def _vocabulary(size: int = 20_000) -> list[str]:
    syllables = [c + v for c in "bdfgklmnprstvz" for v in "aeiou"]
    rng = random.Random(0)
    words = {"".join(rng.choice(syllables) for _ in range(rng.randint(1, 4))) for _ in range(size)}
    return sorted(words)


WORDS = _vocabulary()
# Zipf-distributed word frequencies, as in natural text: a few very common words
# and a long tail, so full-text queries see realistic posting-list lengths.
_CUM_WEIGHTS = list(__import__("itertools").accumulate(1.0 / (r + 1) for r in range(len(WORDS))))
COMMON_WORD = WORDS[0]


class RandomEmbedder:
    """Deterministic random unit vectors per text: store cost without model cost."""

    min_similarity = 0.25

    def __init__(self, dim: int = 384) -> None:
        self.dim = dim
        self.id = f"bench-random-{dim}"

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        rows = []
        for text in texts:
            seed = int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "little")
            rows.append(np.random.default_rng(seed).standard_normal(self.dim, dtype=np.float32))
        return normalize_rows(np.stack(rows)) if rows else np.zeros((0, self.dim), np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed_documents([text])[0]


def sentence(rng: random.Random, n: int = 25) -> str:
    return " ".join(rng.choices(WORDS, cum_weights=_CUM_WEIGHTS, k=n))


def query_text(rng: random.Random, n: int = 3) -> str:
    return " ".join(rng.choices(WORDS, cum_weights=_CUM_WEIGHTS, k=n))


def percentiles(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
    return {"p50_ms": 1000 * statistics.median(ordered), "p99_ms": 1000 * p99}


def timed(fn: Callable[[], Any], repeat: int) -> list[float]:
    out = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        out.append(time.perf_counter() - start)
    return out


def memory_bandwidth_gbs(repeat: int = 5) -> float:
    """Single-thread read bandwidth over a 512 MiB array: the fastest of two read kernels.

    numpy's sum is partly bound by its pairwise adds, so a dot product of the
    two halves (BLAS, streaming) is timed too; the faster one gives the higher
    bandwidth and so the stricter floor for a scan.
    """
    data = np.ones(128 * 1024 * 1024, dtype=np.float32)
    half = data.size // 2
    best = min(
        *timed(lambda: float(data.sum()), repeat),
        *timed(lambda: float(np.dot(data[:half], data[half:])), repeat),
    )
    return data.nbytes / best / 1e9


def bench_archival(size: int, tmp: Path, rng: random.Random, bandwidth: float) -> dict[str, Any]:
    embedder = RandomEmbedder()
    passages = [NewPassage(text=f"{sentence(rng)} {i}", tags=[rng.choice(WORDS[:20])])
                for i in range(size)]
    vectors = embedder.embed_documents([p.text for p in passages])
    precomputed = {p.text: v for p, v in zip(passages, vectors, strict=True)}

    class Precomputed(RandomEmbedder):
        def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
            return np.stack([precomputed[t] for t in texts])

    with HierarchicalMemory(tmp / f"archival-{size}", embedder=Precomputed(),
                            recall_dense=False) as memory:
        start = time.perf_counter()
        for i in range(0, size, 1000):
            memory.archival.insert_many(passages[i : i + 1000])
        insert_s = time.perf_counter() - start
        queries = [query_text(rng) for _ in range(200)]
        qvecs = [embedder.embed_query(q) for q in queries]
        it = iter(range(10**9))
        dense = timed(lambda: memory.archival.vectors.search(qvecs[next(it) % 200], 10), 200)
        it2 = iter(range(10**9))
        hybrid = timed(
            lambda: memory.archival.search(queries[next(it2) % 200], k=10,
                                           query_vector=qvecs[next(it2) % 200]), 100)
    floor_ms = size * 384 * 4 / (bandwidth * 1e9) * 1000
    dense_p = percentiles(dense)
    return {
        "passages": size,
        "insert_per_s": size / insert_s,
        "dense_exact": dense_p,
        "bandwidth_floor_ms": floor_ms,
        "dense_p50_over_floor": dense_p["p50_ms"] / floor_ms,
        "hybrid": percentiles(hybrid),
    }


def bench_eviction(sizes: Sequence[int]) -> dict[str, Any]:
    from tiermem.memory.embed.embeddings import HashingEmbedder

    out: dict[str, Any] = {}
    for size in sizes:
        memory = HierarchicalMemory(None, core_limit=size, core_limit_unit="facts",
                                    embedder=HashingEmbedder(64), recall_dense=False)
        with memory.interaction():
            for i in range(size):
                memory.add_fact(f"fill fact number {i}", "short-lived")

        def add_new(memory: HierarchicalMemory = memory) -> int:
            return memory.add_fact(f"new fact {time.perf_counter_ns()}", "short-lived")

        samples = timed(add_new, 300)
        out[str(size)] = percentiles(samples)
        memory.close()
    base = out[str(sizes[0])]["p50_ms"]
    for size in sizes[1:]:
        out[f"ratio_{size}_vs_{sizes[0]}"] = out[str(size)]["p50_ms"] / base
    return out


def bench_recall(size: int, rng: random.Random) -> dict[str, Any]:
    from tiermem.memory.embed.embeddings import HashingEmbedder

    memory = HierarchicalMemory(None, embedder=HashingEmbedder(64), recall_dense=False)
    batch = [NewMessage(role=rng.choice(("user", "assistant")), content=sentence(rng, 20),
                        turn=i) for i in range(size)]
    start = time.perf_counter()
    for i in range(0, size, 1000):
        memory.recall.append_many(batch[i : i + 1000])
    append_s = time.perf_counter() - start
    single = timed(lambda: memory.recall.append("user", sentence(rng), size), 200)
    rare = [query_text(rng, 2) for _ in range(100)]
    it = iter(range(10**9))
    search_rare = timed(lambda: memory.recall.search(rare[next(it) % 100], k=10), 100)
    search_common = timed(lambda: memory.recall.search(COMMON_WORD, k=10), 50)
    memory.close()
    return {
        "messages": size,
        "bulk_append_per_s": size / append_s,
        "single_append": percentiles(single),
        "search_two_words": percentiles(search_rare),
        "search_common_word": percentiles(search_common),
    }


def bench_embedder() -> dict[str, Any]:
    from tiermem.memory.embed.minilm import shared_minilm

    model = shared_minilm()
    rng = random.Random(7)
    texts = [sentence(rng, 15) for _ in range(200)]
    model.embed_documents(texts[:4])
    start = time.perf_counter()
    model.embed_documents(texts)
    docs_s = time.perf_counter() - start
    query = percentiles(timed(lambda: model.embed_query("which region is production?"), 50))
    return {"model": model.id, "documents_per_s": len(texts) / docs_s, "query": query}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000", help="archival sizes")
    parser.add_argument("--core-sizes", default="1000,10000", help="core sizes in facts")
    parser.add_argument("--recall", type=int, default=100_000, help="recall messages")
    parser.add_argument("--json", type=Path, help="write the report here")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    report: dict[str, Any] = {}
    bandwidth = memory_bandwidth_gbs()
    report["memory_bandwidth_gbs"] = bandwidth
    print(f"memory read bandwidth: {bandwidth:.1f} GB/s", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        report["archival"] = []
        for size in (int(s) for s in args.sizes.split(",")):
            row = bench_archival(size, Path(tmp), rng, bandwidth)
            report["archival"].append(row)
            print(json.dumps(row), flush=True)
    report["eviction"] = bench_eviction([int(s) for s in args.core_sizes.split(",")])
    print(json.dumps(report["eviction"]), flush=True)
    report["recall"] = bench_recall(args.recall, rng)
    print(json.dumps(report["recall"]), flush=True)
    report["embedder"] = bench_embedder()
    print(json.dumps(report["embedder"]), flush=True)
    if args.json:
        write_atomic(args.json, json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
