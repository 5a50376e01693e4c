"""Restore trusts nothing in a snapshot and never leaves a home half-written."""

from __future__ import annotations

import base64
import json
import math
import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from memory_helpers import make_memory, token_count
from snapshot_helpers import (
    check_restored,
    contains_anywhere,
    database_bytes,
    leftovers,
    small_snapshot,
)

import tiermem.memory as memory
import tiermem.memory.store.sqlite.restore  # noqa: F401
from tiermem.memory.embed.embeddings import HashingEmbedder
from tiermem.memory.errors import SnapshotError
from tiermem.memory.hierarchy import HierarchicalMemory
from tiermem.memory.store.sqlite.restore import RESTORE_PREFIX
from tiermem.memory.text.extract import fact_norm
from tiermem.memory.validation import (
    EARLIEST_TIME,
    LATEST_TIME,
    MAX_STATE_VALUE_CHARS,
    MAX_TEXT_CHARS,
)

Snap = dict[str, Any]


def _restore(snap: Any, path: Path | None = None, **kwargs: Any) -> HierarchicalMemory:
    return HierarchicalMemory.restore(snap, path, embedder=HashingEmbedder(), **kwargs)


def _facts(snap: Snap) -> list[dict[str, Any]]:
    return snap["tables"]["facts"]


def _index(rows: list[dict[str, Any]], **match: Any) -> int:
    return next(i for i, r in enumerate(rows) if all(r[k] == v for k, v in match.items()))


# -- the injection --------------------------------------------------------------------------------
EVIL_COLUMN = (
    "id, text, norm, durability, tier, created_at, created_tick, last_access,"
    " last_counted_tick, tokens) SELECT ?, 'INJECTED ' || sqlite_version(), 'injected',"
    " 'durable', 'core', 0, 0, 0, 0, 1 --"
)


@pytest.mark.parametrize("on_disk", [False, True])
def test_a_crafted_column_name_never_reaches_sql(tmp_path: Path, on_disk: bool) -> None:
    snap = small_snapshot()
    _facts(snap).append({**_facts(snap)[0], "id": 99, "text": "an innocent fact",
                         EVIL_COLUMN: 99})
    home = tmp_path / "home"
    with pytest.raises(SnapshotError, match="Extra inputs are not permitted") as info:
        _restore(snap, home if on_disk else None)
    index = len(_facts(snap)) - 1
    assert info.value.fields[0].startswith(f"tables.facts[{index}].id, text, norm")
    assert "tables.facts" in str(info.value)
    if on_disk:
        assert not (home / "memory.sqlite3").exists()
        if home.exists():
            assert not contains_anywhere(home, f"INJECTED {sqlite3.sqlite_version}".encode())


# -- each value out of bounds is refused, naming its place --------------------------------------
def _set(*path: Any, value: Any) -> Callable[[Snap], None]:
    def apply(snap: Snap) -> None:
        target: Any = snap
        for part in path[:-1]:
            target = target[part]
        target[path[-1]] = value
    return apply


def _drop(*path: Any) -> Callable[[Snap], None]:
    def apply(snap: Snap) -> None:
        target: Any = snap
        for part in path[:-1]:
            target = target[part]
        del target[path[-1]]
    return apply


def _duplicate_fact_id(snap: Snap) -> None:
    _facts(snap)[1]["id"] = _facts(snap)[0]["id"]


def _same_fact_twice(snap: Snap) -> None:
    _facts(snap)[1]["text"] = _facts(snap)[0]["text"].upper()


def _archived_without_passage(snap: Snap) -> None:
    i = _index(_facts(snap), tier="archival")
    _facts(snap)[i]["passage_id"] = None


def _vector_of(snap: Snap, values: Sequence[float]) -> None:
    vector = np.zeros(snap["settings"]["embedder_dim"], dtype=np.float32)
    vector[: len(values)] = values
    snap["tables"]["passages"][0]["embedding"] = base64.b64encode(vector.tobytes()).decode()


def _empty_user_message(snap: Snap) -> None:
    rows = snap["tables"]["messages"]
    rows[_index(rows, role="user")]["content"] = "  "


def _hits_over_searches(snap: Snap) -> None:
    snap["settings"]["archival_searches_with_hits"] = snap["settings"]["archival_searches"] + 1


def _tick_below_history(snap: Snap) -> None:
    snap["settings"]["tick"] = 0


def _dangling_passage(snap: Snap) -> None:
    i = _index(_facts(snap), tier="archival")
    _facts(snap)[i]["passage_id"] = 9999


INVALID: list[tuple[str, Callable[[Snap], None], str]] = [
    ("a 100 MB fact", _set("tables", "facts", 0, "text", value="x" * (MAX_TEXT_CHARS + 1)),
     "tables.facts[0].text"),
    ("a NaN tau", _set("config", "tau", value=math.nan), "config.tau"),
    ("an infinite tau", _set("config", "tau", value=math.inf), "config.tau"),
    ("a zero core limit", _set("config", "core_limit", value=0), "config.core_limit"),
    ("an unknown policy", _set("config", "policy", value="random"), "config.policy"),
    ("an unbounded embedder_dim", _set("settings", "embedder_dim", value=10**9),
     "settings.embedder_dim"),
    ("a negative id", _set("tables", "facts", 0, "id", value=-1), "tables.facts[0].id"),
    ("an id beyond SQLite's integers", _set("tables", "passages", 0, "id", value=2**63),
     "tables.passages[0].id"),
    ("a duplicate id", _duplicate_fact_id, "tables.facts[1].id"),
    ("the same fact twice", _same_fact_twice, "tables.facts[1].text"),
    ("a passage that does not exist", _dangling_passage, "passage_id"),
    ("an archived fact without its passage", _archived_without_passage, "passage_id"),
    ("an unknown tier", _set("tables", "facts", 0, "tier", value="attic"),
     "tables.facts[0].tier"),
    ("a count as text", _set("tables", "facts", 0, "access_count", value="3"),
     "tables.facts[0].access_count"),
    ("a count as a boolean", _set("tables", "facts", 0, "access_count", value=True),
     "tables.facts[0].access_count"),
    ("a NaN timestamp", _set("tables", "facts", 0, "last_access", value=math.nan),
     "tables.facts[0].last_access"),
    ("a time past the year 9999", _set("tables", "passages", 0, "created_at", value=1e300),
     "tables.passages[0].created_at"),
    ("a time before the year 1", _set("tables", "messages", 0, "created_at", value=-1e30),
     "tables.messages[0].created_at"),
    ("an eviction time past the year 9999", _set("tables", "facts", 0, "evicted_at",
                                                 value=1e300), "tables.facts[0].evicted_at"),
    ("an erasure time past the year 9999", _set("tables", "erasures", 0, "erased_at",
                                                value=1e19), "tables.erasures[0].erased_at"),
    ("milliseconds past the year 9999", _set("tables", "history", 0, "created_at",
                                             value=10**16), "tables.history[0].created_at"),
    ("a NUL in a fact", _set("tables", "facts", 0, "text", value="peanuts\x00"),
     "tables.facts[0].text"),
    ("a lone surrogate", _set("tables", "messages", 0, "content", value="hi \ud800"),
     "tables.messages[0].content"),
    ("an empty user message", _empty_user_message, "tables.messages"),
    ("tags that are not JSON", _set("tables", "passages", 0, "tags", value="[ops"),
     "tables.passages[0].tags"),
    ("metadata that is a list", _set("tables", "passages", 0, "metadata", value="[1]"),
     "tables.passages[0].metadata"),
    ("a short vector", _set("tables", "passages", 0, "embedding", value="AAAA"),
     "tables.passages[0].embedding"),
    ("a vector that is not base64", _set("tables", "passages", 0, "embedding", value="%%%"),
     "tables.passages[0].embedding"),
    ("a NaN in a vector", lambda s: _vector_of(s, [math.nan]), "tables.passages[0].embedding"),
    ("a vector of length 5", lambda s: _vector_of(s, [3.0, 4.0]),
     "tables.passages[0].embedding"),
    ("an unknown column", _set("tables", "passages", 0, "colour", value="red"),
     "tables.passages[0].colour"),
    ("a missing column", _drop("tables", "facts", 0, "durability"),
     "tables.facts[0].durability"),
    ("an unknown top-level field", _set("extra", value=1), "extra"),
    ("an unknown setting", _set("settings", "rowid", value=1), "settings.rowid"),
    ("state that is not JSON", _set("state", "summary", value="{oops"), "state.summary"),
    ("more hits than searches", _hits_over_searches, "settings.archival_searches_with_hits"),
    ("a tick below the history's", _tick_below_history, "settings.tick"),
    ("a negative last access", _set("tables", "facts", 0, "last_access", value=-5),
     "tables.facts[0].last_access"),
    ("a negative creation tick", _set("tables", "facts", 0, "created_tick", value=-1),
     "tables.facts[0].created_tick"),
    ("a negative eviction tick", _set("tables", "facts", 0, "evicted_tick", value=-1),
     "tables.facts[0].evicted_tick"),
    ("a superseded time past the year 9999", _set(
        "tables", "passages", 0, "metadata", value=json.dumps({"superseded_at": 1e300})),
     "tables.passages[0].metadata"),
    ("tables of the wrong type", _set("tables", "facts", value={"0": {}}), "tables.facts"),
]


@pytest.mark.parametrize(("mutate", "field"), [(m, f) for _, m, f in INVALID],
                         ids=[name for name, _, _ in INVALID])
def test_an_invalid_snapshot_is_refused_naming_the_field(
    tmp_path: Path, mutate: Callable[[Snap], None], field: str
) -> None:
    snap = small_snapshot()
    mutate(snap)
    home = tmp_path / "home"
    with pytest.raises(SnapshotError) as info:
        _restore(json.loads(json.dumps(snap)), home)
    assert any(f.startswith(field) or f.endswith(field) for f in info.value.fields), (
        info.value.fields, str(info.value))
    assert not (home / "memory.sqlite3").exists()
    assert leftovers(home) == []
    _restore(small_snapshot(), home).close()  # and the directory takes a good one


def test_a_valid_snapshot_passes_every_check(tmp_path: Path) -> None:
    snap = small_snapshot()
    assert all(snap["tables"][t] for t in snap["tables"])  # something in every table
    with _restore(snap) as m:
        check_restored(m)
        assert m.snapshot() == snap
    with _restore(snap, tmp_path / "home") as m:
        check_restored(m)
        assert m.snapshot() == snap


# -- times an older version stored in milliseconds ----------------------------------------------
TIMES = ("created_at", "evicted_at", "forgotten_at", "erased_at")  # the fields checked as dates


@pytest.mark.parametrize("on_disk", [False, True])
def test_times_in_milliseconds_are_restored_as_seconds(tmp_path: Path, on_disk: bool) -> None:
    snap = small_snapshot()
    changed = set()
    for rows in snap["tables"].values():
        for row in rows:
            for name in TIMES:
                if row.get(name) is not None:
                    row[name] = 1_715_176_560_123  # 2024-05-08T13:56:00.123Z, in milliseconds
                    changed.add(name)
    assert changed == set(TIMES)  # the small snapshot has a value of each
    with _restore(json.loads(json.dumps(snap)), tmp_path / "home" if on_disk else None) as m:
        check_restored(m)
        again = m.snapshot()
    times = [row[name] for rows in again["tables"].values() for row in rows
             for name in TIMES if row.get(name) is not None]
    assert len(times) > len(TIMES)
    assert set(times) == {1_715_176_560.123}


@pytest.mark.parametrize(("stored", "restored"), [
    (LATEST_TIME, LATEST_TIME),  # the last second of the year 9999 is still seconds
    (LATEST_TIME + 1, (LATEST_TIME + 1) / 1000),  # one later can only be milliseconds
    (EARLIEST_TIME, EARLIEST_TIME),
    (-1_000_000_000_000, -1_000_000_000.0),  # 1938 in milliseconds
])
def test_only_a_time_that_is_no_date_in_seconds_is_read_as_milliseconds(
        stored: float, restored: float) -> None:
    snap = small_snapshot()
    passage = snap["tables"]["passages"][0]
    passage["created_at"] = stored
    with _restore(snap) as m:
        row = m.snapshot()["tables"]["passages"][0]
    assert (row["id"], row["created_at"]) == (passage["id"], restored)


def test_a_time_past_the_year_9999_even_in_milliseconds_names_its_field() -> None:
    snap = small_snapshot()
    snap["tables"]["events"][1]["created_at"] = 1e16
    with pytest.raises(SnapshotError, match=r"tables\.events\[1\]\.created_at: must be Unix "
                                            r"seconds \(or milliseconds\) of a date") as info:
        _restore(snap)
    assert info.value.fields == ("tables.events[1].created_at",)


# -- a fact's times on the memory's clock, and a superseded passage's -------------------------
WALL_NOW = 1_715_176_560.0  # 2024-05-08T13:56:00Z


def _wall_clock_snapshot() -> Snap:
    """A memory on the wall clock with a fact in core, one evicted and one superseded."""
    with make_memory(clock="wall", now=lambda: WALL_NOW, core_limit=2,
                     core_limit_unit="facts") as m:
        for text in ("User is allergic to peanuts", "User lives in Lyon",
                     "User's manager is Dana"):
            m.add_fact(text, "durable")
        m.replace_in_core("User's manager is Dana", "")  # retired: its passage is superseded
        return json.loads(json.dumps(m.snapshot()))


def _superseded(snap: Snap) -> dict[str, Any]:
    return next(p for p in snap["tables"]["passages"] if "superseded_at" in p["metadata"])


@pytest.mark.parametrize("value", [1e300, -5, LATEST_TIME * 1000 + 1000])
@pytest.mark.parametrize("field", ["last_access", "created_tick"])
def test_a_wall_clock_access_time_that_is_no_date_is_refused_naming_it(
        tmp_path: Path, field: str, value: float) -> None:
    snap = _wall_clock_snapshot()
    _facts(snap)[1][field] = value
    home = tmp_path / "home"
    with pytest.raises(SnapshotError, match=rf"tables\.facts\[1\]\.{field}: must be") as info:
        _restore(snap, home)
    assert info.value.fields == (f"tables.facts[1].{field}",)
    assert not (home / "memory.sqlite3").exists()


def test_wall_clock_access_times_in_milliseconds_are_restored_as_seconds() -> None:
    snap = _wall_clock_snapshot()
    assert {f["last_access"] for f in _facts(snap)} == {WALL_NOW}
    for fact in _facts(snap):
        fact["last_access"] = fact["created_tick"] = WALL_NOW * 1000 + 123
    _superseded(snap)["metadata"] = json.dumps({"superseded_at": WALL_NOW * 1000 + 123})
    with _restore(snap) as m:
        again = m.snapshot()
    assert {(f["last_access"], f["created_tick"]) for f in _facts(again)} == {
        (WALL_NOW + 0.123, WALL_NOW + 0.123)}
    assert json.loads(_superseded(again)["metadata"]) == {"superseded_at": WALL_NOW + 0.123}


def test_on_the_interaction_clock_a_large_access_tick_is_left_as_it_is() -> None:
    snap = small_snapshot()
    assert snap["config"]["clock"] == "logical"
    snap["settings"]["tick"] = int(WALL_NOW * 1000)
    _facts(snap)[0]["last_access"] = WALL_NOW * 1000  # a count, not a time
    with _restore(snap) as m:
        assert _facts(m.snapshot())[0]["last_access"] == WALL_NOW * 1000


# An integer past any float cannot even be divided as milliseconds.
@pytest.mark.parametrize("when", [1e300, 10**400], ids=["a float", "a huge integer"])
def test_a_superseded_time_that_is_no_date_is_refused_naming_its_passage(when: float) -> None:
    snap = _wall_clock_snapshot()
    passage = _superseded(snap)
    passage["metadata"] = json.dumps({"superseded_at": when})
    i = snap["tables"]["passages"].index(passage)
    with pytest.raises(SnapshotError, match=r"superseded_at must be Unix seconds") as info:
        _restore(snap)
    assert info.value.fields == (f"tables.passages[{i}].metadata",)


def test_a_superseded_time_in_milliseconds_keeps_its_metadata_within_the_bound() -> None:
    # Near the bound with its characters as they are; about six times over it were each
    # written as a \u escape when the time is rewritten in seconds.
    note = "é" * (MAX_TEXT_CHARS - 100)
    snap = _wall_clock_snapshot()
    _superseded(snap)["metadata"] = json.dumps(
        {"note": note, "superseded_at": WALL_NOW * 1000}, ensure_ascii=False)
    with _restore(snap) as m:
        again = json.loads(json.dumps(m.snapshot()))
    stored = _superseded(again)["metadata"]
    assert len(stored) <= MAX_TEXT_CHARS
    assert json.loads(stored) == {"note": note, "superseded_at": WALL_NOW}
    _restore(again).close()  # and that snapshot restores in turn


def test_a_superseded_key_that_is_no_number_is_a_callers_own() -> None:
    snap = small_snapshot()
    snap["tables"]["passages"][0]["metadata"] = json.dumps({"superseded_at": "v2 docs"})
    with _restore(snap) as m:
        restored = m.snapshot()["tables"]["passages"][0]["metadata"]
    assert json.loads(restored) == {"superseded_at": "v2 docs"}


# -- whatever set_state stores, a snapshot restores -------------------------------------------
LARGE_STATES = {
    # An agent's saved context: many message ids and a long summary, past MAX_TEXT_CHARS.
    "a context past the text limit": {"message_ids": list(range(1, 20_001)),
                                      "summary": "the user said " * (MAX_TEXT_CHARS // 10)},
    # The longest value set_state takes: its JSON text is exactly the bound.
    "a value at the bound": "y" * (MAX_STATE_VALUE_CHARS - 2),
}


@pytest.mark.parametrize("on_disk", [False, True])
@pytest.mark.parametrize("value", list(LARGE_STATES.values()), ids=list(LARGE_STATES))
def test_a_large_state_value_restores(tmp_path: Path, value: Any, on_disk: bool) -> None:
    with make_memory() as m:
        m.set_state("context", value)
        m.add_fact("User is allergic to peanuts")
        snap = json.loads(json.dumps(m.snapshot()))
    assert len(snap["state"]["context"]) > MAX_TEXT_CHARS
    with _restore(snap, tmp_path / "home" if on_disk else None) as restored:
        assert restored.get_state("context") == value
        assert [f.text for f in restored.facts()] == ["User is allergic to peanuts"]


def test_a_state_value_over_the_bound_is_refused_naming_it(tmp_path: Path) -> None:
    snap = small_snapshot()
    snap["state"]["summary"] = json.dumps("y" * (MAX_STATE_VALUE_CHARS - 1))
    with pytest.raises(SnapshotError, match=r"state\.summary: is 10,000,001 characters") as info:
        _restore(snap, tmp_path / "home")
    assert info.value.fields == ("state.summary",)
    assert not (tmp_path / "home" / "memory.sqlite3").exists()


# -- derived values are computed again -----------------------------------------------------------
LONG_FACT = "User's travel notes: " + " ".join(f"city{i} has museum{i}" for i in range(150))


@pytest.mark.parametrize("on_disk", [False, True])
def test_token_counts_are_recounted(tmp_path: Path, on_disk: bool) -> None:
    with make_memory(core_limit=2000) as m:
        fid = m.add_fact(LONG_FACT)
        m.add_fact("User is allergic to peanuts")
        snap = m.snapshot()
    real = token_count(LONG_FACT)
    assert real > 500
    row = _facts(snap)[_index(_facts(snap), id=fid)]
    row["tokens"], row["norm"] = 3, "anything"
    with _restore(snap, tmp_path / "home" if on_disk else None) as restored:
        assert restored.fact(fid).tokens == real
        assert restored.core.used == real + token_count("User is allergic to peanuts")
        norm = restored.store.execute("SELECT norm FROM facts WHERE id = ?", (fid,)).fetchone()
        assert norm[0] == fact_norm(LONG_FACT) != "anything"
        check_restored(restored)


@pytest.mark.parametrize("on_disk", [False, True])
def test_a_core_over_its_limit_is_evicted_per_the_snapshots_policy(
    tmp_path: Path, on_disk: bool
) -> None:
    with make_memory(core_limit=5, core_limit_unit="facts", policy="lru") as m:
        ids = [m.add_fact(f"User likes fruit number {i}") for i in range(5)]
        m.add_fact(f"User likes fruit number {0}")  # fruit 0 is now the most recent
        snap = m.snapshot()
    snap["config"]["core_limit"] = 3
    with _restore(snap, tmp_path / "home" if on_disk else None) as restored:
        assert restored.core.used == 3
        assert sorted(f.id for f in restored.core) == sorted([ids[0], ids[3], ids[4]])
        for evicted in (ids[1], ids[2]):
            assert restored.fact(evicted).tier == "archival"
            assert restored.archival_search(restored.fact(evicted).text).hits[0].fact_id == evicted
        assert restored.tick == snap["settings"]["tick"] + 1  # the eviction is one interaction
        check_restored(restored)


def test_rows_left_without_a_vector_are_embedded(tmp_path: Path) -> None:
    snap = small_snapshot()
    snap["tables"]["passages"][0]["embedding"] = None
    passage = snap["tables"]["passages"][0]
    with _restore(snap) as m:
        check_restored(m)
        blob = m.store.execute("SELECT embedding FROM passages WHERE id = ?",
                               (passage["id"],)).fetchone()[0]
        expected = HashingEmbedder().embed_documents([passage["text"]])[0]
        assert np.array_equal(np.frombuffer(blob, dtype=np.float32), expected)


# -- a failed restore leaves the home as it was --------------------------------------------------
class FailingEmbedder(HashingEmbedder):
    """Fails on its second batch, half-way through re-embedding a snapshot."""

    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        self.calls += 1
        if self.calls == 2:
            raise RuntimeError("embedding service unavailable")
        return super().embed_documents(texts)


def _old_home(home: Path) -> dict[str, Any]:
    with make_memory(home) as m:
        m.add_fact("the old memory's fact")
        m.archival_insert("an old passage")
        before = m.snapshot()
    return before


def _sidecars(home: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in home.iterdir()
            if p.name.startswith(("archival.", "recall."))}


def test_a_restore_that_fails_midway_leaves_the_old_memory(tmp_path: Path) -> None:
    home = tmp_path / "home"
    before = _old_home(home)
    files = database_bytes(home), _sidecars(home)
    assert files[1]  # the FAISS files exist, and must survive the failure
    snap = small_snapshot()
    for table in ("passages", "messages"):
        for row in snap["tables"][table]:
            row["embedding"] = None  # so the restore re-embeds, in two batches
    embedder = FailingEmbedder()
    with pytest.raises(RuntimeError, match="unavailable"):
        HierarchicalMemory.restore(snap, home, embedder=embedder, replace=True)
    assert embedder.calls == 2
    assert (database_bytes(home), _sidecars(home)) == files
    assert leftovers(home) == []
    with make_memory(home) as m:
        assert m.snapshot() == before
    with HierarchicalMemory.restore(snap, home, embedder=HashingEmbedder(), replace=True) as m:
        check_restored(m)
        assert [f.text for f in m.facts()] == [f["text"] for f in _facts(snap)
                                                if f["forgotten_at"] is None]


def test_a_restore_that_fails_at_the_rename_leaves_the_old_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    before = _old_home(home)

    def disk_full(built: Path, target: Path) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(memory.store.sqlite.restore, "place", disk_full)
    with pytest.raises(OSError, match="No space"):
        _restore(small_snapshot(), home, replace=True)
    monkeypatch.undo()
    assert leftovers(home) == []
    with make_memory(home) as m:
        assert m.snapshot() == before
    with _restore(small_snapshot(), home, replace=True) as m:
        assert m.snapshot() == small_snapshot()


def test_without_replace_a_home_that_holds_a_memory_is_refused(tmp_path: Path) -> None:
    home = tmp_path / "home"
    before = _old_home(home)
    with pytest.raises(SnapshotError, match=r"already holds a memory.*replace=True"):
        _restore(small_snapshot(), home)
    assert leftovers(home) == []
    with make_memory(home) as m:
        assert m.snapshot() == before


def test_stale_restore_files_are_removed_on_open(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    for suffix in ("", "-wal", "-shm", "-journal"):
        (home / f"{RESTORE_PREFIX}123-deadbeef{suffix}").write_bytes(b"half a database")
    assert len(leftovers(home)) == 4
    with make_memory(home):
        assert leftovers(home) == []
