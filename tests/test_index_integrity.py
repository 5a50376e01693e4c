"""FAISS files are trusted only when their bytes and their database are the ones the
sidecar vouches for: damaged bytes or a swapped database mean a rebuild."""

from __future__ import annotations

import json
import logging
import os
import shutil
import signal
from pathlib import Path

import numpy as np
import pytest
from memory_helpers import make_memory

from tiermem.bench.fault_os import Report, run_forked
from tiermem.memory.hierarchy import HierarchicalMemory
from tiermem.memory.store.sqlite import vector_files
from tiermem.memory.store.sqlite import vectors as vector_index

PASSAGES = ["invoices are due monthly", "cats purr when they are content",
            "the deploy runs every friday", "tokyo office moved to shibuya"]


def _dense_top(m: HierarchicalMemory, query: str) -> str:
    """The text of the row FAISS puts first for ``query`` (the dense side alone)."""
    ids, _ = m.archival.vectors.search(m.embedder.embed_query(query), 1)
    return m.archival.get_many([int(ids[0])])[int(ids[0])].text


def _make(home: Path, passages: list[str]) -> None:
    with make_memory(home) as m:
        for text in passages:
            m.archival_insert(text)


def test_garbled_vector_bytes_are_rebuilt_and_healed(tmp_path: Path) -> None:
    home = tmp_path / "agent"
    _make(home, PASSAGES)
    index_file = home / "archival.faiss"
    clean = index_file.read_bytes()
    # Flip bytes inside the vectors: the file still parses, with wrong numbers in it.
    garbled = bytearray(clean)
    middle = len(garbled) // 2
    garbled[middle : middle + 64] = bytes(b ^ 0x5A for b in garbled[middle : middle + 64])
    index_file.write_bytes(bytes(garbled))
    import faiss

    assert faiss.read_index(str(index_file)).ntotal == len(PASSAGES)  # loads without complaint
    with make_memory(home) as m:
        assert m.archival.vectors.rebuilt_on_open
        assert m.archival.vectors.differences() == []
        for text in PASSAGES:
            assert _dense_top(m, text) == text
    # Closing wrote a sound index back: the next open trusts it.
    assert index_file.read_bytes() == clean
    with make_memory(home) as m:
        assert not m.archival.vectors.rebuilt_on_open
        assert m.archival.vectors.differences() == []


def test_an_index_saved_for_another_database_is_not_used(tmp_path: Path) -> None:
    ours, theirs = tmp_path / "ours", tmp_path / "theirs"
    _make(ours, PASSAGES)
    # Same count and generation, the rows in another order.
    _make(theirs, list(reversed(PASSAGES)))
    assert json.loads((ours / "archival.json").read_text())["generation"] == json.loads(
        (theirs / "archival.json").read_text())["generation"]
    shutil.copyfile(theirs / "memory.sqlite3", ours / "memory.sqlite3")
    with make_memory(ours) as m:
        assert m.archival.vectors.rebuilt_on_open
        assert m.archival.vectors.differences() == []
        assert _dense_top(m, "cats purr") == "cats purr when they are content"
        assert m.archival_search("cats purr").hits[0].text == "cats purr when they are content"
        assert all(h.text != "invoices are due monthly"
                   for h in m.archival_search("cats purr").hits if h.score >= 0.4)


def test_a_damaged_prefilter_copy_is_not_trusted(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(vector_index, "PREFILTER_MIN_ROWS", 10)
    home = tmp_path / "agent"
    with make_memory(home) as m:
        for i in range(40):
            m.archival_insert(f"note {i} about topic {i % 13} and item {i * 7}")
        expected = [h.id for h in m.archival_search("topic 5 item", k=5).hits]
        assert m.archival.vectors.prefilter is not None
    copy = home / "archival.sq8"
    data = bytearray(copy.read_bytes())
    data[-200:-100] = bytes(100)  # codes zeroed: still a readable index
    copy.write_bytes(bytes(data))
    with make_memory(home) as m:
        assert not m.archival.vectors.rebuilt_on_open  # the float index itself is sound
        assert m.archival.vectors.prefilter is None
        assert [h.id for h in m.archival_search("topic 5 item", k=5).hits] == expected
        assert m.archival.vectors.prefilter is not None  # built again from the floats


@pytest.mark.parametrize("garbled", ["archival.json", "archival.faiss"])
def test_the_rebuild_warning_names_the_file_that_could_not_be_read(
        tmp_path: Path, caplog: pytest.LogCaptureFixture, garbled: str) -> None:
    home = tmp_path / "agent"
    _make(home, PASSAGES)
    (home / garbled).write_bytes(b"\xff\xfe not what was saved")
    with caplog.at_level("WARNING"), make_memory(home) as m:
        assert m.archival.vectors.rebuilt_on_open
        assert _dense_top(m, "cats purr") == "cats purr when they are content"
    other = "archival.faiss" if garbled == "archival.json" else "archival.json"
    warnings = [r.getMessage() for r in caplog.records
                if r.getMessage().startswith("rebuilding passages index")]
    assert len(warnings) == 1, warnings
    assert str(home / garbled) in warnings[0] and other not in warnings[0], warnings


@pytest.mark.parametrize("saved_before", [False, True])
def test_a_save_killed_before_its_sidecar_is_rebuilt_without_a_warning(
        tmp_path: Path, caplog: pytest.LogCaptureFixture, saved_before: bool) -> None:
    home = tmp_path / "agent"
    if saved_before:
        _make(home, PASSAGES[:1])

    def save_then_die(report: Report) -> None:
        with make_memory(home) as m:
            # The index file is in place when the parts after it are written: the process
            # dies there, before the sidecar.
            vector_files._save_part = lambda *a: os.kill(os.getpid(), signal.SIGKILL)  # type: ignore[assignment]
            for text in PASSAGES[1:]:
                m.archival_insert(text)
        report("survived the kill")

    outcome = run_forked(save_then_die)
    assert outcome.killed and outcome.lines == []
    assert (home / "archival.faiss").exists()
    assert (home / "archival.json").exists() == saved_before
    with caplog.at_level(logging.INFO), make_memory(home) as m:
        assert m.archival.vectors.rebuilt_on_open
        assert _dense_top(m, "cats purr") == "cats purr when they are content"
    rebuilt = [r for r in caplog.records if r.getMessage().startswith("rebuilding passages")]
    # A crash between the two writes is expected (the module docstring): no warning.
    assert [r.levelno for r in rebuilt] == [logging.INFO], [r.getMessage() for r in rebuilt]


def test_an_index_an_older_tiermem_saved_is_rebuilt_once_without_a_warning(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """After an upgrade: the files of a version that did not record the database's id are
    rebuilt (they cannot be matched to it), and saved with it, without alarming anyone."""
    home = tmp_path / "agent"
    _make(home, PASSAGES)
    sidecar = home / "archival.json"
    older = {k: v for k, v in json.loads(sidecar.read_text()).items()
             if k in ("generation", "dim", "count")}  # all an older tiermem wrote
    sidecar.write_text(json.dumps(older))
    with caplog.at_level(logging.INFO), make_memory(home) as m:
        assert m.archival.vectors.rebuilt_on_open
        assert _dense_top(m, "cats purr") == "cats purr when they are content"
    rebuilt = [r for r in caplog.records if r.getMessage().startswith("rebuilding passages")]
    assert [(r.levelno, r.getMessage()) for r in rebuilt] == [(
        logging.INFO, "rebuilding passages index: the file was saved by an older tiermem, "
                      "which did not record the database it belongs to; it is rebuilt once")]
    caplog.clear()
    with caplog.at_level(logging.INFO), make_memory(home) as m:
        assert not m.archival.vectors.rebuilt_on_open


def test_the_sidecar_records_the_store_id_and_checksums(tmp_path: Path) -> None:
    home = tmp_path / "agent"
    _make(home, PASSAGES)
    info = json.loads((home / "archival.json").read_text())
    with make_memory(home) as m:
        assert info["store_id"] == m.store.store_id and len(info["store_id"]) == 32
    import hashlib

    assert info["sha256"] == hashlib.sha256((home / "archival.faiss").read_bytes()).hexdigest()


def test_differences_names_what_disagrees() -> None:
    with make_memory() as m:
        for text in PASSAGES:
            m.archival_insert(text)
        assert m.archival.vectors.differences() == []
        m.archival.vectors.index.remove_ids(np.asarray([2], dtype=np.int64))
        m.archival.vectors.index.add_with_ids(np.ones((1, m.embedder.dim), dtype=np.float32),
                                              np.asarray([9], dtype=np.int64))
        found = m.archival.vectors.differences()
        assert any("FAISS but not in SQLite: [9]" in p for p in found)
        assert any("SQLite but not in FAISS: [2]" in p for p in found)


@pytest.mark.parametrize("fails", ["index", "sidecar"])
def test_a_full_disk_while_saving_the_index_at_close_is_no_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fails: str) -> None:
    import errno

    home = tmp_path / "agent"
    _make(home, PASSAGES)
    full = OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    if fails == "index":
        def short_write(index: object, path: Path) -> None:
            path.write_bytes(b"\0" * 10)  # what FAISS had written when the disk filled
            raise full

        monkeypatch.setattr(vector_files, "write_index", short_write)
    else:
        real_write_text = Path.write_text

        def refusing(path: Path, *args: object, **kwargs: object) -> int:
            if path.name.endswith(".json.tmp"):
                path.touch()
                raise full
            return real_write_text(path, *args, **kwargs)  # type: ignore[arg-type]

        monkeypatch.setattr(Path, "write_text", refusing)
    with make_memory(home) as m:
        m.archival_insert("the backup job runs nightly")  # so the close saves again
    monkeypatch.undo()
    assert sorted(p.name for p in home.iterdir() if p.name.endswith(".tmp")) == []
    with make_memory(home) as m:  # the files no longer match: rebuilt from the database
        assert _dense_top(m, "the backup job runs nightly") == "the backup job runs nightly"
        assert len(m.archival.vectors) == len(PASSAGES) + 1


def test_an_index_write_that_fails_raises_and_leaves_no_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import errno
    import io

    import faiss

    from tiermem.memory.store.sqlite import index_io

    class FillingDisk(io.FileIO):
        def write(self, data: object) -> int:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    index = faiss.IndexFlatIP(4)
    index.add(np.eye(4, dtype=np.float32))
    monkeypatch.setattr(index_io, "open", lambda path, mode: FillingDisk(path, "w"),
                        raising=False)
    target = tmp_path / "archival.tmp"
    with pytest.raises(OSError, match="No space left"):
        index_io.write_index(index, target)  # faiss.write_index(index, str) would not raise
    assert not target.exists()
    monkeypatch.undo()
    index_io.write_index(index, target)
    assert faiss.read_index(str(target)).ntotal == 4
