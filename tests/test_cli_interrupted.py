"""Ctrl-C during a long command: it exits 130 with one line on standard error saying what
state it left and what to run next. Ctrl-C is raised by a hook at a chosen point (the
signal handler raises KeyboardInterrupt the same way), never by a timer."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from memory_helpers import database_digest

from tiermem.cli import main
from tiermem.memory.embed.embeddings import HashingEmbedder
from tiermem.memory.hierarchy import HierarchicalMemory
from tiermem.memory.ops import reindex
from tiermem.memory.store.sqlite.store import SQLiteStore


@pytest.fixture
def ada(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Agent ada's home under $TIERMEM_HOME: a fact, passages and a few turns."""
    monkeypatch.setenv("TIERMEM_HOME", str(tmp_path))
    home = tmp_path / "agents" / "ada"
    with HierarchicalMemory(home, embedder=HashingEmbedder()) as memory:
        memory.add_fact("User's locker code is 4412", "durable")
        for i in range(40):
            memory.archival_insert(f"runbook step {i}: restart the worker")
        for i in range(3):
            memory.process_interaction(f"Message {i} about the deploy.", f"ok {i}")
    return home


def _ctrl_c_once(monkeypatch: pytest.MonkeyPatch, target: Any, name: str) -> None:
    """``target.name`` raises KeyboardInterrupt on its first call, then works."""
    original = getattr(target, name)
    calls = [0]

    def interrupted(*args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        if calls[0] == 1:
            raise KeyboardInterrupt
        return original(*args, **kwargs)

    monkeypatch.setattr(target, name, interrupted)


def test_forget_erase_stopped_after_the_erasure_committed_says_it_was_saved(
        ada: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    _ctrl_c_once(monkeypatch, SQLiteStore, "purge_erased")  # the purge after the commit
    assert main(["forget", "--agent", "ada", "--erase", "User's locker code is 4412"]) == 130
    done = capsys.readouterr()
    assert done.out == ""
    assert done.err == (
        "tiermem: forget stopped (Ctrl-C) after the erasure was saved (audit #1): what it "
        "matched is gone from the memory, but old copies may remain in its files until "
        "`tiermem forget --agent ada --finish-erasures` clears them (any command that opens "
        "the memory for writing does it first)\n")
    assert main(["forget", "--agent", "ada", "--finish-erasures"]) == 0
    assert "finished the purge" in capsys.readouterr().out


def test_forget_erase_stopped_before_the_erasure_says_how_to_finish_it(
        ada: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import tiermem.memory.ops.forget as forget_module

    _ctrl_c_once(monkeypatch, forget_module, "erase_rows")
    assert main(["forget", "--agent", "ada", "--erase", "User's locker code is 4412"]) == 130
    assert capsys.readouterr().err == (
        "tiermem: forget stopped (Ctrl-C) after what the request matched was forgotten (audit "
        "#1) and before it was erased: run `tiermem forget --agent ada --finish-erasures` to "
        "erase it now (any command that opens the memory for writing does it first)\n")
    assert main(["forget", "--agent", "ada", "--finish-erasures", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["finished"] == [1]


def test_forget_stopped_before_the_request_was_saved_says_nothing_was_forgotten(
        ada: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import tiermem.memory.ops.forget as forget_module

    before = database_digest(ada)
    _ctrl_c_once(monkeypatch, forget_module, "run_forget")
    assert main(["forget", "--agent", "ada", "User's locker code is 4412"]) == 130
    assert capsys.readouterr().err == (
        "tiermem: forget stopped (Ctrl-C) before the request was saved: nothing was "
        "forgotten\n")
    assert database_digest(ada) == before


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_reindex_stopped_says_how_far_it_got_and_to_run_it_again(
        ada: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        request: pytest.FixtureRequest, backend: str) -> None:
    from tiermem.agent.place import store_flag

    given: list[str] = []
    if backend == "postgres":
        dsn = request.getfixturevalue("postgres_dsn")
        assert main(["migrate", "--from", str(ada), "--to", dsn, "--agent", "ada"]) == 0
        given = ["--store", dsn]
    store = store_flag(given[1] if given else None)
    monkeypatch.setattr(reindex, "BATCH_ROWS", 16)
    embedded = HashingEmbedder.embed_documents
    batches = [0]

    def second_batch_interrupted(self: HashingEmbedder, texts: Any) -> Any:
        batches[0] += 1
        if batches[0] == 2:
            raise KeyboardInterrupt
        return embedded(self, texts)

    monkeypatch.setattr(HashingEmbedder, "embed_documents", second_batch_interrupted)
    command = ["reindex", "--agent", "ada", *given, "--embedder", "hashing"]
    assert main(command) == 130
    err = capsys.readouterr().err
    assert err.endswith(
        f"tiermem: reindex stopped (Ctrl-C) after 16 of 40 passages; search by meaning cannot "
        f"work until it finishes: run `tiermem reindex --agent ada{store} --embedder hashing` "
        f"again to continue where it stopped\n")
    assert main(command) == 0


def test_migrate_stopped_mid_copy_says_the_target_holds_nothing_and_to_run_it_again(
        ada: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from tiermem.agent import store_commands

    def interrupting(note: Any) -> Any:
        def progress(table: str, done: int, total: int) -> None:
            raise KeyboardInterrupt
        return progress

    monkeypatch.setattr(store_commands, "row_progress", interrupting)
    target = tmp_path / "copy"
    assert main(["migrate", "--from", str(ada), "--to", str(target)]) == 130
    assert capsys.readouterr().err == (
        f"tiermem: migrate stopped (Ctrl-C) before its copy committed: {target} holds no "
        f"memory yet (it is marked, so nothing takes it for an empty one) and the source was "
        f"only read; run the same `tiermem migrate` again, which copies it whole\n")
    monkeypatch.undo()
    monkeypatch.setenv("TIERMEM_HOME", str(tmp_path))
    assert main(["migrate", "--from", str(ada), "--to", str(target)]) == 0


def test_restore_stopped_says_the_home_is_as_it_was(
        ada: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    import tiermem.memory.ops.snapshot as snapshot_module

    with HierarchicalMemory(ada, embedder=HashingEmbedder()) as memory:
        (tmp_path / "ada.json").write_text(json.dumps(memory.snapshot()), encoding="utf-8")
    before = database_digest(ada)
    _ctrl_c_once(monkeypatch, snapshot_module, "_write")
    assert main(["restore", str(tmp_path / "ada.json"), "--agent", "ada", "--replace"]) == 130
    assert capsys.readouterr().err == (
        "tiermem: restore stopped (Ctrl-C) before it finished; the new database is built "
        "aside and was never moved into place: agent ada's home is as it was. Run the same "
        "`tiermem restore` again\n")
    assert database_digest(ada) == before
