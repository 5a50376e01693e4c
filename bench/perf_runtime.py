"""Comparisons 4 to 6 of the perf run: what the agent pays at run time.

``add_fact`` with an eviction at growing core sizes, the agent's own time
per turn with a full store and an empty one, and cold start: the offline
chat, and opening a home with and without its saved FAISS index.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tiermem.bench.perf_data import BagEmbedder, Corpus, Precomputed
from tiermem.bench.perf_method import PerfOptions, _ratio, alternate, settled_heap
from tiermem.bench.sqlite_only import faiss_index
from tiermem.bench.timing import _eviction_samples, _filled_core, _stats, _timed
from tiermem.bench.turn_bench import TOPICS, CyclingScript, TimedEmbedder, TimedModel

ROOT = Path(__file__).resolve().parents[1]


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
class TimedSearches:
    """Counts a memory's archival searches and adds up their seconds, embedding taken out.

    It stands in for ``archival_search`` on the memory instance, where the tools
    look it up, so a turn's search is timed as the model's tool call runs it.
    """

    def __init__(self, memory: Any, embedder: TimedEmbedder) -> None:
        self.inner, self.embedder = memory.archival_search, embedder
        self.calls, self.seconds = 0, 0.0
        memory.archival_search = self

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        start, embedding = time.perf_counter(), self.embedder.seconds
        try:
            return self.inner(*args, **kwargs)
        finally:
            self.calls += 1
            self.seconds += time.perf_counter() - start - (self.embedder.seconds - embedding)


def measure_step(opts: PerfOptions, bag: BagEmbedder, corpus: Corpus, recall_home: Path,
                 work: Path) -> dict[str, Any]:
    """Turn overhead with the largest archival and recall stores, against an empty store.

    Each turn the scripted model makes three calls: ``core_memory_append``,
    ``archival_memory_search`` and ``send_message`` (bench.turn_bench.CyclingScript),
    so a turn holds one hybrid archival search; its share of the overhead is
    reported apart (``search_full``), and how many searches the timed turns ran.
    """
    from tiermem.agent.loop import Agent
    from tiermem.memory import HierarchicalMemory

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
    search: dict[str, list[float]] = {name: [] for name in homes}
    searches = 0
    blocks = 4
    per_block = max(1, opts.turns // blocks)
    for block in range(blocks):
        for name in (list(homes) if block % 2 == 0 else list(homes)[::-1]):
            with HierarchicalMemory(homes[name], embedder=embedder,
                                    recall_dense=False) as memory:
                model = TimedModel(CyclingScript())
                agent = Agent(memory, model)
                agent.step("warm up")  # first turn loads the context window
                searched = TimedSearches(memory, embedder)
                with settled_heap():
                    for i in range(per_block):
                        model.seconds = embedder.seconds = searched.seconds = 0.0
                        start = time.perf_counter()
                        agent.step(texts[(block * per_block + i) % len(texts)])
                        total = time.perf_counter() - start
                        overhead[name].append(total - model.seconds - embedder.seconds)
                        search[name].append(searched.seconds)
                searches += searched.calls
    return {**sizes, "turns": per_block * blocks,
            "overhead_full": _stats(overhead["full"]),
            "overhead_empty": _stats(overhead["empty"]),
            "search_full": _stats(search["full"]),
            "search_empty": _stats(search["empty"]),
            "searches_per_turn": searches / (2 * per_block * blocks),
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
    from tiermem.memory import HierarchicalMemory
    from tiermem.memory.store.sqlite.vector_files import remove_index_files

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
            rebuilt = faiss_index(memory.archival.vectors).rebuilt_on_open
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
