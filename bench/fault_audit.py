"""Audits of a memory after a fault: what must hold whatever went wrong.

Each function returns a list of problems in words (empty when all is well),
so a fault class can count them as divergences and show the first ones.
"""

from __future__ import annotations

import hashlib
import re
import shutil
import tempfile
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from tiermem.bench.postgres_only import PgAgent, stats_problems
from tiermem.bench.sqlite_only import integrity_problems
from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.errors import TiermemError
from tiermem.memory.ops.erase import pending_erasures
from tiermem.memory.store.contract import StorageBackend
from tiermem.memory.store.records import DumpRow, DumpTable
from tiermem.memory.store.sqlite import SQLiteStore
from tiermem.memory.tiers.recall import EMBEDDED_ROLES

#: Tables that hold the memory's content (besides its settings).
CONTENT_TABLES: tuple[DumpTable, ...] = (
    "facts", "passages", "messages", "history", "events", "erasures")
#: Meta keys that count changes of derived data rather than content.
DERIVED_META = ("passages_vector_generation", "messages_vector_generation", "recall_rewrites",
                "archival_rewrites")
MARKER = re.compile(r"\[([a-z]+\d+o\d+)\]")
#: Where a memory lives: an agent home, or an agent in a PostgreSQL database.
Place = Path | PgAgent


def index_problems(memory: HierarchicalMemory) -> list[str]:
    """Each vector index holds exactly the stored rows' ids, each with the stored vector."""
    problems = []
    for vectors, table in ((memory.archival.vectors, "passages"),
                           (memory.recall.vectors, "messages")):
        if vectors is not None:
            problems += [f"{table}: {problem}" for problem in vectors.differences()]
    return problems


def core_problems(memory: HierarchicalMemory) -> list[str]:
    """Core within its limit, recounted from the store, and the in-memory tier in step with it."""
    stored = memory.store.facts.in_core()
    unit = memory.core.unit
    size = (sum(memory.tokenizer.count(f.text) for f in stored) if unit == "tokens"
            else len(stored))
    problems = []
    if size > memory.core.limit:
        problems.append(f"core holds {size} {unit}, over its limit of {memory.core.limit}")
    in_memory = {fact.id for fact in memory.core}
    if in_memory != {f.id for f in stored}:
        problems.append(f"core in memory has {len(in_memory)} facts, the store {len(stored)}")
    elif memory.core.used != size:
        problems.append(f"core counts {memory.core.used} {unit}, its facts add up to {size}")
    return problems


def session_problems(memory: HierarchicalMemory) -> list[str]:
    """In-memory state that a rolled-back write must not keep."""
    stored = int(memory.store.settings.get("tick", "0") or 0)
    problems = core_problems(memory)
    if memory.tick != stored:
        problems.append(f"the clock says tick {memory.tick}, the store {stored}")
    return problems


def vectorless_rows(memory: HierarchicalMemory) -> list[str]:
    """Rows dense search cannot see, or vectors from another embedder."""
    problems = []
    store, embedder_id = memory.store, memory.embedder.id
    missing = len(store.passages.texts(without_vector=True))
    if missing:
        problems.append(f"{missing} passages have no vector (dense search cannot find them)")
    other = store.passages.count_without_vector(embedder_id) - missing
    if memory.recall.vectors is not None:
        missing = len(store.messages.texts(EMBEDDED_ROLES, without_vector=True))
        if missing:
            problems.append(f"{missing} messages have no vector")
        other_messages = store.messages.count_without_vector(embedder_id, EMBEDDED_ROLES) - missing
        if other_messages:
            problems.append(f"{other_messages} messages carry vectors of another embedder")
    if other:
        problems.append(f"{other} passages carry vectors of another embedder")
    return problems


def owed_erasures(memory: HierarchicalMemory) -> list[str]:
    """An erasure a forget asked for and a writer's open did not finish."""
    if memory.store.read_only:
        return []  # a read-only open finishes nothing; it only reports what is owed
    owed = pending_erasures(memory.store)
    return [f"the erasure of forget requests {owed} is still owed after a writer opened "
            f"the memory"] if owed else []


def audit(memory: HierarchicalMemory) -> list[str]:
    """Everything that must hold of a memory at rest (opened for writing, which finishes
    an owed erasure first)."""
    return (integrity_problems(memory) + stats_problems(memory) + index_problems(memory)
            + core_problems(memory) + vectorless_rows(memory) + owed_erasures(memory))


def rows(memory: HierarchicalMemory, table: DumpTable,
         where: Callable[[DumpRow], bool] | None = None) -> Iterator[DumpRow]:
    """The rows of ``table`` (for which ``where`` holds), in id order."""
    return (row for row in memory.store.export_rows(table) if where is None or where(row))


def markers(memory: HierarchicalMemory, table: DumpTable, column: str,
            where: Callable[[DumpRow], bool] | None = None) -> Counter[str]:
    """How many rows of ``table`` carry each ``[marker]`` in ``column``."""
    found: Counter[str] = Counter()
    for row in rows(memory, table, where):
        found.update(set(MARKER.findall(row[column] or "")))
    return found


def content_hash(memory: HierarchicalMemory, *, max_message_id: int | None = None) -> str:
    """A digest of every content row (derived meta counters left out).

    With ``max_message_id``, messages after it are left out: a failed turn
    keeps the user's message (marked unanswered) and nothing else.
    """
    digest = hashlib.sha256()
    for table in CONTENT_TABLES:
        digest.update(table.encode())
        for row in memory.store.export_rows(table):
            if table == "messages" and max_message_id is not None and row["id"] > max_message_id:
                continue
            digest.update(repr(tuple(row.values())).encode())
    digest.update(b"meta")
    for key, value in memory.store.settings.items():
        if key not in DERIVED_META:
            digest.update(repr((key, value)).encode())
    return digest.hexdigest()


Answers = list[list[tuple[str, int, str, float]]]


def answers(memory: HierarchicalMemory, queries: Sequence[str]) -> Answers:
    """The top archival and recall hits for each query: (tier, id, text, score)."""
    found = []
    for query in queries:
        hits = [*memory.archival_search(query, k=5).hits, *memory.recall_search(query, k=5).hits]
        found.append([(h.tier, h.id, h.text, round(h.score, 4)) for h in hits])
    return found


def answers_from_sqlite(home: Path, queries: Sequence[str], **options: Any) -> Answers:
    """What SQLite's rows alone answer: the same searches on a copy of the (closed) home
    whose FAISS files are left out, so its indexes are rebuilt from the stored vectors."""
    with tempfile.TemporaryDirectory(prefix="tiermem-rebuilt-") as tmp:
        copy = Path(tmp) / "home"
        shutil.copytree(home, copy, ignore=shutil.ignore_patterns(
            "*.faiss", "*.json", "*.sq8", "*.tmp", "writer.lock"))
        with HierarchicalMemory(copy, embedder=stored_embedder(copy), **options) as memory:
            return answers(memory, queries)


def stored_embedder(home: Place, default_dim: int = 64) -> HashingEmbedder:
    """The hashing embedder a memory was built with, read without opening it for writing
    (``default_dim`` for one killed before it recorded one)."""
    try:
        store: StorageBackend
        if isinstance(home, PgAgent):
            from tiermem.memory.store.opening import open_postgres

            store = open_postgres(home.dsn, home.agent, read_only=True)
        else:
            store = SQLiteStore(home, read_only=True)
    except TiermemError:
        return HashingEmbedder(default_dim)
    try:
        dim = store.settings.get("embedder_dim")
    except TiermemError:
        dim = None
    finally:
        store.close()
    return HashingEmbedder(int(dim) if dim else default_dim)
