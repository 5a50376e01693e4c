"""SQLite is the source of truth: derived FAISS indexes, embedder checks and the writer
lock. (Transactions that leave memory as it was when they fail are checked on every
backend: tests/conformance/test_conformance_rollback.py.)"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from memory_helpers import check_archival_consistent, make_memory

from tiermem.memory.embed.embeddings import HashingEmbedder
from tiermem.memory.errors import EmbedderMismatchError, StoreLockedError
from tiermem.memory.hierarchy import HierarchicalMemory
from tiermem.memory.tiers.archival import NewPassage

REPO = Path(__file__).resolve().parents[1]
QUERIES = ("kubernetes pod restart", "billing invoice", "peanut allergy", "tokyo office")


def _fill(m: HierarchicalMemory) -> None:
    topics = ("kubernetes pod restart loop", "billing invoice overdue", "peanut allergy note",
              "tokyo office move", "berlin sushi place")
    for i in range(40):
        m.archival_insert(f"{topics[i % 5]} entry {i}", tags=[f"t{i % 3}"])
    for i in range(6):
        m.add_fact(f"fact {i} about the tokyo office", "durable")
    m.process_interaction("The kubernetes pod keeps restarting.", "Looking at it.")


def _answers(m: HierarchicalMemory) -> list[Any]:
    out = []
    for q in QUERIES:
        a = m.archival_search(q, k=15)
        r = m.recall_search(q, k=15)
        out.append((a.total, [(h.id, round(h.score, 9)) for h in a.hits],
                    r.total, [(h.id, round(h.score, 9)) for h in r.hits]))
    return out


def _passages(home: Path) -> int:
    """Passages on disk, read without opening the memory (readers need no lock)."""
    with sqlite3.connect(home / "memory.sqlite3") as conn:
        return int(conn.execute("SELECT count(*) FROM passages").fetchone()[0])


@pytest.fixture
def home(tmp_path: Path) -> Path:
    path = tmp_path / "agent"
    with make_memory(path, core_limit=20) as m:
        _fill(m)
    assert (path / "archival.faiss").exists() and (path / "recall.faiss").exists()
    return path


def test_reopen_loads_the_saved_index_and_keeps_working(home: Path) -> None:
    with make_memory(home) as m:
        assert not m.archival.vectors.rebuilt_on_open
        assert m.archival.vectors.index.d == m.embedder.dim
        m.archival_insert("another kubernetes pod restart")
        check_archival_consistent(m)
        assert m.archival_search("another kubernetes").hits[0].text == \
            "another kubernetes pod restart"
        reference = _answers(m)
    with make_memory(home) as m:
        assert not m.archival.vectors.rebuilt_on_open
        assert _answers(m) == reference
        m.archival.vectors.rebuild()
        assert _answers(m) == reference


@pytest.mark.parametrize("damage", ["delete", "garbage", "truncate", "generation", "sidecar"])
def test_damaged_index_is_rebuilt_and_answers_the_same(home: Path, damage: str) -> None:
    with make_memory(home) as m:
        reference = _answers(m)
    index_file, sidecar = home / "archival.faiss", home / "archival.json"
    if damage == "delete":
        index_file.unlink()
    elif damage == "garbage":
        index_file.write_bytes(os.urandom(4096))
    elif damage == "truncate":
        index_file.write_bytes(index_file.read_bytes()[:100])
    elif damage == "generation":
        info = json.loads(sidecar.read_text())
        info["generation"] -= 1
        sidecar.write_text(json.dumps(info))
    else:
        sidecar.write_text("{not json")
    with make_memory(home) as m:
        assert m.archival.vectors.rebuilt_on_open
        assert not m.recall.vectors.rebuilt_on_open
        check_archival_consistent(m)
        assert _answers(m) == reference


def test_stale_index_with_the_right_generation_but_wrong_count_is_rebuilt(home: Path) -> None:
    with make_memory(home) as m:
        reference = _answers(m)
        keep = m.archival.vectors.index
    # An index file from before the last insert, relabelled as current.
    with make_memory(home) as m:
        m.archival_insert("late kubernetes passage")
        reference = _answers(m)
    import faiss

    faiss.write_index(keep, str(home / "archival.faiss"))
    with make_memory(home) as m:
        assert m.archival.vectors.rebuilt_on_open
        assert _answers(m) == reference


def test_index_is_rebuilt_when_the_database_moved_on_without_it(home: Path) -> None:
    # A writer that died without saving the index leaves an older file behind.
    saved = (home / "archival.faiss").read_bytes(), (home / "archival.json").read_text()
    with make_memory(home) as m:
        m.archival_insert("kubernetes pod restart after the crash")
    (home / "archival.faiss").write_bytes(saved[0])
    (home / "archival.json").write_text(saved[1])
    with make_memory(home) as m:
        assert m.archival.vectors.rebuilt_on_open
        check_archival_consistent(m)
        top = m.archival_search("kubernetes pod restart after the crash").hits[0]
        assert top.text == "kubernetes pod restart after the crash"


# -- embedder identity -----------------------------------------------------------------------


def test_a_different_embedder_is_refused_naming_both(home: Path) -> None:
    with pytest.raises(EmbedderMismatchError) as info:
        make_memory(home, embedder=HashingEmbedder(dim=128))
    message = str(info.value)
    assert "hashing-uni-bi-256" in message and "hashing-uni-bi-128" in message
    assert "256" in message and "128" in message
    # The refusal released the home: the right embedder opens it.
    with make_memory(home) as m:
        assert len(m.archival) == _passages(home) > 40


def test_an_empty_store_accepts_a_new_embedder(tmp_path: Path) -> None:
    path = tmp_path / "agent"
    make_memory(path).close()
    with make_memory(path, embedder=HashingEmbedder(dim=128)) as m:
        assert m.store.settings.get("embedder_id") == "hashing-uni-bi-128"
        m.archival_insert("now embedded at 128")
        assert m.archival.vectors.index.d == 128
    with pytest.raises(EmbedderMismatchError):
        make_memory(path)


def test_facts_alone_do_not_pin_the_embedder(tmp_path: Path) -> None:
    path = tmp_path / "agent"
    with make_memory(path, recall_dense=False) as m:
        m.add_fact("User is allergic to peanuts")
    with make_memory(path, embedder=HashingEmbedder(dim=64)) as m:
        assert [f.text for f in m.core] == ["User is allergic to peanuts"]


# -- single writer ---------------------------------------------------------------------------


def _child(code: str, **kwargs: Any) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=REPO, env=env,
                          capture_output=True, text=True, **kwargs)


_OPEN_IN_CHILD = """
    import sys
    from tiermem.memory.embed.embeddings import HashingEmbedder
    from tiermem.memory.errors import StoreLockedError
    from tiermem.memory.hierarchy import HierarchicalMemory
    try:
        m = HierarchicalMemory(sys.argv[1], embedder=HashingEmbedder())
    except StoreLockedError as exc:
        print("LOCKED", exc.holder_pid, exc)
        sys.exit(3)
    print("OPENED", len(m.archival))
    m.close()
"""


def test_a_second_process_is_refused_with_the_holders_pid(home: Path) -> None:
    count = _passages(home)
    m = make_memory(home)
    try:
        refused = _child(_OPEN_IN_CHILD.replace("sys.argv[1]", repr(str(home))))
        assert refused.returncode == 3, refused.stderr
        assert refused.stdout.startswith(f"LOCKED {os.getpid()} ")
        assert f"process {os.getpid()}" in refused.stdout
        assert len(m.archival) == count  # the holder is unaffected
        m.archival_insert("written while the other process was refused")
    finally:
        m.close()
    opened = _child(_OPEN_IN_CHILD.replace("sys.argv[1]", repr(str(home))))
    assert opened.returncode == 0, opened.stderr
    assert opened.stdout.strip() == f"OPENED {count + 1}"


def test_the_parent_is_refused_while_a_child_holds_the_home(home: Path) -> None:
    count = _passages(home)
    code = _OPEN_IN_CHILD.replace('print("OPENED", len(m.archival))',
                                  'print("OPENED", flush=True); sys.stdin.readline()')
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    child = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(code.replace("sys.argv[1]", repr(str(home))))],
        cwd=REPO, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None and child.stdin is not None
        assert child.stdout.readline().strip() == "OPENED"
        with pytest.raises(StoreLockedError) as info:
            make_memory(home)
        assert info.value.holder_pid == child.pid
        assert str(child.pid) in str(info.value)
        child.stdin.write("\n")
        child.stdin.flush()
        assert child.wait() == 0
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    with make_memory(home) as m:
        assert len(m.archival) == count


def test_a_second_memory_in_the_same_process_is_refused(home: Path) -> None:
    count = _passages(home)
    with make_memory(home) as first:
        with pytest.raises(StoreLockedError, match=str(os.getpid())):
            make_memory(home)
        first.archival_insert("still writable")
    with make_memory(home) as again:
        assert len(again.archival) == count + 1


def test_passage_ids_are_right_when_the_largest_rowid_is_taken() -> None:
    # Past SQLite's last rowid, new rows get random ids: they must still be the ones returned.
    with make_memory() as m:
        m.archival_insert("an ordinary passage")
        with m.store.transaction():
            m.store.import_rows("passages", [{
                "id": 2**63 - 1, "text": "the passage with the last rowid", "created_at": 1.0,
                "tags": "[]", "metadata": "{}", "source": "", "was_in_core": 0,
                "evicted_at": None, "fact_id": None, "embedder_id": None, "embedding": None}])
        ids = m.archival.insert_many([NewPassage(text="first newcomer"),
                                      NewPassage(text="second newcomer")])
        found = m.store.passages.get_many(ids)
        assert [found[i].text for i in ids] == ["first newcomer", "second newcomer"]
        assert m.archival_search("newcomer").total == 2
