"""The PostgreSQL backend's performance on a local server: ingest, search, turns, writers.

Run: ``python -m bench.perf_postgres --sizes 100000`` (add 1000000 for the
large case; it takes minutes). Vectors are synthetic unit vectors of the
MiniLM dimension (384), so no model runs; texts are drawn from a fixed word
list. The server is a local one on a temporary directory, with
``synchronous_commit=off``: like SQLite's ``normal`` durability, a crash of
the client loses no commit and a crash of the machine can lose the last ones.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import random
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from memory.store.postgres.backend import PostgresBackend
from memory.store.postgres.local_server import LocalPostgres
from memory.store.postgres.vectors import create_hnsw_index
from memory.store.records import Event, HistoryPoint, Message, Passage, RowFilter, TextTable

DIM = 384
BATCH = 1000
QUERIES = 40
TURNS_PER_WRITER = 200
WRITERS = 8
_WORDS = (
    "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india",
    "juliet", "kilo", "lima", "mike", "november", "oscar", "papa", "quebec", "romeo", "sierra",
    "tango", "uniform", "victor", "whiskey", "xray", "yankee", "zulu", "coffee", "garden",
    "river", "mountain", "piano", "violin", "harbour", "lantern", "meadow",
)


def _unit(rng: np.random.Generator, n: int) -> np.ndarray:
    v = rng.standard_normal((n, DIM)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def _text(rng: random.Random, words: int = 12) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(words))


def _ms(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    return {"p50_ms": round(statistics.median(ordered) * 1000, 2),
            "p99_ms": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1000, 2)}


def ingest(backend: PostgresBackend, size: int, seed: int) -> dict[str, Any]:
    rng, words = np.random.default_rng(seed), random.Random(seed)
    start = time.perf_counter()
    for first in range(0, size, BATCH):
        n = min(BATCH, size - first)
        vectors = _unit(rng, n)
        with backend.transaction():
            backend.passages.insert_many([
                Passage(text=_text(words), created_at=float(first + i), embedding=vectors[i],
                        embedder_id="synthetic") for i in range(n)])
    seconds = time.perf_counter() - start
    backend.conn.execute("VACUUM ANALYZE tiermem.passages")
    return {"rows": size, "seconds": round(seconds, 1), "per_second": round(size / seconds)}


def search(backend: PostgresBackend, hnsw: bool, seed: int) -> tuple[dict[str, Any], list]:
    backend.hnsw = hnsw
    index = backend.vectors("passages", DIM)
    rng = np.random.default_rng(seed + 1)
    samples, answers = [], []
    for query in _unit(rng, QUERIES):
        start = time.perf_counter()
        ids, _ = index.search(query, 10)
        backend.passages.get_many(ids.tolist())
        samples.append(time.perf_counter() - start)
        answers.append(ids.tolist())
    return _ms(samples), answers


def lexical(backend: PostgresBackend, table: TextTable) -> dict[str, Any]:
    rng = random.Random(3)
    samples = []
    for _ in range(QUERIES):
        terms = [rng.choice(_WORDS), rng.choice(_WORDS)]
        start = time.perf_counter()
        backend.lexical(table).rank(terms, RowFilter(), window=1000).top(10)
        samples.append(time.perf_counter() - start)
    return _ms(samples)


def _turn(backend: PostgresBackend, tick: int, words: random.Random) -> float:
    """What one chat turn writes: two messages, an event, a history point and a setting."""
    start = time.perf_counter()
    with backend.transaction():
        backend.messages.append_many([
            Message(turn=tick, role="user", content=_text(words), created_at=float(tick)),
            Message(turn=tick, role="assistant", content=_text(words), created_at=float(tick))])
        backend.history.add_event(Event(tick, "add", None, "fact", "", float(tick)))
        backend.history.record(HistoryPoint(tick, float(tick), 1, 10, 1, 0, 2 * tick, 0, 0))
        backend.settings.set("clock", tick)
    return time.perf_counter() - start


def _writer(args: tuple[str, str, int]) -> list[float]:
    dsn, agent, turns = args
    backend = PostgresBackend(dsn, agent)
    words = random.Random(agent)
    try:
        return [_turn(backend, tick, words) for tick in range(1, turns + 1)]
    finally:
        backend.close()


def concurrent_writers(dsn: str) -> dict[str, Any]:
    jobs = [(dsn, f"writer-{n}", TURNS_PER_WRITER) for n in range(WRITERS)]
    start = time.perf_counter()
    with multiprocessing.get_context("spawn").Pool(WRITERS) as pool:
        samples = [s for result in pool.map(_writer, jobs) for s in result]
    seconds = time.perf_counter() - start
    return {"writers": WRITERS, "turns": len(samples),
            "turns_per_second": round(len(samples) / seconds), **_ms(samples)}


def run(sizes: list[int], seed: int = 0, hnsw_max: int | None = None) -> dict[str, Any]:
    data = Path(tempfile.mkdtemp(prefix="tiermem-pgb-"))
    server = LocalPostgres(data, settings={"synchronous_commit": "off",
                                           "shared_buffers": "1GB",
                                           "maintenance_work_mem": "1GB"})
    results: dict[str, Any] = {}
    try:
        dsn = server.start()
        for size in sizes:
            backend = PostgresBackend(dsn, f"archive-{size}")
            row: dict[str, Any] = {"ingest": ingest(backend, size, seed)}
            row["exact_search"], exact = search(backend, False, seed)
            row["lexical_search_window_1000"] = lexical(backend, "passages")
            if hnsw_max is not None and size > hnsw_max:
                backend.close()
                results[str(size)] = row
                continue
            start = time.perf_counter()
            create_hnsw_index(backend.scope, "passages", DIM)
            row["hnsw_build_seconds"] = round(time.perf_counter() - start, 1)
            row["hnsw_search"], approx = search(backend, True, seed)
            row["hnsw_recall_at_10"] = round(float(np.mean(
                [len(set(a) & set(e)) / 10 for a, e in zip(approx, exact, strict=True)])), 3)
            backend.close()
            results[str(size)] = row
        turn_backend = PostgresBackend(dsn, "turns")
        words = random.Random(seed)
        samples = [_turn(turn_backend, tick, words) for tick in range(1, 301)]
        turn_backend.close()
        results["turn_write"] = _ms(samples)
        results["concurrent_writers"] = concurrent_writers(dsn)
    finally:
        server.stop()
        shutil.rmtree(data, ignore_errors=True)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100000", help="archival sizes, comma-separated")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--hnsw-max", type=int, help="build no HNSW index above this size")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    print(json.dumps(run(sizes, args.seed, args.hnsw_max), indent=2))


if __name__ == "__main__":
    main()
