"""The store's own API writes nothing a snapshot's restore refuses, on either backend: a
write over the limit, of a blank fact or passage, of a time, count, id, name, hash,
vector or JSON value, or of a reference to a row, restore would refuse, is refused with
what to give instead and leaves the store as it was, so a snapshot of every memory the
store holds restores."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from memory_helpers import make_memory
from snapshot_helpers import restore

from tiermem.memory.errors import InvalidInputError
from tiermem.memory.hierarchy import HierarchicalMemory
from tiermem.memory.store.contract import StorageBackend
from tiermem.memory.store.postgres.backend import PostgresBackend
from tiermem.memory.store.records import (
    Event,
    ForgetRequest,
    Forgotten,
    HistoryPoint,
    Message,
    Passage,
)
from tiermem.memory.types import Fact
from tiermem.memory.validation import EARLIEST_TIME, LATEST_TIME, MAX_TEXT_CHARS

OVER = "a" * (MAX_TEXT_CHARS + 1)
Write = Callable[[StorageBackend], Any]


def _message(**fields: Any) -> Write:
    fields = {"turn": 1, "role": "user", "content": "hello", "created_at": 1.7e9, **fields}
    return lambda store: store.messages.append_many([Message(**fields)])


def _passage(**fields: Any) -> Write:
    fields = {"text": "a runbook", "created_at": 1.7e9, **fields}
    return lambda store: store.passages.insert_many([Passage(**fields)])


def _fact(**fields: Any) -> Write:
    # A fact the memory does not hold, so the store takes it unless its values are refused.
    fields = {"id": 0, "text": "User plays chess", "durability": "durable",
              "created_at": 1.7e9, "created_tick": 1.0, "last_access": 1.0, "access_count": 1,
              "source": "api", "tokens": 3, **fields}
    return lambda store: store.facts.insert(Fact(**fields), "user plays chess")


RUNBOOK = "runbook: restart the billing worker"


def _first_passage_id(store: StorageBackend) -> int:
    return store.passages.holding(RUNBOOK)[0]


def _replaced_passage(text: str) -> Write:
    def write(store: StorageBackend) -> None:
        # The vector is never read: the text is refused first.
        store.passages.replace_text(_first_passage_id(store), text,
                                    np.zeros(8, dtype=np.float32), "hashing")
    return write


def _updated_fact(**fields: Any) -> Write:
    return lambda store: store.facts.update(replace(store.facts.in_core()[0], **fields))


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
    ("fact text updated", _updated_fact(text=OVER), "fact text is 200,001 characters"),
    ("event detail", lambda s: s.history.add_event(Event(1, "add", None, OVER, 1.7e9)),
     "event detail is 200,001 characters"),
]


def _unit(dim: int = 8) -> np.ndarray:
    return np.full(dim, 1 / np.sqrt(dim), dtype=np.float32)


LONG = np.full(8, 1.0, dtype=np.float32)  # length 2.828
HASH = "ab" * 32
TIME = "not Unix seconds of a date in the years 1 to 9999; give a time like 1715176560.0 " \
       "(datetime.timestamp())"
COUNT = "not a whole number from 0 to 2**63 - 1; give a count, like 0"
ROW_ID = "not a row id (a whole number from 1); give the id the store returned, or None"
UNIT = "give unit-length vectors (v / np.linalg.norm(v)), or zeros for a text without words"
NAME = "not a name of 1 to 32 lowercase letters or '_'; give one like"
HEX = "not 64 lowercase hex digits; give a SHA-256 digest as .hexdigest() writes it"


def _request(**fields: Any) -> Write:
    fields = {"created_at": 1.7e9, "request_hash": HASH, "mode": "exact",
              "outcome": "unmatched", **fields}
    return lambda store: store.forgetting.record(ForgetRequest(**fields))


def _point(**fields: Any) -> Write:
    fields = {"tick": 9, "created_at": 1.7e9, "core_facts": 1, "core_size": 3,
              "durable_in_core": 1, "archival_passages": 1, "recall_messages": 2,
              "evictions": 0, "promotions": 0, **fields}
    return lambda store: store.history.record(HistoryPoint(**fields))


def _audit_id(store: StorageBackend) -> int:
    return store.forgetting.requests()[0].id


def _forgotten_passage_id(store: StorageBackend) -> int:
    return next(p for r in store.forgetting.requests() for p in r.forgotten.passages)


NO_PASSAGE = ("is no passage of this memory; give the id of a passage the store holds "
              "(passages.insert_many returns them), or None")
DIM = ("has 8 values, but this memory's embedder gives 256; embed the text with the "
       "memory's embedder, or reindex the memory to another one first")


#: Each write restore would refuse, and the whole start of the error it gets.
UNFILED = ("is archived without a passage, and an archived fact is found through its "
           "passage; in one transaction, insert the fact, then its passage (fact_id the "
           "fact's id), then update the fact with the passage's id")
OTHER_FIELDS: list[tuple[str, Write, str]] = [
    ("archived fact alone", _fact(tier="archival"), f"fact (new) {UNFILED}"),
    ("message created_at", _message(created_at=1e20), f"message created_at is 1e+20, {TIME}"),
    ("message turn", _message(turn=-1), f"message turn is -1, {COUNT}"),
    ("message role", _message(role="bot"),
     "message role is 'bot'; give one of 'user', 'assistant', 'tool', 'system'"),
    ("message status", _message(status="Done"), f"message status is 'Done', {NAME} 'ok'"),
    ("message embedding", _message(embedding=LONG, embedder_id="hashing"),
     f"message embedding has length 2.828; {UNIT}"),
    ("message embedder_id", _message(embedding=_unit(), embedder_id=OVER),
     "message embedder_id is 200,001 characters, over the limit of 200,000; "
     "shorten it or split it into smaller pieces"),
    ("status set", lambda s: s.messages.set_status(1, "Done"),
     f"message status is 'Done', {NAME} 'ok'"),
    ("pending resolved", lambda s: s.messages.resolve_pending("Done"),
     f"message status is 'Done', {NAME} 'ok'"),
    ("erasure reason", lambda s: s.messages.erase([1], "r" * (MAX_TEXT_CHARS + 1), 1.7e9),
     "erasure reason is 200,001 characters, over the limit of 200,000; shorten it or split "
     "it into smaller pieces"),
    ("erased_at", lambda s: s.messages.erase([1], "card number", 1.7e12),
     f"erased_at is 1700000000000.0, {TIME}"),
    ("passage created_at", _passage(created_at=float("nan")), f"passage created_at is nan, {TIME}"),
    ("passage evicted_at", _passage(evicted_at=-1e15),
     f"passage evicted_at is -1000000000000000.0, {TIME}"),
    ("passage fact_id", _passage(fact_id=0), f"passage fact_id is 0, {ROW_ID}"),
    ("passage source_message_id", _passage(source_message_id=-3),
     f"passage source_message_id is -3, {ROW_ID}"),
    ("passage tags", _passage(tags=[1]),
     "passage tags must be a list of strings, got [1]; give tags like ['ops']"),
    ("passage superseded_at", _passage(metadata={"superseded_at": 1e30}),
     f"passage metadata superseded_at is 1e+30, {TIME}"),
    ("passage was_in_core", _passage(was_in_core=2),
     "passage was_in_core must be True or False, got 2"),
    ("passage embedding", _passage(embedding=np.full(8, np.inf, dtype=np.float32),
                                   embedder_id="hashing"),
     f"passage embedding holds a value that is not finite; {UNIT}"),
    ("passage evicted", lambda s: s.passages.mark_evicted(_first_passage_id(s), 1e20),
     f"passage evicted_at is 1e+20, {TIME}"),
    ("passage metadata a list", lambda s: s.passages.set_metadata(_first_passage_id(s), [1]),
     "passage metadata must be a dict, got list; give one like {'owner': 'sre'}"),
    ("passage vector replaced", lambda s: s.passages.replace_text(
        _first_passage_id(s), RUNBOOK, LONG, "hashing"),
     f"passage embedding has length 2.828; {UNIT}"),
    ("passage vectors set", lambda s: s.passages.set_embeddings(
        [_first_passage_id(s), _first_passage_id(s)], np.stack([_unit(), LONG]), "hashing"),
     f"passage embedding 1 has length 2.828; {UNIT}"),
    ("message vectors set", lambda s: s.messages.set_embeddings([1], LONG[None], "hashing"),
     f"message embedding has length 2.828; {UNIT}"),
    ("fact created_at", _fact(created_at=1e20), f"fact created_at is 1e+20, {TIME}"),
    ("fact created_tick", _fact(created_tick=-1.0),
     "fact created_tick is -1.0, not a number of 0 or more; give a reading of the memory's "
     "clock, like 1.0"),
    ("fact last_counted_tick", _fact(last_counted_tick=float("inf")),
     "fact last_counted_tick is inf, not a finite number; give a reading of the memory's "
     "clock, like 1.0"),
    ("fact access_count", _fact(access_count=1.5), f"fact access_count is 1.5, {COUNT}"),
    ("fact evictions", _fact(evictions=-1), f"fact evictions is -1, {COUNT}"),
    ("fact passage_id", _fact(passage_id=0), f"fact passage_id is 0, {ROW_ID}"),
    ("fact durability", _fact(durability="forever"),
     "fact durability is 'forever'; give one of 'durable', 'short-lived'"),
    ("fact tier", _fact(tier="recall"), "fact tier is 'recall'; give one of 'core', 'archival'"),
    ("history created_at", _point(created_at=1e20), f"history created_at is 1e+20, {TIME}"),
    ("history tick", _point(tick=-1), f"history tick is -1, {COUNT}"),
    ("event kind", lambda s: s.history.add_event(Event(1, "Add", None, "", 1.7e9)),
     f"event kind is 'Add', {NAME} 'add'"),
    ("event fact_id", lambda s: s.history.add_event(Event(1, "add", 0, "", 1.7e9)),
     f"event fact_id is 0, {ROW_ID}"),
    ("event created_at", lambda s: s.history.add_event(Event(1, "add", None, "", 1e20)),
     f"event created_at is 1e+20, {TIME}"),
    ("forgotten_at", lambda s: s.forgetting.forget([], [_first_passage_id(s)], [1], 1e20),
     f"forgotten_at is 1e+20, {TIME}"),
    ("request created_at", _request(created_at=1.7e18),
     f"forget request created_at is 1.7e+18, {TIME}"),
    ("request hash", _request(request_hash="xyz"), f"forget request hash is 'xyz', {HEX}"),
    ("request mode", _request(mode="Exact"), f"forget request mode is 'Exact', {NAME} 'exact'"),
    ("request outcome", _request(outcome="done"),
     "forget request outcome is 'done'; give one of 'matched', 'unmatched', 'ambiguous', "
     "'failed'"),
    ("request ids", _request(outcome="matched", forgotten=Forgotten(facts=(0,))),
     f"forget request facts id is 0, {ROW_ID}"),
    ("request detail", _request(detail=OVER),
     "forget request detail is 200,001 characters, over the limit of 200,000; shorten it or "
     "split it into smaller pieces"),
    ("request concealed", lambda s: s.forgetting.conceal([_audit_id(s)], ["XYZ"]),
     f"forget request hash is 'XYZ', {HEX}"),
    ("norm blocked", lambda s: s.forgetting.block([HASH, "nope"], 1.7e9),
     f"forgotten norm hash is 'nope', {HEX}"),
    ("norm blocked at", lambda s: s.forgetting.block([HASH], 1e20),
     f"forgotten_at is 1e+20, {TIME}"),
    ("fact passage", _fact(passage_id=999), f"fact passage_id 999 {NO_PASSAGE}"),
    ("fact passage updated", _updated_fact(passage_id=999), f"fact passage_id 999 {NO_PASSAGE}"),
    ("fact passage forgotten", lambda s: _fact(tier="archival",
                                               passage_id=_forgotten_passage_id(s))(s),
     "fact passage_id 2 is a forgotten passage, and an archived fact is found through its "
     "passage; give one not forgotten, or forget the fact with it"),
    ("passage fact", _passage(fact_id=999),
     "passage fact_id 999 is no fact of this memory; give the id of a fact the store holds "
     "(facts.insert returns them), or None"),
    ("passage dimension", _passage(embedding=_unit(), embedder_id="hashing"),
     f"passage embedding {DIM}"),
    ("message dimension", _message(embedding=_unit(), embedder_id="hashing"),
     f"message embedding {DIM}"),
    ("passage dimension replaced", lambda s: s.passages.replace_text(
        _first_passage_id(s), RUNBOOK, _unit(), "hashing"), f"passage embedding {DIM}"),
    ("passage dimensions set", lambda s: s.passages.set_embeddings(
        [_first_passage_id(s)], _unit()[None], "hashing"), f"passage embedding {DIM}"),
    ("message dimensions set", lambda s: s.messages.set_embeddings([1], _unit()[None], "x"),
     f"message embedding {DIM}"),
    ("state value", lambda s: s.settings.set("state.summary", "not json"),
     "state value 'not json' is not JSON text; give the value as JSON, as set_state writes it"),
    ("state key", lambda s: s.settings.set("state.a\x00b", "1"),
     "state key contains a NUL byte (at 1); remove it"),
]


@pytest.fixture(params=["sqlite", "postgres"])
def memory(request: pytest.FixtureRequest, tmp_path: Path) -> HierarchicalMemory:
    if request.param == "postgres":
        return make_memory(store=request.getfixturevalue("postgres_dsn"), agent="ada")
    return make_memory(tmp_path / "home")


def _held(m: HierarchicalMemory) -> dict[str, Any]:
    snapshot = m.snapshot()
    return {"tables": snapshot["tables"], "state": snapshot["state"]}


def _refused_and_restores(memory: HierarchicalMemory, tmp_path: Path, write: Write,
                          pattern: str) -> None:
    with memory as m:
        m.add_fact("User is vegan", "durable")
        m.archival_insert(RUNBOOK)
        m.process_interaction("My cat is called Miso.", "Nice.")
        m.add_fact("User's locker code is 2231", "durable")
        m.forget("User's locker code is 2231")  # an audit row and a forgotten norm
        m.archival_insert("The guest wifi password is hunter2")
        m.forget("The guest wifi password is hunter2")  # a forgotten passage
        m.set_state("summary", {"turns": 1})
        before = _held(m)
        with pytest.raises(InvalidInputError, match=pattern):
            write(m.store)
        assert _held(m) == before
        m.write_snapshot(tmp_path / "snap.json")
    with restore(tmp_path / "snap.json", tmp_path / "restored") as restored:
        assert restored.recall.search("Miso").hits


@pytest.mark.parametrize(("case", "write", "says"), REFUSED, ids=[c[0] for c in REFUSED])
def test_a_store_refuses_text_a_restore_would_refuse(
    memory: HierarchicalMemory, tmp_path: Path, case: str, write: Write, says: str
) -> None:
    _refused_and_restores(memory, tmp_path, write, f"^{says}.*(limit of 200,000; shorten it "
                                                   f"or split it|give it some text)")


@pytest.mark.parametrize(("case", "write", "says"), OTHER_FIELDS,
                         ids=[c[0] for c in OTHER_FIELDS])
def test_a_store_refuses_any_value_a_restore_would_refuse(
    memory: HierarchicalMemory, tmp_path: Path, case: str, write: Write, says: str
) -> None:
    _refused_and_restores(memory, tmp_path, write, f"^{re.escape(says)}")


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


def test_values_at_the_edges_are_written_and_restore(
    memory: HierarchicalMemory, tmp_path: Path
) -> None:
    with memory as m:
        m.store.passages.insert_many([Passage(
            text=RUNBOOK, created_at=LATEST_TIME, evicted_at=EARLIEST_TIME,
            embedding=np.zeros(m.embedder.dim, dtype=np.float32), embedder_id=m.embedder.id)])
        m.store.facts.insert(Fact(id=0, text="User is vegan", durability="durable",
                                  created_at=1.7e9, created_tick=0.0, last_access=0.0,
                                  access_count=2.0, source="api", tokens=3),  # type: ignore[arg-type]
                             "user is vegan")
        m.write_snapshot(tmp_path / "snap.json", include_vectors=True)
    with restore(tmp_path / "snap.json", tmp_path / "restored") as restored:
        tables = restored.snapshot()["tables"]
    assert [(r["created_at"], r["evicted_at"]) for r in tables["passages"]] == [
        (LATEST_TIME, EARLIEST_TIME)]
    assert [r["access_count"] for r in tables["facts"]] == [2]


def _held_unchecked(store: StorageBackend, key: str, value: str) -> None:
    """A setting as a version before the store's checks wrote it."""
    with store.transaction():
        if isinstance(store, PostgresBackend):
            store.conn.execute("INSERT INTO tiermem.settings (agent_id, key, value) "
                               "VALUES (%s, %s, %s)", (store.scope.agent, key, value))
        else:
            store.execute("INSERT INTO meta (key, value) VALUES (?, ?)", (key, value))


def test_an_erasure_scrubs_state_under_a_key_an_earlier_version_stored_longer(
    memory: HierarchicalMemory
) -> None:
    key = "state." + "k" * 250  # set_state has refused keys over 200 characters since
    with memory as m:
        said = m.process_interaction("My door code is 4417.", "Noted.")
        _held_unchecked(m.store, key, '{"summary": "My door code is 4417."}')
        report = m.erase(messages=said, reason="asked to")
        assert report.state_values == 1
        assert "4417" not in (m.store.settings.get(key) or "4417")
        assert not m.recall_search("door code").hits


def test_an_archived_fact_without_its_passage_by_the_commit_is_refused(
        memory: HierarchicalMemory, tmp_path: Path) -> None:
    def unfiled(store: StorageBackend) -> None:
        with store.transaction():
            _fact(tier="archival")(store)

    _refused_and_restores(memory, tmp_path, unfiled, rf"^fact \d+ {re.escape(UNFILED)}")


def test_a_fact_filed_straight_into_archival_commits_with_its_passage(
        memory: HierarchicalMemory, tmp_path: Path) -> None:
    with memory as m:
        m.core.reconfigure(1, "tokens", m.policy)  # every fact is larger than all of core
        fact_id = m.add_fact("The billing worker restarts at 2am", "durable")
        filed = m.fact(fact_id)
        assert filed is not None and filed.tier == "archival" and filed.passage_id is not None
        m.write_snapshot(tmp_path / "snap.json")
    with restore(tmp_path / "snap.json", tmp_path / "restored") as restored:
        assert restored.fact(fact_id) == filed
