"""Audits of a memory after a fault: what must hold whatever went wrong.

Each function returns a list of problems in words (empty when all is well),
so a fault class can count them as divergences and show the first ones.
"""

from __future__ import annotations

import hashlib
import re
import shutil
import sqlite3
import tempfile
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import faiss
import numpy as np

from memory import HashingEmbedder, HierarchicalMemory
from memory.recall import EMBEDDED_ROLES
from memory.store.sqlite import DB_FILE

#: Tables that hold the memory's content (FTS shadow tables are derived from them).
CONTENT_TABLES = ("facts", "passages", "messages", "history", "events", "erasures", "meta")
#: Meta keys that count changes of derived data rather than content.
DERIVED_META = ("passages_vector_generation", "messages_vector_generation")
MARKER = re.compile(r"\[([a-z]+\d+o\d+)\]")


def integrity(memory: HierarchicalMemory) -> list[str]:
    rows = [r[0] for r in memory.store.execute("PRAGMA integrity_check")]
    return [] if rows == ["ok"] else [f"integrity_check: {'; '.join(rows[:3])}"]


def index_problems(memory: HierarchicalMemory) -> list[str]:
    """Each FAISS index holds exactly SQLite's rowids, each with SQLite's vector bytes."""
    problems = []
    for vectors, table in ((memory.archival.vectors, "passages"),
                           (memory.recall.vectors, "messages")):
        if vectors is None:
            continue
        stored = dict(memory.store.execute(
            f"SELECT id, embedding FROM {table} WHERE embedding IS NOT NULL").fetchall())
        indexed = [int(i) for i in faiss.vector_to_array(vectors.index.id_map)]
        if len(indexed) != len(stored) or set(indexed) != set(stored):
            problems.append(
                f"{table}: FAISS holds {len(indexed)} vectors under {len(set(indexed))} ids, "
                f"SQLite {len(stored)} embeddings ({len(set(indexed) ^ set(stored))} ids differ)")
            continue
        if not stored:
            continue
        ids = np.asarray(sorted(stored), dtype=np.int64)
        rows = vectors.index.reconstruct_batch(ids)
        differ = [int(i) for i, row in zip(ids, rows, strict=True)
                  if np.ascontiguousarray(row, dtype=np.float32).tobytes() != stored[int(i)]]
        if differ:
            problems.append(f"{table}: FAISS vectors of {len(differ)} rows differ from SQLite's "
                            f"(e.g. rowid {differ[0]})")
    return problems


def core_problems(memory: HierarchicalMemory) -> list[str]:
    """Core within its limit, recounted from SQLite, and the in-memory tier in step with it."""
    rows = memory.store.execute("SELECT id, text FROM facts WHERE tier = 'core'").fetchall()
    unit = memory.core.unit
    size = (sum(memory.tokenizer.count(text) for _, text in rows) if unit == "tokens"
            else len(rows))
    problems = []
    if size > memory.core.limit:
        problems.append(f"core holds {size} {unit}, over its limit of {memory.core.limit}")
    in_memory = {fact.id for fact in memory.core}
    if in_memory != {row[0] for row in rows}:
        problems.append(f"core in memory has {len(in_memory)} facts, SQLite {len(rows)}")
    elif memory.core.used != size:
        problems.append(f"core counts {memory.core.used} {unit}, its facts add up to {size}")
    return problems


def session_problems(memory: HierarchicalMemory) -> list[str]:
    """In-memory state that a rolled-back write must not keep."""
    stored = int(memory.store.get_meta("tick", "0") or 0)
    problems = core_problems(memory)
    if memory.tick != stored:
        problems.append(f"the clock says tick {memory.tick}, SQLite {stored}")
    return problems


def vectorless_rows(memory: HierarchicalMemory) -> list[str]:
    """Rows dense search cannot see, or vectors from another embedder."""
    problems = []
    missing = _count(memory, "SELECT count(*) FROM passages WHERE embedding IS NULL")
    if missing:
        problems.append(f"{missing} passages have no vector (dense search cannot find them)")
    if memory.recall.vectors is not None:
        marks = ",".join("?" * len(EMBEDDED_ROLES))
        missing = _count(memory, f"SELECT count(*) FROM messages WHERE embedding IS NULL AND "
                                 f"role IN ({marks}) AND content != ''", *EMBEDDED_ROLES)
        if missing:
            problems.append(f"{missing} messages have no vector")
    for table in ("passages", "messages"):
        other = _count(memory, f"SELECT count(*) FROM {table} WHERE embedding IS NOT NULL "
                               "AND embedder_id IS NOT ?", memory.embedder.id)
        if other:
            problems.append(f"{other} {table} carry vectors of another embedder")
    return problems


def audit(memory: HierarchicalMemory) -> list[str]:
    """Everything that must hold of a memory at rest."""
    return (integrity(memory) + index_problems(memory) + core_problems(memory)
            + vectorless_rows(memory))


def _count(memory: HierarchicalMemory, sql: str, *params: object) -> int:
    return int(memory.store.execute(sql, params).fetchone()[0])


def markers(memory: HierarchicalMemory, table: str, column: str,
            where: str = "1") -> Counter[str]:
    """How many rows of ``table`` carry each ``[marker]`` in ``column``."""
    found: Counter[str] = Counter()
    for (text,) in memory.store.execute(f"SELECT {column} FROM {table} WHERE {where}"):
        found.update(set(MARKER.findall(text or "")))
    return found


def content_hash(conn: sqlite3.Connection, *, max_message_id: int | None = None) -> str:
    """A digest of every content row (derived meta counters left out).

    With ``max_message_id``, messages after it are left out: a failed turn
    keeps the user's message (marked unanswered) and nothing else.
    """
    digest = hashlib.sha256()
    for table in CONTENT_TABLES:
        sql = f"SELECT * FROM {table}"
        if table == "meta":
            sql += f" WHERE key NOT IN ({','.join('?' * len(DERIVED_META))})"
            params: tuple[object, ...] = DERIVED_META
        elif table == "messages" and max_message_id is not None:
            sql, params = sql + " WHERE id <= ?", (max_message_id,)
        else:
            params = ()
        digest.update(table.encode())
        for row in conn.execute(sql + " ORDER BY rowid", params):
            digest.update(repr(tuple(row)).encode())
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


def stored_embedder(home: Path, default_dim: int = 64) -> HashingEmbedder:
    """The hashing embedder an agent home was built with, read without opening it for writing
    (``default_dim`` for a home killed before it recorded one)."""
    try:
        conn = sqlite3.connect(f"file:{home / DB_FILE}?mode=ro", uri=True)
        try:
            row = conn.execute("SELECT value FROM meta WHERE key = 'embedder_dim'").fetchone()
        finally:
            conn.close()
    except sqlite3.Error:
        row = None
    return HashingEmbedder(int(row[0]) if row else default_dim)
