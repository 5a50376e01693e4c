"""Migration 4 (SQLite) and its PostgreSQL twin: events lose the text of facts, and facts
learned in a turn are linked to that turn's user message."""

from __future__ import annotations

import re
from pathlib import Path

import psycopg
from memory_helpers import sqlite_store_at_version

from tiermem.memory.embed.embeddings import HashingEmbedder
from tiermem.memory.hierarchy import HierarchicalMemory
from tiermem.memory.store.postgres import schema as pg_schema
from tiermem.memory.text.digest import replaced_detail

_FACT = ("INSERT INTO facts (text, norm, durability, tier, created_at, created_tick, last_access,"
         " last_counted_tick, tokens, source) VALUES (?, ?, 'durable', 'core', 1, 1, 1, 1, 5, ?)")


def test_sqlite_migration_rewrites_old_events_and_links_facts(tmp_path: Path) -> None:
    with sqlite_store_at_version(tmp_path, 3) as before, before.transaction():
        for turn, content in ((1, "hello"), (2, "my card is 4111 1111")):
            before.execute("INSERT INTO messages (turn, role, content, created_at)"
                           " VALUES (?, 'user', ?, 1)", (turn, content))
            before.execute("INSERT INTO messages (turn, role, content, created_at)"
                           " VALUES (?, 'assistant', 'ok', 1)", (turn,))
        before.execute(_FACT, ("my card is 4111 1111", "a", "extracted:turn:2"))
        before.execute(_FACT, ("User likes tea", "b", "tool:turn:1"))
        before.execute(_FACT, ("User is called Ann", "c", "user"))
        before.execute("INSERT INTO events (tick, kind, fact_id, text, detail, created_at)"
                       " VALUES (2, 'add', 1, 'my card is 4111 1111', 'durable', 1)")
        before.execute("INSERT INTO events (tick, kind, fact_id, text, detail, created_at)"
                       " VALUES (3, 'replace', 1, 'my card is X', '4111 1111', 1)")
    with HierarchicalMemory(tmp_path, embedder=HashingEmbedder()) as after:
        events = list(after.store.export_rows("events"))
        assert [e["text"] for e in events] == ["", ""]
        assert [e["detail"] for e in events] == ["durable", replaced_detail('4111 1111')]
        links = {f.text: f.source_message_id for f in after.facts()}
        assert links == {"my card is 4111 1111": 3, "User likes tea": 1,
                         "User is called Ann": None}


def test_postgres_migration_rewrites_old_events_and_links_facts(postgres_dsn: str) -> None:
    with psycopg.connect(postgres_dsn, autocommit=True) as conn:
        # The schema as the first migration left it, holding rows written then.
        with conn.transaction():
            conn.execute("CREATE SCHEMA tiermem")
            conn.execute("CREATE TABLE tiermem.migrations (version INTEGER PRIMARY KEY, "
                         "name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())")
            conn.execute(pg_schema.MIGRATIONS[0][1].encode())
            conn.execute("INSERT INTO tiermem.migrations (version, name) VALUES (1, 'first')")
            agent = conn.execute("INSERT INTO tiermem.agents (name, store_id) "
                                 "VALUES ('ann', 'x') RETURNING id").fetchone()[0]
            for mid, turn, role in ((1, 1, "user"), (2, 1, "assistant"), (3, 2, "user")):
                conn.execute("INSERT INTO tiermem.messages (agent_id, id, turn, role, content, "
                             "created_at) VALUES (%s, %s, %s, %s, 'm', 1)",
                             (agent, mid, turn, role))
            for fid, source in ((1, "extracted:turn:2"), (2, "tool:turn:1"), (3, "user")):
                conn.execute("INSERT INTO tiermem.facts (agent_id, id, text, norm, durability, "
                             "tier, created_at, created_tick, last_access, last_counted_tick, "
                             "tokens, source) VALUES (%s, %s, %s, %s, 'durable', 'core', 1, 1, "
                             "1, 1, 3, %s)", (agent, fid, f"fact {fid}", f"fact {fid}", source))
            conn.execute("INSERT INTO tiermem.events (agent_id, id, tick, kind, fact_id, text, "
                         "detail, created_at) VALUES (%s, 1, 3, 'replace', 1, 'fact 1', "
                         "'4111 1111', 1)", (agent,))
        pg_schema.migrate(conn)
        assert conn.execute("SELECT text, detail FROM tiermem.events").fetchall() == [
            ("", replaced_detail('4111 1111'))]
        assert conn.execute("SELECT id, source_message_id FROM tiermem.facts "
                            "ORDER BY id").fetchall() == [(1, 3), (2, 1), (3, None)]


def test_a_snapshot_taken_when_events_kept_text_restores_without_it() -> None:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        memory.add_fact("my PIN is 9931", "durable")
        memory.replace_in_core("9931", "private")
        snap = memory.snapshot()
    for event in snap["tables"]["events"]:  # as an older version wrote them
        event["text"] = "my PIN is 9931"
        if event["kind"] == "replace":
            event["detail"] = "9931"
    with HierarchicalMemory.restore(snap, embedder=HashingEmbedder()) as restored:
        rows = list(restored.store.export_rows("events"))
        assert [r["text"] for r in rows] == ["", ""]
        assert rows[1]["detail"] == replaced_detail('9931')
        # As a word: a timestamp or a hash may hold the digits 9931 by chance.
        assert re.search(r"\b9931\b", repr(restored.snapshot())) is None
