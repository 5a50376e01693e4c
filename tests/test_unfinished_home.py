"""A home whose creation a stopped process cut short: the writing commands finish creating
it, ``tiermem upgrade`` does only that and says so, and the commands that only read name
that command and leave the home as it was."""

from __future__ import annotations

import contextlib
import json
import os
import pickle
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from memory_helpers import database_digest

from tiermem.cli import main
from tiermem.memory.embed.embeddings import HashingEmbedder
from tiermem.memory.errors import StoreError, UnfinishedStoreError
from tiermem.memory.hierarchy import HierarchicalMemory
from tiermem.memory.store.sqlite import DB_FILE, schema

REPO = Path(__file__).resolve().parents[1]
#: How far the stopped process got: the migrations it ran before it stopped.
RAN = 4


def _unfinished_home(root: Path) -> Path:
    """Agent ada's home as a process left it that stopped in the middle of its first open:
    some migrations run, nothing stored."""
    home = root / "agents" / "ada"
    home.mkdir(parents=True)
    with contextlib.closing(sqlite3.connect(home / DB_FILE, isolation_level=None)) as conn:
        schema.register_functions(conn)
        for migration in schema.MIGRATIONS[:RAN]:
            conn.execute("BEGIN IMMEDIATE")
            migration.apply(conn)
            conn.execute(f"PRAGMA user_version = {migration.number}")
            conn.execute("COMMIT")
    home.chmod(0o700)  # as tiermem creates it
    (home / DB_FILE).chmod(0o600)
    return home


@pytest.fixture
def unfinished(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("TIERMEM_HOME", str(tmp_path))
    return _unfinished_home(tmp_path)


def test_a_read_only_open_raises_unfinished_store_error(unfinished: Path) -> None:
    with pytest.raises(UnfinishedStoreError, match="never finished being created") as info:
        HierarchicalMemory(unfinished, embedder=HashingEmbedder(), read_only=True)
    assert info.value.found == RAN
    copy = pickle.loads(pickle.dumps(info.value))
    assert (type(copy), str(copy), copy.where, copy.found) == (
        UnfinishedStoreError, str(info.value), info.value.where, RAN)


def test_chat_finishes_creating_it(tmp_path: Path) -> None:
    home = _unfinished_home(tmp_path)
    done = subprocess.run([sys.executable, "cli.py", "chat", "--agent", "ada", "--offline"],
                          cwd=REPO, input="Remember that I like green tea\n",
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(REPO),
                               "TIERMEM_HOME": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    assert "never finished" not in done.stderr
    with contextlib.closing(sqlite3.connect(home / DB_FILE)) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == schema.SCHEMA_VERSION
        said = [row[0] for row in conn.execute(
            "SELECT content FROM messages WHERE role = 'user'")]
    assert said == ["Remember that I like green tea"]


def test_the_read_only_commands_name_the_command_that_finishes_it(
        unfinished: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = database_digest(unfinished)
    advice = ("tiermem: agent ada's memory was never finished being created (the process "
              "creating it stopped first) and holds nothing yet; run `tiermem upgrade --agent "
              "ada` to finish creating it (writing commands such as chat also finish it)\n")
    for command in (["diagnostics", "--agent", "ada"],
                    ["diagnostics", "--agent", "ada", "--embedder", "hashing", "--json"],
                    ["config", "--agent", "ada"]):
        assert main(command) == 1, command
        assert capsys.readouterr() == ("", advice), command
    assert database_digest(unfinished) == before


def test_upgrade_finishes_creating_it_then_has_nothing_to_do(
        unfinished: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["upgrade", "--agent", "ada", "--json"]) == 0
    done = capsys.readouterr()
    assert json.loads(done.out) == {"agent": "ada", "from": RAN, "to": schema.SCHEMA_VERSION,
                                    "upgraded": True, "finished_creating": True,
                                    "held_by": None, "error": None, "raised": [],
                                    "not_raised": []}
    assert " ".join(done.err.split()) == (  # rich wraps it at the terminal width
        f"finished creating agent ada's memory, which the process creating it left "
        f"unfinished; it is at schema {schema.SCHEMA_VERSION} and holds nothing yet")
    assert main(["diagnostics", "--agent", "ada", "--embedder", "hashing", "--json"]) == 0
    capsys.readouterr()
    assert main(["upgrade", "--agent", "ada"]) == 0
    assert capsys.readouterr().out.strip() == (
        f"agent ada's memory is already at schema {schema.SCHEMA_VERSION}; nothing to do")


@pytest.mark.parametrize("user_version", [0, 3])
def test_another_programs_database_is_never_taken_for_a_memory(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        user_version: int) -> None:
    home = tmp_path / "agents" / "shop"
    home.mkdir(parents=True)
    with contextlib.closing(sqlite3.connect(home / DB_FILE, isolation_level=None)) as conn:
        conn.execute("CREATE TABLE customers (id INTEGER, name TEXT)")
        conn.execute("INSERT INTO customers VALUES (1, 'Ada')")
        conn.execute(f"PRAGMA user_version = {user_version}")
    before = database_digest(home)
    said = "is not a tiermem memory \\(its tables: customers\\); nothing in it was changed"
    for read_only in (False, True):
        with pytest.raises(StoreError, match=said):
            HierarchicalMemory(home, embedder=HashingEmbedder(), read_only=read_only)
    monkeypatch.setenv("TIERMEM_HOME", str(tmp_path))
    assert main(["upgrade", "--agent", "shop"]) == 1
    assert "is not a tiermem memory" in capsys.readouterr().err
    assert database_digest(home) == before
    with contextlib.closing(sqlite3.connect(home / DB_FILE)) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
        assert conn.execute("PRAGMA user_version").fetchone()[0] == user_version



@pytest.fixture
def empty_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("TIERMEM_HOME", str(tmp_path))
    return _empty_file_home(tmp_path)


def _empty_file_home(root: Path) -> Path:
    """Agent ada's home whose database is a file of 0 bytes (`touch`, a copy cut short)."""
    home = root / "agents" / "ada"
    home.mkdir(parents=True, mode=0o700)
    (home / DB_FILE).touch(mode=0o600)
    return home


@pytest.mark.parametrize("made", [_empty_file_home, _unfinished_home])
def test_a_migrate_or_restore_into_it_replaces_it_whole_as_no_memory(
        made: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A home whose memory was never created holds nothing to overwrite: a migrate or a
    restore (without --replace) puts the copy there, built aside and renamed over the file
    as into a new home, so one cut short leaves the file as it was; and nothing says a new,
    empty memory was made of a file about to be filled, or that it already holds one."""
    import shutil

    from tiermem.agent import store_commands

    source = tmp_path / "source"
    with HierarchicalMemory(source, embedder=HashingEmbedder()) as memory:
        memory.add_fact("User's locker code is 4412")
        memory.write_snapshot(tmp_path / "snap.json")
    monkeypatch.setenv("TIERMEM_HOME", str(tmp_path))
    home = tmp_path / "agents" / "ada"
    for command in (["migrate", "--from", str(source), "--to", str(home)],
                    ["restore", str(tmp_path / "snap.json"), "--agent", "ada"]):
        made(tmp_path)
        before = (home / DB_FILE).read_bytes()
        if command[0] == "migrate":
            with monkeypatch.context() as patched:
                patched.setattr(store_commands, "row_progress", _ctrl_c_at_the_first_rows)
                assert main(command) == 130
            assert "holds no memory yet" in capsys.readouterr().err
            assert (home / DB_FILE).read_bytes() == before
        assert main(command) == 0, command
        err = capsys.readouterr().err
        assert "empty file" not in err and "already holds" not in err, err
        with HierarchicalMemory(home, embedder=HashingEmbedder(), read_only=True) as copy:
            assert [f.text for f in copy.core] == ["User's locker code is 4412"]
        shutil.rmtree(home)


def _ctrl_c_at_the_first_rows(note: Any) -> Any:
    def progress(table: str, done: int, total: int) -> None:
        raise KeyboardInterrupt

    return progress


def test_an_empty_database_file_is_named_as_such_with_the_ways_to_keep_a_memory(
        empty_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Not 'the process creating it stopped': the file may be a copy cut short, whose
    memory is still at its source; the reading commands say so and change nothing."""
    from tiermem.memory.errors import EmptyStoreFileError

    with pytest.raises(EmptyStoreFileError, match=r"is an empty file \(0 bytes\)") as info:
        HierarchicalMemory(empty_file, embedder=HashingEmbedder(), read_only=True)
    assert isinstance(info.value, UnfinishedStoreError)  # callers catching that still do
    copy = pickle.loads(pickle.dumps(info.value))
    assert (type(copy), str(copy), copy.path) == (EmptyStoreFileError, str(info.value),
                                                  info.value.path)
    for command in (["diagnostics", "--agent", "ada"], ["config", "--agent", "ada"]):
        assert main(command) == 1
        done = capsys.readouterr()
        assert done.out == ""
        assert done.err == (
            f"tiermem: agent ada's memory file {empty_file / DB_FILE} is empty (0 bytes): "
            f"nothing was ever written to it (a process creating the memory stopped at its "
            f"very start, or the file was made outside tiermem: `touch`, a copy or download "
            f"cut short by a full disk). If the agent had a memory, it is not in this file: "
            f"copy it again from where it came (with no session open), or bring a snapshot "
            f"back with `tiermem restore FILE --agent ada --replace`; to start the agent "
            f"afresh, run `tiermem upgrade --agent ada`, which creates an empty memory "
            f"there\n")
        assert (empty_file / DB_FILE).stat().st_size == 0
    assert main(["upgrade", "--agent", "ada"]) == 0
    done = capsys.readouterr()
    assert done.out.startswith("created a new, empty memory for agent ada in its empty "
                               "memory.sqlite3 (0 bytes before); it is at schema ")
    assert "was an empty file (0 bytes)" in done.err and "copy it again" in done.err
    assert main(["diagnostics", "--agent", "ada", "--json"]) == 0
    assert "empty file" not in capsys.readouterr().err  # said once, when it was made


def test_a_chat_on_an_empty_database_file_says_it_made_a_new_memory_there(
        empty_file: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"hello\n")))
    assert main(["chat", "--agent", "ada", "--embedder", "hashing", "--offline"]) == 0
    err = capsys.readouterr().err
    assert err.count("was an empty file (0 bytes)") == 1, err
    assert "A new, empty memory was created in it" in err
