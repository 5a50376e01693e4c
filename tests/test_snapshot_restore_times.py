"""Restore reads the times an older version stored in milliseconds as seconds, and refuses
one that is no date whatever its unit, naming its field."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from memory_helpers import make_memory
from snapshot_helpers import (
    Snap,
    check_restored,
    facts_of,
    restore,
    small_snapshot,
)

from tiermem.memory.errors import SnapshotError
from tiermem.memory.validation import EARLIEST_TIME, LATEST_TIME, MAX_TEXT_CHARS

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
    with restore(json.loads(json.dumps(snap)), tmp_path / "home" if on_disk else None) as m:
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
    with restore(snap) as m:
        row = m.snapshot()["tables"]["passages"][0]
    assert (row["id"], row["created_at"]) == (passage["id"], restored)


def test_a_time_past_the_year_9999_even_in_milliseconds_names_its_field() -> None:
    snap = small_snapshot()
    snap["tables"]["events"][1]["created_at"] = 1e16
    with pytest.raises(SnapshotError, match=r"tables\.events\[1\]\.created_at: must be Unix "
                                            r"seconds \(or milliseconds\) of a date") as info:
        restore(snap)
    assert info.value.fields == ("tables.events[1].created_at",)


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
    facts_of(snap)[1][field] = value
    home = tmp_path / "home"
    with pytest.raises(SnapshotError, match=rf"tables\.facts\[1\]\.{field}: must be") as info:
        restore(snap, home)
    assert info.value.fields == (f"tables.facts[1].{field}",)
    assert not (home / "memory.sqlite3").exists()


def test_wall_clock_access_times_in_milliseconds_are_restored_as_seconds() -> None:
    snap = _wall_clock_snapshot()
    assert {f["last_access"] for f in facts_of(snap)} == {WALL_NOW}
    for fact in facts_of(snap):
        fact["last_access"] = fact["created_tick"] = WALL_NOW * 1000 + 123
    _superseded(snap)["metadata"] = json.dumps({"superseded_at": WALL_NOW * 1000 + 123})
    with restore(snap) as m:
        again = m.snapshot()
    assert {(f["last_access"], f["created_tick"]) for f in facts_of(again)} == {
        (WALL_NOW + 0.123, WALL_NOW + 0.123)}
    assert json.loads(_superseded(again)["metadata"]) == {"superseded_at": WALL_NOW + 0.123}


def test_on_the_interaction_clock_a_large_access_tick_is_left_as_it_is() -> None:
    snap = small_snapshot()
    assert snap["config"]["clock"] == "logical"
    snap["settings"]["tick"] = int(WALL_NOW * 1000)
    facts_of(snap)[0]["last_access"] = WALL_NOW * 1000  # a count, not a time
    with restore(snap) as m:
        assert facts_of(m.snapshot())[0]["last_access"] == WALL_NOW * 1000


# An integer past any float cannot even be divided as milliseconds.
@pytest.mark.parametrize("when", [1e300, 10**400], ids=["a float", "a huge integer"])
def test_a_superseded_time_that_is_no_date_is_refused_naming_its_passage(when: float) -> None:
    snap = _wall_clock_snapshot()
    passage = _superseded(snap)
    passage["metadata"] = json.dumps({"superseded_at": when})
    i = snap["tables"]["passages"].index(passage)
    with pytest.raises(SnapshotError, match=r"superseded_at must be Unix seconds") as info:
        restore(snap)
    assert info.value.fields == (f"tables.passages[{i}].metadata",)


def test_a_superseded_time_in_milliseconds_keeps_its_metadata_within_the_bound() -> None:
    # Near the bound with its characters as they are; about six times over it were each
    # written as a \u escape when the time is rewritten in seconds.
    note = "é" * (MAX_TEXT_CHARS - 100)
    snap = _wall_clock_snapshot()
    _superseded(snap)["metadata"] = json.dumps(
        {"note": note, "superseded_at": WALL_NOW * 1000}, ensure_ascii=False)
    with restore(snap) as m:
        again = json.loads(json.dumps(m.snapshot()))
    stored = _superseded(again)["metadata"]
    assert len(stored) <= MAX_TEXT_CHARS
    assert json.loads(stored) == {"note": note, "superseded_at": WALL_NOW}
    restore(again).close()  # and that snapshot restores in turn


def test_a_superseded_key_that_is_no_number_is_a_callers_own() -> None:
    snap = small_snapshot()
    snap["tables"]["passages"][0]["metadata"] = json.dumps({"superseded_at": "v2 docs"})
    with restore(snap) as m:
        restored = m.snapshot()["tables"]["passages"][0]["metadata"]
    assert json.loads(restored) == {"superseded_at": "v2 docs"}
