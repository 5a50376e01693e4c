"""A restore into PostgreSQL cut short before its rows commit leaves an agent that says so
when opened, never an empty memory a session would then write to, and a retry fills it.

(Into an agent home the new database is built aside and renamed into place: a cut-short
restore leaves the home as it was, tests/test_snapshot_restore_kill.py.)
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from memory_helpers import migrate_cut_short
from snapshot_helpers import small_snapshot

import tiermem.memory.ops.snapshot_rows as snapshot_rows
from tiermem.cli import main
from tiermem.memory.embed.embeddings import HashingEmbedder
from tiermem.memory.errors import UnfinishedRestoreError
from tiermem.memory.hierarchy import HierarchicalMemory
from tiermem.memory.store.records import RESTORING_KEY
from tiermem.memory.store.transfer import open_backend


def _cut_short(*args: object) -> None:
    raise KeyboardInterrupt  # Ctrl-C, or the process killed, after every row was written


def _open(dsn: str, read_only: bool = False) -> HierarchicalMemory:
    return HierarchicalMemory(store=dsn, agent="cut", embedder=HashingEmbedder(),
                              read_only=read_only)


def test_a_restore_cut_short_leaves_an_agent_that_says_so_and_is_run_again(
        postgres_dsn: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    snap = small_snapshot()
    snapshot_file = tmp_path / "snap.json"
    snapshot_file.write_text(json.dumps(snap))
    with monkeypatch.context() as patched:
        patched.setattr(snapshot_rows, "_embed_missing", _cut_short)
        with pytest.raises(KeyboardInterrupt):
            HierarchicalMemory.restore(snap, store=postgres_dsn, agent="cut",
                                       embedder=HashingEmbedder())
    for read_only in (True, False):
        with pytest.raises(UnfinishedRestoreError, match="run the restore again"):
            _open(postgres_dsn, read_only)
    # A reader while the restore holds the agent is told to wait (here the restore is this
    # writer, which has marked it and not yet written).
    holder = open_backend(postgres_dsn, "cut", read_only=False)
    try:
        with pytest.raises(UnfinishedRestoreError, match=r"is running.*wait for it"):
            _open(postgres_dsn, read_only=True)
    finally:
        holder.close()
    # A migrate from it would copy an empty memory that looks whole.
    assert main(["migrate", "--from", postgres_dsn, "--agent", "cut",
                 "--to", str(tmp_path / "copy")]) == 1
    assert "run the restore again" in capsys.readouterr().err
    assert not (tmp_path / "copy").exists()

    assert main(["restore", str(snapshot_file), "--store", postgres_dsn, "--agent", "cut"]) == 0
    capsys.readouterr()
    with _open(postgres_dsn) as memory:
        assert "User is allergic to peanuts" in [f.text for f in memory.facts()]
        assert memory.store.settings.get(RESTORING_KEY) is None


def test_a_replace_cut_short_keeps_the_old_memory_openable(
        postgres_dsn: str, monkeypatch: pytest.MonkeyPatch) -> None:
    with _open(postgres_dsn) as memory:
        memory.add_fact("the staging cluster runs in eu-west-1", "durable")
    with monkeypatch.context() as patched:
        patched.setattr(snapshot_rows, "_embed_missing", _cut_short)
        with pytest.raises(KeyboardInterrupt):
            HierarchicalMemory.restore(small_snapshot(), store=postgres_dsn, agent="cut",
                                       embedder=HashingEmbedder(), replace=True)
    with _open(postgres_dsn) as memory:
        assert [f.text for f in memory.facts()] == ["the staging cluster runs in eu-west-1"]


def test_an_agent_a_killed_migrate_left_is_named_so_by_config_and_upgrade_and_restore_fills_it(
        postgres_dsn: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home = tmp_path / "cut"
    with HierarchicalMemory(home, embedder=HashingEmbedder(), core_limit=200) as memory:
        memory.add_fact("the staging cluster runs in eu-west-1", "durable")
    migrate_cut_short(home, (postgres_dsn, "cut"))
    where = ["--agent", "cut", "--store", postgres_dsn]
    # Not the defaults shown as its settings, nor "nothing to do".
    assert main(["config", *where, "core_limit"]) == 1
    assert "run the migrate again" in capsys.readouterr().err
    assert main(["upgrade", *where]) == 1
    said = capsys.readouterr()
    assert said.out == "" and "run the migrate again" in said.err

    snapshot_file = tmp_path / "snap.json"
    snapshot_file.write_text(json.dumps(small_snapshot()))
    assert main(["restore", str(snapshot_file), *where]) == 0
    capsys.readouterr()
    with _open(postgres_dsn) as memory:
        assert "User is allergic to peanuts" in [f.text for f in memory.facts()]
    assert main(["config", *where, "core_limit"]) == 0
    assert main(["upgrade", *where]) == 0
