"""Migration 10 (SQLite): erased messages' ids indexed. A memory whose newest message was
erased before the upgrade gives that id to no message after it."""

from __future__ import annotations

from pathlib import Path

from memory_helpers import sqlite_store_at_version

from tiermem.memory.embed.embeddings import HashingEmbedder
from tiermem.memory.hierarchy import HierarchicalMemory


def test_a_message_erased_before_the_upgrade_keeps_its_id(tmp_path: Path) -> None:
    with sqlite_store_at_version(tmp_path, 9) as before, before.transaction():
        for content in ("the office is on the third floor", "the gate code is 2291"):
            before.execute("INSERT INTO messages (turn, role, content, created_at)"
                           " VALUES (1, 'user', ?, 1)", (content,))
        before.execute("INSERT INTO erasures (message_id, reason, erased_at)"
                       " VALUES (2, 'asked', 2)")
        before.execute("DELETE FROM messages WHERE id = 2")
    with HierarchicalMemory(tmp_path, embedder=HashingEmbedder()) as after:
        plan = " ".join(str(r[-1]) for r in after.store.execute(
            "EXPLAIN QUERY PLAN SELECT max(message_id) FROM erasures"))
        assert "erasures_message" in plan
        assert after.recall.append("user", "the printer is by the lifts", 2) == 3
