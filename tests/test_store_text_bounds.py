"""The store's own API writes no text a snapshot's restore refuses, on either backend: a
write over the limit, or of a blank fact or passage, is refused and leaves the store as it
was, so a snapshot of every memory the store holds restores."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from memory_helpers import make_memory
from snapshot_helpers import restore

from tiermem.memory.errors import InvalidInputError
from tiermem.memory.hierarchy import HierarchicalMemory
from tiermem.memory.store.contract import StorageBackend
from tiermem.memory.store.records import Event, Message, Passage
from tiermem.memory.types import Fact
from tiermem.memory.validation import MAX_TEXT_CHARS

OVER = "a" * (MAX_TEXT_CHARS + 1)
Write = Callable[[StorageBackend], Any]


def _message(**fields: Any) -> Write:
    fields = {"turn": 1, "role": "user", "content": "hello", "created_at": 1.7e9, **fields}
    return lambda store: store.messages.append_many([Message(**fields)])


def _passage(**fields: Any) -> Write:
    fields = {"text": "a runbook", "created_at": 1.7e9, **fields}
    return lambda store: store.passages.insert_many([Passage(**fields)])


def _fact(**fields: Any) -> Write:
    fields = {"id": 0, "text": "User is vegan", "durability": "durable", "created_at": 1.7e9,
              "created_tick": 1.0, "last_access": 1.0, "access_count": 1, "source": "api",
              "tokens": 3, **fields}
    return lambda store: store.facts.insert(Fact(**fields), "user is vegan")


RUNBOOK = "runbook: restart the billing worker"


def _first_passage_id(store: StorageBackend) -> int:
    return store.passages.holding(RUNBOOK)[0]


def _replaced_passage(text: str) -> Write:
    def write(store: StorageBackend) -> None:
        # The vector is never read: the text is refused first.
        store.passages.replace_text(_first_passage_id(store), text,
                                    np.zeros(8, dtype=np.float32), "hashing")
    return write


def _updated_fact(text: str) -> Write:
    def write(store: StorageBackend) -> None:
        fact = store.facts.in_core()[0]
        fact.text = text
        store.facts.update(fact)
    return write


REFUSED: list[tuple[str, Write, str]] = [
    ("message content", _message(content=OVER), "message content is 200,001 characters"),
    ("tool name", _message(role="tool", content="", tool_name=OVER, tool_call_id="c1"),
     "message tool_name is 200,001 characters"),
    ("tool call id", _message(role="tool", content="", tool_call_id=OVER),
     "message tool_call_id is 200,001 characters"),
    ("tool calls", _message(role="assistant", content="", tool_calls=[{"id": OVER}]),
     "message tool_calls as JSON is 200,013 characters"),
    ("passage text", _passage(text=OVER), "passage text is 200,001 characters"),
    ("passage source", _passage(source=OVER), "passage source is 200,001 characters"),
    ("passage tags", _passage(tags=[OVER]), "passage tags as JSON is 200,005 characters"),
    ("passage metadata", _passage(metadata={"k": OVER}),
     "passage metadata as JSON is 200,010 characters"),
    ("blank passage", _passage(text=" \n"), "passage text is empty"),
    ("passage text replaced", _replaced_passage(OVER), "passage text is 200,001 characters"),
    ("passage metadata set", lambda s: s.passages.set_metadata(_first_passage_id(s),
                                                               {"k": OVER}),
     "passage metadata as JSON is 200,010 characters"),
    ("fact text", _fact(text=OVER), "fact text is 200,001 characters"),
    ("blank fact", _fact(text=""), "fact text is empty"),
    ("fact source", _fact(source=OVER), "fact source is 200,001 characters"),
    ("fact text updated", _updated_fact(OVER), "fact text is 200,001 characters"),
    ("event detail", lambda s: s.history.add_event(Event(1, "add", None, OVER, 1.7e9)),
     "event detail is 200,001 characters"),
]


@pytest.fixture(params=["sqlite", "postgres"])
def memory(request: pytest.FixtureRequest, tmp_path: Path) -> HierarchicalMemory:
    if request.param == "postgres":
        return make_memory(store=request.getfixturevalue("postgres_dsn"), agent="ada")
    return make_memory(tmp_path / "home")


def _held(m: HierarchicalMemory) -> dict[str, Any]:
    return {table: rows for table, rows in m.snapshot()["tables"].items()
            if table in ("facts", "passages", "messages", "events")}


@pytest.mark.parametrize(("case", "write", "says"), REFUSED, ids=[c[0] for c in REFUSED])
def test_a_store_refuses_text_a_restore_would_refuse(
    memory: HierarchicalMemory, tmp_path: Path, case: str, write: Write, says: str
) -> None:
    with memory as m:
        m.add_fact("User is vegan", "durable")
        m.archival_insert(RUNBOOK)
        m.process_interaction("My cat is called Miso.", "Nice.")
        before = _held(m)
        with pytest.raises(InvalidInputError, match=f"^{says}.*(limit of 200,000; shorten it "
                                                    f"or split it|give it some text)"):
            write(m.store)
        assert _held(m) == before
        m.write_snapshot(tmp_path / "snap.json")
    with restore(tmp_path / "snap.json", tmp_path / "restored") as restored:
        assert restored.recall.search("Miso").hits


def test_text_at_the_limit_is_written_and_restores(
    memory: HierarchicalMemory, tmp_path: Path
) -> None:
    at_limit = "word " * (MAX_TEXT_CHARS // 5)
    with memory as m:
        (message_id,) = m.store.messages.append_many(
            [Message(turn=1, role="user", content=at_limit, created_at=1.7e9)])
        m.store.passages.insert_many([Passage(text=at_limit, created_at=1.7e9,
                                              source="s" * MAX_TEXT_CHARS)])
        m.write_snapshot(tmp_path / "snap.json")
    with restore(tmp_path / "snap.json", tmp_path / "restored") as restored:
        tables = restored.snapshot()["tables"]
    assert [r["content"] for r in tables["messages"] if r["id"] == message_id] == [at_limit]
    assert [r["text"] for r in tables["passages"]] == [at_limit]
