"""Snapshots of any size written in bounded memory: a row at a time, the bytes
``json.dumps(memory.snapshot())`` gives, whole or not at all; a long snapshot or restore
says how far it is."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from snapshot_helpers import restore, small_snapshot

from tiermem.agent.store_commands import PROGRESS_ROWS, snapshot_progress
from tiermem.memory.errors import InvalidInputError
from tiermem.memory.ops.snapshot import snapshot_text
from tiermem.memory.output_file import write_atomic_pieces


@pytest.fixture
def memory(tmp_path: Path) -> Iterator[Any]:
    with restore(small_snapshot(), tmp_path / "home") as m:
        yield m


def test_the_file_written_is_json_dumps_of_the_snapshot_byte_for_byte(
        memory: Any, tmp_path: Path) -> None:
    expected = json.dumps(memory.snapshot())
    memory.write_snapshot(tmp_path / "a.json")
    assert (tmp_path / "a.json").read_text() == expected
    assert (tmp_path / "a.json").stat().st_mode & 0o777 == 0o600
    without = json.dumps(memory.snapshot(include_vectors=False))
    memory.write_snapshot(tmp_path / "b.json", include_vectors=False)
    assert (tmp_path / "b.json").read_text() == without


def test_the_writer_holds_one_row_at_a_time(memory: Any) -> None:
    store = memory.store
    fetched = {"rows": 0}
    export = store.export_rows

    def counted(table: Any) -> Iterator[Any]:
        for row in export(table):
            fetched["rows"] += 1
            yield row

    store.export_rows = counted
    try:
        ahead = 0
        for pieces, _ in enumerate(snapshot_text(memory), start=1):
            # Every row read is written as its own piece before the next is read.
            ahead = max(ahead, fetched["rows"] - pieces)
    finally:
        del store.export_rows
    assert fetched["rows"] > 10 and ahead <= 0


def test_a_write_stopped_midway_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "snap.json"
    target.write_text("old")

    def pieces() -> Iterator[str]:
        yield "{"
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        write_atomic_pieces(target, pieces(), private=True)
    assert target.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["snap.json"]


def test_a_file_that_is_no_path_is_invalid_input_and_writes_nothing(memory: Any,
                                                                    tmp_path: Path) -> None:
    for bad in (None, 3, b"snap.json"):
        with pytest.raises(InvalidInputError, match=r"file must be the snapshot file's path"):
            memory.write_snapshot(bad)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["home"]
    memory.write_snapshot(str(tmp_path / "snap.json"))  # a str is a path too
    assert json.loads((tmp_path / "snap.json").read_text()) == memory.snapshot()


def test_progress_says_how_far_a_long_step_is_and_nothing_for_a_short_one() -> None:
    lines: list[str] = []
    now = [0.0]
    progress = snapshot_progress(lines.append, clock=lambda: now[0])
    progress("snapshot", 1000, 900)  # a short one, done
    assert lines == []
    total = 3 * PROGRESS_ROWS + 10
    for done in range(1000, total, 1000):
        progress("restoring", done, total)
    progress("restoring", total, total)
    assert lines == [f"restore: {n:,} of {total:,} rows written"
                     for n in (PROGRESS_ROWS, 2 * PROGRESS_ROWS, 3 * PROGRESS_ROWS, total)]
    lines.clear()
    progress("reading", 1_000_000, 10_000_000)
    now[0] = 60.0  # a slow one says how far it is all the same
    progress("reading", 2_000_000, 10_000_000)
    progress("reading", 10_000_000, 10_000_000)
    assert lines == ["restore: 2 of 10 MB of the snapshot read and checked",
                     "restore: 10 of 10 MB of the snapshot read and checked"]


def test_a_slow_restore_through_the_progress_lines_ends_in_the_restored_memory(
        memory: Any, tmp_path: Path) -> None:
    """The restore says once that its memory is in place (``"committed"``): that is no
    amount of work, so the lines say nothing of it, however long the restore took."""
    memory.write_snapshot(tmp_path / "s.json")
    lines: list[str] = []
    ticks = iter(range(0, 10**6, 60))  # every step reads the clock a minute on
    with restore(tmp_path / "s.json", tmp_path / "copy", progress=snapshot_progress(
            lines.append, clock=lambda: float(next(ticks)))) as restored:
        assert restored.snapshot()["tables"] == memory.snapshot()["tables"]
    assert lines and all(line.startswith("restore: ") for line in lines)
    assert not any("committed" in line for line in lines)


@pytest.mark.parametrize("step", ["a row", "the count"])
def test_an_sqlite_failure_reading_the_memory_is_a_store_error_and_writes_nothing(
        memory: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, step: str) -> None:
    """A failure SQLite names no known cause for (here a table another program dropped), as
    the snapshot reads the rows: said as the memory not read, with what to do, not as
    sqlite3's own error; the file there before is kept."""
    import sqlite3

    from tiermem.memory.errors import StoreError
    from tiermem.memory.store.sqlite import SQLiteStore

    execute = SQLiteStore.execute
    failing = "SELECT * FROM passages" if step == "a row" else "SELECT count(*) FROM passages"

    def dropped(self: SQLiteStore, sql: str, *args: Any) -> Any:
        if sql.startswith(failing):
            raise sqlite3.OperationalError("no such table: passages")
        return execute(self, sql, *args)

    target = tmp_path / "snap.json"
    target.write_text("the snapshot taken before")
    monkeypatch.setattr(SQLiteStore, "execute", dropped)
    with pytest.raises(StoreError) as raised:
        memory.write_snapshot(target, progress=lambda *_: None)
    said = str(raised.value)
    assert said.startswith(f"cannot read the passages table of the memory database in "
                           f"{tmp_path / 'home'} (no such table: passages); nothing was "
                           f"changed. Check that no other program"), said
    assert "tiermem restore FILE --agent NEW" in said
    assert target.read_text() == "the snapshot taken before"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["home", "snap.json"]  # no temporary
