"""A small snapshot with something in every table, and checks of a restored memory."""

from __future__ import annotations

import copy
import functools
from pathlib import Path
from typing import Any

import faiss
from memory_helpers import check_archival_consistent, check_core_invariants, make_memory

from tiermem.memory.embed.embeddings import HashingEmbedder
from tiermem.memory.hierarchy import HierarchicalMemory
from tiermem.memory.store.sqlite.restore import RESTORE_PREFIX

Snap = dict[str, Any]


@functools.cache
def _small_snapshot() -> dict[str, Any]:
    with make_memory(core_limit=3, core_limit_unit="facts", promote_hits=1,
                     recent_promote_hits=1) as m:
        for text in ("User is allergic to peanuts", "the api is slow right now",
                     "User lives in Lyon", "the deploy is stuck"):
            m.add_fact(text, "short-lived" if "right now" in text or "stuck" in text
                       else "durable")
        m.add_fact("the api is slow right now", "short-lived")  # promoted back
        m.archival_insert("runbook: restart the billing worker", tags=["ops"],
                          metadata={"owner": "sre"})
        m.process_interaction("I'm vegan. My cat is called Miso.", "Noted both.")
        m.recall.append("tool", "", m.tick, tool_name="archival_memory_search",
                        tool_call_id="call_1")
        m.process_interaction("My card number is 4111.", "I should not keep that.")
        m.recall.erase([m.store.execute("SELECT max(id) FROM messages").fetchone()[0] - 1],
                       "card number")
        m.archival_search("billing")
        m.add_fact("User's locker code is 2231", "durable")
        m.forget("User's locker code is 2231")  # a tombstone, an audit row, a forgotten norm
        m.set_state("summary", {"text": "a summary", "turns": [1, 2]})
        return m.snapshot()


def small_snapshot() -> dict[str, Any]:
    """A fresh deep copy of the small snapshot, safe to mutate."""
    return copy.deepcopy(_small_snapshot())


def restore(snap: Any, path: Path | None = None, **kwargs: Any) -> HierarchicalMemory:
    """``snap`` restored on the hashing embedder, in memory or at ``path``."""
    return HierarchicalMemory.restore(snap, path, embedder=HashingEmbedder(), **kwargs)


def facts_of(snap: Snap) -> list[dict[str, Any]]:
    return snap["tables"]["facts"]


def row_index(rows: list[dict[str, Any]], **match: Any) -> int:
    """The position of the first of ``rows`` with each of ``match``'s values."""
    return next(i for i, r in enumerate(rows) if all(r[k] == v for k, v in match.items()))


def check_restored(m: HierarchicalMemory) -> None:
    """The integrity checks a restored memory must pass."""
    assert m.store.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    check_core_invariants(m)
    check_archival_consistent(m)
    for index in (m.archival.vectors, m.recall.vectors):
        if index is None:
            continue
        stored = [r[0] for r in m.store.execute(
            f"SELECT id FROM {index.table} WHERE embedding IS NOT NULL ORDER BY id")]
        assert sorted(faiss.vector_to_array(index.index.id_map).tolist()) == stored
    for fact in m.facts():
        assert fact.tokens == m.tokenizer.count(fact.text)


def leftovers(home: Path) -> list[str]:
    return sorted(p.name for p in home.glob(f"{RESTORE_PREFIX}*"))


def database_bytes(home: Path) -> bytes:
    return (home / "memory.sqlite3").read_bytes()


def contains_anywhere(home: Path, needle: bytes) -> bool:
    """Whether any file in ``home`` (the database, its WAL, ...) holds ``needle``."""
    return any(needle in p.read_bytes() for p in home.iterdir() if p.is_file())

