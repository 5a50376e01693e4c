"""Restore trusts nothing in a snapshot: a crafted column name never reaches SQL, and each
value out of bounds is refused naming its place, leaving nothing behind."""

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
from snapshot_helpers import (
    Snap,
    check_restored,
    contains_anywhere,
    facts_of,
    leftovers,
    restore,
    row_index,
    small_snapshot,
)

from tiermem.memory.errors import SnapshotError
from tiermem.memory.validation import MAX_TEXT_CHARS

EVIL_COLUMN = (
    "id, text, norm, durability, tier, created_at, created_tick, last_access,"
    " last_counted_tick, tokens) SELECT ?, 'INJECTED ' || sqlite_version(), 'injected',"
    " 'durable', 'core', 0, 0, 0, 0, 1 --"
)


@pytest.mark.parametrize("on_disk", [False, True])
def test_a_crafted_column_name_never_reaches_sql(tmp_path: Path, on_disk: bool) -> None:
    snap = small_snapshot()
    facts_of(snap).append({**facts_of(snap)[0], "id": 99, "text": "an innocent fact",
                         EVIL_COLUMN: 99})
    home = tmp_path / "home"
    with pytest.raises(SnapshotError, match="Extra inputs are not permitted") as info:
        restore(snap, home if on_disk else None)
    index = len(facts_of(snap)) - 1
    assert info.value.fields[0].startswith(f"tables.facts[{index}].id, text, norm")
    assert "tables.facts" in str(info.value)
    if on_disk:
        assert not (home / "memory.sqlite3").exists()
        if home.exists():
            assert not contains_anywhere(home, f"INJECTED {sqlite3.sqlite_version}".encode())


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
    facts_of(snap)[1]["id"] = facts_of(snap)[0]["id"]


def _same_fact_twice(snap: Snap) -> None:
    facts_of(snap)[1]["text"] = facts_of(snap)[0]["text"].upper()


def _archived_without_passage(snap: Snap) -> None:
    i = row_index(facts_of(snap), tier="archival")
    facts_of(snap)[i]["passage_id"] = None


def _vector_of(snap: Snap, values: Sequence[float]) -> None:
    vector = np.zeros(snap["settings"]["embedder_dim"], dtype=np.float32)
    vector[: len(values)] = values
    snap["tables"]["passages"][0]["embedding"] = base64.b64encode(vector.tobytes()).decode()


def _hits_over_searches(snap: Snap) -> None:
    snap["settings"]["archival_searches_with_hits"] = snap["settings"]["archival_searches"] + 1


def _tick_below_history(snap: Snap) -> None:
    snap["settings"]["tick"] = 0


def _archived_with_forgotten_passage(snap: Snap) -> None:
    fact = facts_of(snap)[row_index(facts_of(snap), tier="archival", forgotten_at=None)]
    passages = snap["tables"]["passages"]
    passages[row_index(passages, id=fact["passage_id"])]["forgotten_at"] = 0


def _dangling_passage(snap: Snap) -> None:
    i = row_index(facts_of(snap), tier="archival")
    facts_of(snap)[i]["passage_id"] = 9999


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
    ("an archived fact whose passage is forgotten", _archived_with_forgotten_passage,
     "passage_id"),
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
    # A row's text or a state value holding one restores with U+FFFD in its place, as an
    # older version could write it (tests/test_restore_unstorable.py); nothing else does.
    ("a NUL in the embedder id", _set("settings", "embedder_id", value="hashing\x00"),
     "settings.embedder_id"),
    ("a lone surrogate in the embedder id", _set("settings", "embedder_id", value="h\ud800"),
     "settings.embedder_id"),
    ("a lone surrogate in a column name", _set("tables", "messages", 0, "cont\ud800",
                                               value="hi"), "tables.messages[0]"),
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
        restore(json.loads(json.dumps(snap)), home)
    assert any(f.startswith(field) or f.endswith(field) for f in info.value.fields), (
        info.value.fields, str(info.value))
    assert not (home / "memory.sqlite3").exists()
    assert leftovers(home) == []
    restore(small_snapshot(), home).close()  # and the directory takes a good one


def test_a_valid_snapshot_passes_every_check(tmp_path: Path) -> None:
    snap = small_snapshot()
    assert all(snap["tables"][t] for t in snap["tables"])  # something in every table
    with restore(snap) as m:
        check_restored(m)
        assert m.snapshot() == snap
    with restore(snap, tmp_path / "home") as m:
        check_restored(m)
        assert m.snapshot() == snap


@pytest.mark.parametrize(("fmt", "newer"), [
    ("tiermem-snapshot/3", True), ("tiermem-snapshot/10", True), ("tiermem-snapshot/0", False),
    ("tiermem-snapshot/" + "9" * 5000, True), ("tiermem-snapshot/002", False),
    ("tiermem-snapshot/x", False), ("something else", False), (3, False)])
def test_a_later_format_says_to_upgrade_and_any_other_says_what_a_snapshot_is(
        tmp_path: Path, fmt: Any, newer: bool) -> None:
    snap = small_snapshot()
    snap["format"] = fmt
    with pytest.raises(SnapshotError) as info:
        restore(snap, tmp_path / "home")
    said = str(info.value)
    assert info.value.fields == ("format",)
    assert ("a newer version of tiermem wrote" in said and "install a newer tiermem" in said
            ) == newer, said
    assert said.startswith("not a tiermem snapshot") != newer, said
    assert not (tmp_path / "home" / "memory.sqlite3").exists()


def test_a_file_name_given_as_a_str_says_to_pass_a_path(tmp_path: Path) -> None:
    # The skill card restores a file as restore(Path(path)); a str named no snapshot, and
    # was told to pass the dict snapshot() returns, with no word of the Path it wanted.
    (tmp_path / "s.json").write_text(json.dumps(small_snapshot()))
    for given in (str(tmp_path / "s.json"), json.dumps(small_snapshot())):
        with pytest.raises(SnapshotError, match=r"as a pathlib.Path, not a str: pass Path"):
            restore(given, tmp_path / "home")
    assert not (tmp_path / "home" / "memory.sqlite3").exists()
    with restore(tmp_path / "s.json", tmp_path / "home") as m, restore(small_snapshot()) as d:
        assert [f.text for f in m.facts()] == [f.text for f in d.facts()] != []


def test_replacing_a_memory_a_reader_holds_is_no_fault_of_the_snapshot(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from tiermem.cli import main
    from tiermem.memory import HashingEmbedder, HierarchicalMemory
    from tiermem.memory.errors import StoreError

    monkeypatch.setenv("TIERMEM_HOME", str(tmp_path))
    home = tmp_path / "agents" / "a"
    with HierarchicalMemory(home, embedder=HashingEmbedder()) as memory:
        memory.add_fact("User lives in Lisbon")
        snapshot = memory.snapshot()
    (tmp_path / "a.json").write_text(json.dumps(snapshot))
    with HierarchicalMemory(home, embedder=HashingEmbedder(), read_only=True) as reader:
        reader.facts()  # a reader's connection holds the database open
        with pytest.raises(StoreError, match="is open in another process") as refused:
            HierarchicalMemory.restore(snapshot, home, replace=True, embedder=HashingEmbedder())
        assert not isinstance(refused.value, SnapshotError)
        # Exit 1, as for a memory in use, not 2 (a file that is no snapshot), nor blaming it.
        assert main(["restore", str(tmp_path / "a.json"), "--agent", "a", "--replace"]) == 1
        said = capsys.readouterr().err
        assert "close every session reading it, then restore again" in said
        assert "a.json cannot be restored" not in said
        assert [f.text for f in reader.facts()] == ["User lives in Lisbon"]


ADVICE = ("if the snapshot was edited by hand or written by another program, restore one as "
          "tiermem wrote it (HierarchicalMemory.snapshot(), write_snapshot() or /snapshot); "
          "if tiermem wrote it as it is, report that as a defect in tiermem, with the "
          "snapshot file")


def _status_edited(snap: Snap) -> None:
    snap["tables"]["messages"][0]["status"] = "Done"


def _fact_id_repeated(snap: Snap) -> None:
    facts_of(snap).append({**facts_of(snap)[0], "text": "User plays chess"})


@pytest.mark.parametrize(("edit", "says"), [
    (_status_edited, "tables.messages[0].status: String should match pattern "
                     "'^[a-z_]{1,32}$'"),
    (_fact_id_repeated, f"tables.facts[{len(facts_of(small_snapshot()))}].id: 1 is also the "
                        f"id of tables.facts[0]"),
])
def test_a_refused_snapshot_says_what_to_do_whoever_wrote_it(
    edit: Callable[[Snap], None], says: str
) -> None:
    snap = small_snapshot()
    edit(snap)
    with pytest.raises(SnapshotError) as info:
        restore(snap)
    assert str(info.value) == f"invalid snapshot: {says}; {ADVICE}"
