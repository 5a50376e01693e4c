"""SQLite and PostgreSQL side by side, in one run, through the engine (HierarchicalMemory).

Run: ``python -m tiermem.bench.perf_backends --sizes 100000`` (``--sizes 1000000 --queries 50
--hybrid-up-to 100000`` for the large case: minutes, and gigabytes of disk; ``--hnsw-cases
none`` leaves out the HNSW builds). Each measurement runs the same code on
both backends: the same passages and vectors, the same queries, the same turns.

- archival ingest: ``archival.insert_many`` in batches of 1000, one transaction each;
- exact search: the dense index alone (``archival.vectors.search``, k=10), then a whole
  ``archival_search`` (full text + vectors, fused);
- recall search: ``recall_search`` over as many messages as passages, and over an agent
  of 1000 messages beside them;
- step overhead: ``Agent.step`` with a scripted model that replies at once, so what is
  timed is the engine's turn (store the message, embed it, build the context, commit);
- PostgreSQL only: 8 agents, each stepped by its own process, and the HNSW option's
  recall@10 against exact search on random, clustered and real (MiniLM) vectors.

Vectors are synthetic unit vectors of MiniLM's dimension (384) handed out by a table
embedder, so no model time is measured. The PostgreSQL server is a local one on a
temporary directory with ``synchronous_commit=off`` (a client crash loses no commit,
like SQLite's ``normal`` durability).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from tiermem.agent.loop import Agent
from tiermem.agent.scripted import ScriptedModel, reply
from tiermem.memory.embed.embeddings import Embedder, HashingEmbedder
from tiermem.memory.hierarchy import HierarchicalMemory
from tiermem.memory.store.postgres.local_server import LocalPostgres
from tiermem.memory.tiers.archival import NewPassage
from tiermem.memory.tiers.recall import NewMessage

DIM = 384
BATCH = 1000
QUERIES = 200
STEPS = 200
WRITERS = 8
TURNS_PER_WRITER = 100
#: Messages of an agent searched beside a large one (on PostgreSQL, in the same tables).
SMALL_AGENT = 1000
_WORDS = (
    "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india",
    "juliet", "kilo", "lima", "mike", "november", "oscar", "papa", "quebec", "romeo", "sierra",
    "tango", "uniform", "victor", "whiskey", "xray", "yankee", "zulu", "coffee", "garden",
    "river", "mountain", "piano", "violin", "harbour", "lantern", "meadow",
)


def unit_rows(matrix: np.ndarray) -> np.ndarray:
    return (matrix / np.linalg.norm(matrix, axis=1, keepdims=True)).astype(np.float32)


class TableEmbedder:
    """Hands out precomputed vectors in order, so timing measures the store, not a model."""

    id = f"synthetic-{DIM}"
    dim = DIM
    #: Random unit vectors of 384 dimensions are rarely closer than this by chance.
    min_similarity = 0.2

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return unit_rows(self.rng.standard_normal((len(texts), DIM)))

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed_documents([text])[0]


def _texts(rng: np.random.Generator, n: int, words: int = 12) -> list[str]:
    picks = rng.integers(0, len(_WORDS), (n, words))
    return [" ".join(_WORDS[i] for i in row) for row in picks]


def _stats(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    return {"p50_ms": round(statistics.median(ordered) * 1000, 2),
            "p99_ms": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1000, 2),
            "n": len(ordered)}


def _timed(calls: int, one: Callable[[int], object]) -> dict[str, float]:
    samples = []
    for i in range(calls):
        start = time.perf_counter()
        one(i)
        samples.append(time.perf_counter() - start)
    return _stats(samples)


# -- one backend -------------------------------------------------------------------------------
Opener = Callable[[str], HierarchicalMemory]


def measure_memory(open_memory: Opener, size: int, seed: int, queries_count: int = QUERIES,
                   hybrid: bool = True) -> dict[str, Any]:
    """Ingest, dense and hybrid search (when ``hybrid``), recall search at ``size`` rows of
    one backend."""
    rng = np.random.default_rng(seed)
    row: dict[str, Any] = {}
    with open_memory(f"archive-{size}") as memory:
        start = time.perf_counter()
        for first in range(0, size, BATCH):
            texts = _texts(rng, min(BATCH, size - first))
            memory.archival.insert_many([NewPassage(text=t) for t in texts])
        seconds = time.perf_counter() - start
        row["archival_ingest_per_s"] = round(size / seconds)
        queries = unit_rows(np.random.default_rng(seed + 1).standard_normal((queries_count, DIM)))
        words = _texts(rng, queries_count, 2)
        vectors = memory.archival.vectors
        # Untimed: the first search after an ingest builds SQLite's 8-bit copy of the
        # vectors, which a store reopened from disk loads instead.
        vectors.search(queries[0], 10)
        row["exact_vector_search"] = _timed(queries_count,
                                            lambda i: vectors.search(queries[i], 10))
        if hybrid:
            row["archival_search"] = _timed(queries_count,
                                            lambda i: memory.archival_search(words[i]))
    with open_memory(f"recall-{size}") as memory:
        turn = 0
        for first in range(0, size, BATCH):
            texts = _texts(rng, min(BATCH, size - first))
            with memory.store.transaction():
                memory.recall.append_many([NewMessage("user", t, turn + i)
                                           for i, t in enumerate(texts)], bulk=True)
            turn += len(texts)
        row["recall_search"] = _timed(queries_count, lambda i: memory.recall_search(words[i]))
    with open_memory(f"recall-small-{size}") as memory:
        with memory.store.transaction():
            memory.recall.append_many([NewMessage("user", t, i) for i, t in
                                       enumerate(_texts(rng, SMALL_AGENT))], bulk=True)
        row["recall_search_small_agent_beside"] = _timed(
            queries_count, lambda i: memory.recall_search(words[i]))
    return row


def measure_steps(open_memory: Opener) -> dict[str, float]:
    """The engine's own time per agent turn (the scripted model answers at once)."""
    with open_memory("steps") as memory:
        model = ScriptedModel([reply("ok")] * (STEPS + 20))
        agent = Agent(memory, model)
        for _ in range(20):  # warm up: first turns build the context and caches
            agent.step("warming up the agent")
        return _timed(STEPS, lambda i: agent.step(f"message {i} about the garden"))


def _embedder(name: str) -> Embedder:
    # A turn embeds its message: the hashing embedder is real and cheap.
    return HashingEmbedder() if name == "steps" else TableEmbedder(7)


def sqlite_opener(root: Path) -> Opener:
    def open_memory(name: str) -> HierarchicalMemory:
        return HierarchicalMemory(root / name, embedder=_embedder(name), recall_dense=False)
    return open_memory


def postgres_opener(dsn: str) -> Opener:
    def open_memory(name: str) -> HierarchicalMemory:
        return HierarchicalMemory(store=dsn, agent=name, embedder=_embedder(name),
                                  recall_dense=False)
    return open_memory


# -- PostgreSQL only ---------------------------------------------------------------------------
def _writer(args: tuple[str, str]) -> list[float]:
    dsn, name = args
    with HierarchicalMemory(store=dsn, agent=name, embedder=HashingEmbedder()) as memory:
        agent = Agent(memory, ScriptedModel([reply("ok")] * TURNS_PER_WRITER))
        samples = []
        for i in range(TURNS_PER_WRITER):
            start = time.perf_counter()
            agent.step(f"turn {i}: my {_WORDS[i % len(_WORDS)]} is ready")
            samples.append(time.perf_counter() - start)
        return samples


def concurrent_agents(dsn: str) -> dict[str, Any]:
    jobs = [(dsn, f"writer-{n}") for n in range(WRITERS)]
    start = time.perf_counter()
    with multiprocessing.get_context("spawn").Pool(WRITERS) as pool:
        samples = [s for result in pool.map(_writer, jobs) for s in result]
    seconds = time.perf_counter() - start
    return {"agents": WRITERS, "processes": WRITERS, "turns": len(samples),
            "turns_per_s": round(len(samples) / seconds, 1), **_stats(samples)}


def hnsw_recall(dsn: str, name: str, vectors: np.ndarray, queries: np.ndarray,
                ef_values: Sequence[int] = (100, 400)) -> dict[str, Any]:
    """Recall@10 of the HNSW index against exact search, and both speeds."""
    from tiermem.memory.store.postgres.backend import PostgresBackend
    from tiermem.memory.store.postgres.vectors import PgVectorIndex, create_hnsw_index
    from tiermem.memory.store.records import Passage

    backend = PostgresBackend(dsn, name)
    try:
        for first in range(0, len(vectors), BATCH):
            with backend.transaction():
                backend.passages.insert_many([
                    Passage(text="v", created_at=0.0, embedding=v, embedder_id="bench")
                    for v in vectors[first:first + BATCH]])
        backend.conn.execute("VACUUM ANALYZE tiermem.passages")
        exact = PgVectorIndex(backend.scope, "passages", DIM)
        truth, exact_samples = [], []
        for q in queries:
            start = time.perf_counter()
            truth.append(set(exact.search(q, 10)[0].tolist()))
            exact_samples.append(time.perf_counter() - start)
        start = time.perf_counter()
        create_hnsw_index(backend.scope, "passages", DIM)
        out: dict[str, Any] = {"rows": len(vectors), "exact": _stats(exact_samples),
                               "build_s": round(time.perf_counter() - start, 1)}
        for ef in ef_values:
            index = PgVectorIndex(backend.scope, "passages", DIM, hnsw=True, ef_search=ef)
            found, samples = [], []
            for q, want in zip(queries, truth, strict=True):
                start = time.perf_counter()
                got = set(index.search(q, 10)[0].tolist())
                samples.append(time.perf_counter() - start)
                found.append(len(got & want) / 10)
            out[f"ef_search_{ef}"] = {"recall_at_10": round(float(np.mean(found)), 3),
                                      **_stats(samples)}
        return out
    finally:
        backend.close()


def _database(server: str, name: str) -> str:
    import psycopg
    from psycopg import sql
    from psycopg.conninfo import make_conninfo

    with psycopg.connect(server, autocommit=True) as admin:
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    return make_conninfo(server, dbname=name)


HNSW_CASES = ("gaussian", "clustered", "clustered_beside_gaussian_agent")


def hnsw_cases(server: str, size: int, seed: int, locomo: Path | None,
               wanted: Sequence[str] = HNSW_CASES) -> dict[str, Any]:
    """Each case alone in its own database, then the clustered one again in the database of
    the random one: each agent has its own HNSW index, so an agent beside another one
    should find what it finds alone."""
    rng = np.random.default_rng(seed + 5)
    cases: dict[str, Any] = {}
    gauss = unit_rows(rng.standard_normal((size + 50, DIM)))
    shared = _database(server, "hnsw_gaussian")
    if "gaussian" in wanted or "clustered_beside_gaussian_agent" in wanted:
        cases["gaussian"] = hnsw_recall(shared, "gaussian", gauss[:size], gauss[size:])
    del gauss
    centres = unit_rows(rng.standard_normal((1000, DIM)))
    picks = rng.integers(0, len(centres), size + 50)
    clustered = unit_rows(centres[picks] + 0.6 * unit_rows(rng.standard_normal((size + 50, DIM))))
    if "clustered" in wanted:
        cases["clustered"] = hnsw_recall(_database(server, "hnsw_clustered"), "clustered",
                                         clustered[:size], clustered[size:])
    if "clustered_beside_gaussian_agent" in wanted:
        cases["clustered_beside_gaussian_agent"] = hnsw_recall(
            shared, "clustered", clustered[:size], clustered[size:])
    if locomo is not None and locomo.exists():
        real = np.load(locomo).astype(np.float32)
        rng.shuffle(real)
        cases["locomo_minilm"] = hnsw_recall(_database(server, "hnsw_locomo"), "locomo",
                                             real[50:], real[:50])
    return cases


@contextmanager
def local_server() -> Iterator[str]:
    data = Path(tempfile.mkdtemp(prefix="tiermem-bench-pg-"))
    # An HNSW build of a million 384-d vectors needs about 3 GB to stay in memory.
    server = LocalPostgres(data, settings={"synchronous_commit": "off", "shared_buffers": "512MB",
                                           "maintenance_work_mem": "4GB"})
    try:
        yield server.start()
    finally:
        server.stop()
        shutil.rmtree(data, ignore_errors=True)


def run(sizes: Sequence[int], seed: int, hnsw_size: int, locomo: Path | None,
        queries: int = QUERIES, hybrid_up_to: int | None = None,
        cases: Sequence[str] = HNSW_CASES) -> dict[str, Any]:
    report: dict[str, Any] = {"sizes": list(sizes)}
    work = Path(tempfile.mkdtemp(prefix="tiermem-bench-sqlite-"))
    try:
        with local_server() as dsn:
            backends = {"sqlite": sqlite_opener(work), "postgres": postgres_opener(dsn)}
            for name, opener in backends.items():
                report[name] = {"step": measure_steps(opener)}
                for size in sizes:
                    hybrid = hybrid_up_to is None or size <= hybrid_up_to
                    report[name][str(size)] = measure_memory(opener, size, seed, queries,
                                                             hybrid)
            report["postgres"]["concurrent"] = concurrent_agents(dsn)
            if cases or locomo is not None:
                report["postgres"]["hnsw"] = hnsw_cases(dsn, hnsw_size, seed, locomo, cases)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100000", help="archival and recall sizes, a comma list")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--hnsw-size", type=int, default=100000,
                        help="rows of each HNSW recall case (default 100000)")
    parser.add_argument("--locomo-vectors", type=Path,
                        help="a .npy of real embeddings (rows) for an HNSW case on real data")
    parser.add_argument("--queries", type=int, default=QUERIES,
                        help=f"searches timed per measure (default {QUERIES})")
    parser.add_argument("--hybrid-up-to", type=int,
                        help="time archival_search (full text + vectors) only up to this size")
    parser.add_argument("--hnsw-cases", default=",".join(HNSW_CASES),
                        help=f"a comma list of {', '.join(HNSW_CASES)}, or none")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",") if s]
    cases = [c for c in args.hnsw_cases.split(",") if c and c != "none"]
    unknown = set(cases) - set(HNSW_CASES)
    if unknown:
        parser.error(f"unknown --hnsw-cases {', '.join(sorted(unknown))}")
    print(json.dumps(run(sizes, args.seed, args.hnsw_size, args.locomo_vectors, args.queries,
                         args.hybrid_up_to, cases), indent=2))


if __name__ == "__main__":
    main()
