"""Recall's word search drops tool and system messages without reading the rows it keeps."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from memory_helpers import make_memory, sqlite_store_at_version

from tiermem.memory import HierarchicalMemory
from tiermem.memory.embed.embeddings import HashingEmbedder
from tiermem.memory.store.sqlite import schema
from tiermem.memory.tiers.recall import SEARCH_TOOL_NAME, NewMessage

WINDOW = 6


def _mixed(n: int = 48) -> list[NewMessage]:
    """Every fourth message is a tool's (every other of those a conversation search's
    output), one a system message; every one says "note"."""
    out = []
    for i in range(n):
        text = f"note {'filler ' * (i % 5)}item{i}"
        if i % 4 == 3:
            out.append(NewMessage("tool", text, turn=i, tool_call_id=f"c{i}",
                                  tool_name=SEARCH_TOOL_NAME if i % 8 == 3 else "lookup"))
        elif i == 10:
            out.append(NewMessage("system", text, turn=i))
        else:
            out.append(NewMessage("user" if i % 2 else "assistant", text, turn=i))
    return out


def _expected(memory: HierarchicalMemory, roles: list[str] | None) -> list[int]:
    """The newest ``WINDOW`` messages a search with ``roles`` keeps, by BM25 (ties by id)."""
    rows = memory.store.execute(
        "SELECT m.id, m.role, m.tool_name, bm25(messages_fts) FROM messages_fts f"
        " JOIN messages m ON m.id = f.rowid WHERE messages_fts MATCH 'note'").fetchall()
    kept = [(i, score) for i, role, tool, score in rows
            if (role in roles if roles else True)
            and not (role == "tool" and tool == SEARCH_TOOL_NAME)]
    newest = sorted(kept)[-WINDOW:]
    return [i for i, _ in sorted(newest, key=lambda row: (row[1], row[0]))]


def _plans(memory: HierarchicalMemory, statements: list[tuple[str, Any]]) -> list[str]:
    """The query plan steps of the full-text statements run."""
    return [step[3] for sql, params in statements if "MATCH" in sql
            for step in memory.store.conn.execute(f"EXPLAIN QUERY PLAN {sql}", params)]


@pytest.mark.parametrize("roles", [["user", "assistant"], None,
                                   ["user", "assistant", "tool"], ["user"]])
def test_the_window_keeps_what_the_roles_keep_in_bm25_order(roles: list[str] | None) -> None:
    with make_memory(recall_dense=False) as memory:
        memory.recall.append_many(_mixed(), bulk=True)
        memory.recall.window = WINDOW
        result = memory.recall.search("note", k=WINDOW, roles=roles)
        assert [h.id for h in result.hits] == _expected(memory, roles)
    assert (result.total, result.total_exact) == (WINDOW, False)


@pytest.mark.parametrize("roles", [["user", "assistant"], None])
def test_a_search_keeping_user_and_assistant_reads_no_message_row_per_match(
        roles: list[str] | None, monkeypatch: pytest.MonkeyPatch) -> None:
    with make_memory(recall_dense=False) as memory:
        memory.recall.append_many(_mixed(), bulk=True)
        memory.recall.window = WINDOW
        statements: list[tuple[str, Any]] = []
        execute = memory.store.execute

        def recording(sql: str, params: Any = ()) -> Any:
            statements.append((sql, params))
            return execute(sql, params)

        monkeypatch.setattr(memory.store, "execute", recording)
        memory.recall.search("note", k=WINDOW, roles=roles)
        plans = _plans(memory, statements)
    assert plans and not [p for p in plans if "INTEGER PRIMARY KEY" in p]
    assert any(schema.UNSPOKEN_INDEX in p for p in plans)


def test_a_date_range_still_reads_the_rows_it_filters_on() -> None:
    with make_memory(recall_dense=False) as memory:
        memory.recall.append_many(_mixed(), bulk=True)
        memory.recall.window = WINDOW
        result = memory.recall.search("note", k=WINDOW, roles=["user", "assistant"],
                                      start="2000-01-01")
        assert [h.id for h in result.hits] == _expected(memory, ["user", "assistant"])


def test_a_memory_made_before_the_index_gets_it_on_upgrading(tmp_path: Path) -> None:
    with sqlite_store_at_version(tmp_path, 6) as before, before.transaction():
        before.executemany(
            "INSERT INTO messages (turn, role, content, created_at, tool_name)"
            " VALUES (?, ?, ?, 0, ?)",
            [(m.turn, m.role, m.content, m.tool_name) for m in _mixed()])
    with HierarchicalMemory(tmp_path, embedder=HashingEmbedder(), recall_dense=False) as after:
        assert after.store.execute("PRAGMA user_version").fetchone()[0] == schema.SCHEMA_VERSION
        unspoken = [r[0] for r in after.store.execute(
            f"SELECT id FROM messages INDEXED BY {schema.UNSPOKEN_INDEX}"
            f" WHERE {schema.UNSPOKEN} ORDER BY id")]
        assert unspoken == [r[0] for r in after.store.execute(
            "SELECT id FROM messages WHERE role IN ('tool', 'system') ORDER BY id")]
        after.recall.window = WINDOW
        result = after.recall.search("note", k=WINDOW, roles=["user", "assistant"])
        assert [h.id for h in result.hits] == _expected(after, ["user", "assistant"])
