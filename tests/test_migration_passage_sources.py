"""Migration 9 (SQLite) and its PostgreSQL twin: passages filed by a tool call in a turn
are linked to that turn's user message, so erasing the message erases them."""

from __future__ import annotations

from pathlib import Path

import psycopg
import pytest
from memory_helpers import migrate_postgres_up_to, sqlite_store_at_version

from tiermem.memory.embed.embeddings import HashingEmbedder
from tiermem.memory.hierarchy import HierarchicalMemory
from tiermem.memory.store.postgres import schema as pg_schema
from tiermem.memory.store.postgres.schema_tables import PASSAGE_SOURCES

#: Messages of two turns: (turn, role), ids 1 to 4 in this order.
_MESSAGES = ((1, "user"), (1, "assistant"), (2, "user"), (2, "assistant"))
#: Passages as older versions filed them: (text, source, fact_id), and the message each
#: must be linked to after the upgrade. Only a tool's own passage is linked: a fact's
#: passage goes with its fact, and other sources name no turn.
_PASSAGES = (
    ("User's door code is 4417", "tool:turn:2", None, 3),
    ("User likes tea", "tool:turn:1", 1, None),
    ("runbook: restart the worker", "agent", None, None),
    ("User moved to Lyon", "core:tool:turn:1", None, None),
    ("a turn that left no message", "tool:turn:9", None, None),
    ("not a turn number", "tool:turn:2b", None, None),
)


def test_sqlite_migration_links_passages_filed_in_a_turn(tmp_path: Path) -> None:
    with sqlite_store_at_version(tmp_path, 8) as before, before.transaction():
        for turn, role in _MESSAGES:
            before.execute("INSERT INTO messages (turn, role, content, created_at)"
                           " VALUES (?, ?, 'my door code is 4417', 1)", (turn, role))
        for text, source, fact_id, _ in _PASSAGES:
            before.execute("INSERT INTO passages (text, created_at, source, fact_id)"
                           " VALUES (?, 1, ?, ?)", (text, source, fact_id))
    with HierarchicalMemory(tmp_path, embedder=HashingEmbedder()) as after:
        passages = after.store.passages.get_many(range(1, len(_PASSAGES) + 1))
        assert [passages[i].source_message_id for i in sorted(passages)] == [
            linked for *_, linked in _PASSAGES]
        assert after.erase(messages=[3], reason="asked").passages == 1
        assert after.archival_search("door code 4417").total == 0


def test_postgres_migration_links_passages_filed_in_a_turn(
        postgres_dsn: str, monkeypatch: pytest.MonkeyPatch) -> None:
    with psycopg.connect(postgres_dsn, autocommit=True) as conn:
        # The schema as it was before it, holding rows written then.
        migrate_postgres_up_to(conn, monkeypatch, PASSAGE_SOURCES)
        with conn.transaction():
            agent = conn.execute("INSERT INTO tiermem.agents (name, store_id) "
                                 "VALUES ('ann', 'x') RETURNING id").fetchone()[0]
            for mid, (turn, role) in enumerate(_MESSAGES, start=1):
                conn.execute("INSERT INTO tiermem.messages (agent_id, id, turn, role, content, "
                             "created_at) VALUES (%s, %s, %s, %s, 'm', 1)",
                             (agent, mid, turn, role))
            for pid, (text, source, fact_id, _) in enumerate(_PASSAGES, start=1):
                conn.execute("INSERT INTO tiermem.passages (agent_id, id, text, created_at, "
                             "source, fact_id) VALUES (%s, %s, %s, 1, %s, %s)",
                             (agent, pid, text, source, fact_id))
        monkeypatch.undo()
        pg_schema.migrate(conn)
        assert conn.execute("SELECT source_message_id FROM tiermem.passages "
                            "ORDER BY id").fetchall() == [(linked,) for *_, linked in _PASSAGES]
