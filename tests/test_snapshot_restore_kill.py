"""A restore killed with SIGKILL leaves the old memory or the new one, and a retry works.

The child restores with ``replace=True`` over a memory whose last commits are
still in its WAL (its writer was killed too). At a chosen point the child
writes to a pipe and waits; the parent kills it as soon as it reads from the
pipe, so every kill lands at the same place on every run.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from memory_helpers import make_memory
from snapshot_helpers import check_restored, leftovers, small_snapshot

from tiermem.memory.embed.embeddings import HashingEmbedder
from tiermem.memory.hierarchy import HierarchicalMemory

REPO = Path(__file__).resolve().parents[1]
OLD_FACTS = [f"old fact number {i} about the staging cluster" for i in range(5)]

# Writes the old memory and dies without closing it, so its last commits stay in the WAL.
SEED = textwrap.dedent("""
    import os, signal, sys
    from tiermem.memory.embed.embeddings import HashingEmbedder
    from tiermem.memory.hierarchy import HierarchicalMemory

    m = HierarchicalMemory(sys.argv[1], embedder=HashingEmbedder())
    for text in sys.argv[2:]:
        m.add_fact(text)
    m.archival_insert("an old passage about the staging cluster")
    os.kill(os.getpid(), signal.SIGKILL)
""")

# Restores, stopping at ``point`` until killed: after every row is written (inside
# the transaction), just before the rename that installs the new database, or just after.
RESTORE = textwrap.dedent("""
    import json, os, signal, sys
    import tiermem.memory.store.sqlite.restore as restore_file
    import tiermem.memory.ops.snapshot_rows as snapshot_rows
    from tiermem.memory.embed.embeddings import HashingEmbedder
    from tiermem.memory.hierarchy import HierarchicalMemory

    home, snapshot_file, point, ready = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])

    def wait_for_the_kill():
        os.write(ready, b"x")
        while True:
            signal.pause()

    embed_missing, place = snapshot_rows._embed_missing, restore_file.place

    def written(*args):
        embed_missing(*args)
        wait_for_the_kill()

    def placing(built, target):
        if point == "after_rename":
            place(built, target)
        wait_for_the_kill()

    snapshot_rows._embed_missing = written if point == "writing" else embed_missing
    restore_file.place = placing
    with open(snapshot_file) as f:
        HierarchicalMemory.restore(json.load(f), home, embedder=HashingEmbedder(),
                                   replace=os.path.exists(os.path.join(home, "memory.sqlite3")))
    os.write(ready, b"finished without being stopped")
""")


def _run(script: str, *args: str) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.Popen([sys.executable, "-c", script, *args], cwd=REPO, env=env,
                            stderr=subprocess.PIPE)


def _seed_old_memory(home: Path) -> None:
    child = _run(SEED, str(home), *OLD_FACTS)
    _, err = child.communicate(timeout=120)
    assert child.returncode == -signal.SIGKILL, err.decode()
    assert (home / "memory.sqlite3-wal").stat().st_size > 0  # commits only in the WAL


def _kill_restore_at(point: str, home: Path, snapshot_file: Path) -> None:
    read_end, write_end = os.pipe()
    try:
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        child = subprocess.Popen(
            [sys.executable, "-c", RESTORE, str(home), str(snapshot_file), point,
             str(write_end)], cwd=REPO, env=env, stderr=subprocess.PIPE, pass_fds=(write_end,))
        os.close(write_end)
        signal_byte = os.read(read_end, 64)  # blocks until the child reaches the point
        os.kill(child.pid, signal.SIGKILL)
        _, err = child.communicate(timeout=120)
    finally:
        os.close(read_end)
    assert signal_byte == b"x", (signal_byte, err.decode())
    assert child.returncode == -signal.SIGKILL


@pytest.mark.slow
@pytest.mark.parametrize(("point", "survivor"), [
    ("writing", "old"), ("before_rename", "old"), ("after_rename", "new")])
def test_a_killed_restore_leaves_old_or_new_and_a_retry_works(
    tmp_path: Path, point: str, survivor: str
) -> None:
    home = tmp_path / "home"
    _seed_old_memory(home)
    snap = small_snapshot()
    snapshot_file = tmp_path / "snapshot.json"
    snapshot_file.write_text(json.dumps(snap))

    _kill_restore_at(point, home, snapshot_file)
    if point == "writing":
        assert leftovers(home)  # the half-built database stays until the next open or restore

    # What the home holds now, seen through a copy so the retry below meets the leftovers.
    copy = tmp_path / "copy"
    shutil.copytree(home, copy)
    with make_memory(copy) as m:
        assert leftovers(copy) == []
        check_restored(m)
        if survivor == "old":
            assert [f.text for f in m.facts()] == OLD_FACTS
            assert len(m.archival) == 1
        else:
            assert m.snapshot() == snap

    with HierarchicalMemory.restore(snap, home, embedder=HashingEmbedder(),
                                    replace=True) as restored:
        assert leftovers(home) == []
        check_restored(restored)
        assert restored.snapshot() == snap


@pytest.mark.slow
def test_a_restore_killed_in_an_empty_home_does_not_block_the_retry(tmp_path: Path) -> None:
    home = tmp_path / "home"
    snap = small_snapshot()
    snapshot_file = tmp_path / "snapshot.json"
    snapshot_file.write_text(json.dumps(snap))
    _kill_restore_at("writing", home, snapshot_file)
    assert not (home / "memory.sqlite3").exists()
    assert leftovers(home)
    with HierarchicalMemory.restore(snap, home, embedder=HashingEmbedder()) as restored:
        assert leftovers(home) == []
        check_restored(restored)
        assert restored.snapshot() == snap
