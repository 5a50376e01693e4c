"""A home an older version of tiermem wrote: ``tiermem upgrade`` and the commands that write
upgrade it; the commands that only read refuse it, naming ``tiermem upgrade``, and leave it
as it was."""

from __future__ import annotations

import contextlib
import io
import json
import os
import shlex
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from memory_helpers import (
    database_digest,
    migrate_cut_short,
    sqlite_store_at_version,
    writable_database,
)
from test_cli import tiermem

from tiermem.cli import main
from tiermem.memory.embed.embeddings import HashingEmbedder
from tiermem.memory.hierarchy import HierarchicalMemory
from tiermem.memory.store.sqlite.schema import SCHEMA_VERSION
from tiermem.memory.store.sqlite.store import SQLiteStore
from tiermem.memory.store.sqlite.writer_lock import WriterLock

REPO = Path(__file__).resolve().parents[1]
#: Commands that open agent ada's memory for writing.
WRITING = [
    ["chat", "--agent", "ada"],
    ["config", "--agent", "ada", "core_limit", "500"],
    ["forget", "--agent", "ada", "User likes green tea"],
    ["forget", "--agent", "ada", "--finish-erasures"],
]


def _older_home(root: Path) -> Path:
    """Agent ada's home as the version before the newest migration wrote it."""
    home = root / "agents" / "ada"
    with sqlite_store_at_version(home, SCHEMA_VERSION - 1) as before, before.transaction():
        before.execute("INSERT INTO facts (text, norm, durability, tier, created_at,"
                       " created_tick, last_access, last_counted_tick, tokens) VALUES"
                       " ('User likes green tea', 'user likes green tea', 'durable', 'core',"
                       " 1, 0, 0, 0, 5)")
    return home


def _schema_objects(database: Path) -> list[tuple[str, ...]]:
    with contextlib.closing(sqlite3.connect(database)) as conn:
        return sorted(conn.execute("SELECT type, name, tbl_name, coalesce(sql, '')"
                                   " FROM sqlite_master"))


@pytest.mark.parametrize("command", WRITING)
def test_a_writing_command_upgrades_a_home_an_older_version_wrote(
        tmp_path: Path, command: list[str]) -> None:
    home = _older_home(tmp_path)
    done = subprocess.run([sys.executable, "cli.py", *command], cwd=REPO, input="",
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(REPO),
                               "TIERMEM_HOME": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    assert "older version" not in done.stderr
    with sqlite3.connect(home / "memory.sqlite3") as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def _schema(home: Path) -> int:
    with contextlib.closing(sqlite3.connect(home / "memory.sqlite3")) as conn:
        version: int = conn.execute("PRAGMA user_version").fetchone()[0]
    return version


@pytest.fixture
def older(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Agent ada's home, one schema back, under $TIERMEM_HOME."""
    monkeypatch.setenv("TIERMEM_HOME", str(tmp_path))
    return _older_home(tmp_path)


def test_upgrade_upgrades_an_older_home_then_has_nothing_to_do(
        older: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["upgrade", "--agent", "ada"]) == 0
    assert capsys.readouterr().out.strip() == (
        f"upgraded agent ada's memory from schema {SCHEMA_VERSION - 1} to {SCHEMA_VERSION}")
    assert _schema(older) == SCHEMA_VERSION
    SQLiteStore(older.parent / "fresh").close()
    assert _schema_objects(older / "memory.sqlite3") == _schema_objects(
        older.parent / "fresh" / "memory.sqlite3")
    with HierarchicalMemory(older, embedder=HashingEmbedder(), read_only=True) as memory:
        assert [f.text for f in memory.facts()] == ["User likes green tea"]
    assert main(["upgrade", "--agent", "ada", "--json"]) == 0
    done = capsys.readouterr()
    assert json.loads(done.out) == {"agent": "ada", "from": SCHEMA_VERSION,
                                    "to": SCHEMA_VERSION, "upgraded": False,
                                    "finished_creating": False, "held_by": None,
                                    "error": None, "raised": [], "not_raised": []}
    assert f"already at schema {SCHEMA_VERSION}; nothing to do" in done.err


def test_upgrade_of_an_unknown_agent_is_a_usage_error_listing_the_agents(
        older: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["upgrade", "--agent", "bob"]) == 2
    assert "no agent named 'bob'" in capsys.readouterr().err
    assert main(["upgrade", "--home", str(older.parent)]) == 2
    assert "no memory at" in capsys.readouterr().err
    assert _schema(older) == SCHEMA_VERSION - 1


def test_upgrade_of_a_home_open_for_writing_fails_and_changes_nothing(
        older: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lock = WriterLock(older)
    lock.acquire()
    try:
        assert main(["upgrade", "--agent", "ada"]) == 1
    finally:
        lock.release()
    assert "is open for writing by process" in capsys.readouterr().err
    assert _schema(older) == SCHEMA_VERSION - 1


def test_upgrade_json_of_a_home_open_for_writing_says_why_nothing_was_done(
        older: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lock = WriterLock(older)
    lock.acquire()
    try:
        assert main(["upgrade", "--agent", "ada", "--json"]) == 1
    finally:
        lock.release()
    done = capsys.readouterr()
    report = json.loads(done.out)
    assert (report["from"], report["to"], report["upgraded"]) == (
        SCHEMA_VERSION - 1, SCHEMA_VERSION - 1, False)
    assert f"is open for writing by process {os.getpid()}" in report["held_by"]
    assert report["error"].startswith(report["held_by"] + "; wait for that process to end")
    assert report["error"] in done.err
    assert _schema(older) == SCHEMA_VERSION - 1


def _tick_left_below(home: Path) -> Path:
    """``home`` after two turns, its tick counter set back to 0 as an older version left it."""
    with HierarchicalMemory(home, embedder=HashingEmbedder()) as memory:
        memory.process_interaction("I live in Lyon.", "Noted.")
        memory.process_interaction("I work at Globex.", "Noted.")
    with contextlib.closing(writable_database(home / "memory.sqlite3")) as conn, conn:
        conn.execute("UPDATE meta SET value = '0' WHERE key = 'tick'")
    return home


def test_upgrade_json_gives_a_raised_counter_as_numbers(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("TIERMEM_HOME", str(tmp_path))
    _tick_left_below(tmp_path / "agents" / "ada")
    assert main(["upgrade", "--agent", "ada", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["raised"] == [{"counter": "tick", "from": 0, "to": 2}]
    # Raising counters changes the memory although its schema stays: "upgraded", as documented.
    assert (report["from"], report["upgraded"]) == (report["to"], True)
    readme = " ".join((REPO / "README.md").read_text("utf-8").split())
    assert ('`"upgraded"` is true when it changed the memory: its schema, its creation '
            'finished, or its counters raised') in readme


def test_upgrade_of_a_current_home_open_for_writing_has_nothing_to_do(
        older: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["upgrade", "--agent", "ada"]) == 0
    capsys.readouterr()
    lock = WriterLock(older)
    lock.acquire()
    try:
        assert main(["upgrade", "--agent", "ada"]) == 0  # nothing to write: not refused
    finally:
        lock.release()
    assert f"already at schema {SCHEMA_VERSION}; nothing to do" in capsys.readouterr().out
    readme = " ".join((Path(__file__).parents[1] / "README.md").read_text("utf-8").split())
    assert "`index`, `upgrade` with something to upgrade) on an agent another process" in readme


def test_upgrade_of_a_home_a_newer_version_wrote_fails_naming_it(
        older: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with contextlib.closing(sqlite3.connect(older / "memory.sqlite3")) as conn:
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    assert main(["upgrade", "--agent", "ada"]) == 1
    assert "written by a newer version of tiermem" in capsys.readouterr().err
    assert _schema(older) == SCHEMA_VERSION + 1


@pytest.mark.parametrize("held", [False, True])
def test_upgrade_json_of_a_home_a_newer_version_wrote_says_why(
        older: Path, capsys: pytest.CaptureFixture[str], held: bool) -> None:
    # a script asking for JSON was left with nothing to parse
    with contextlib.closing(sqlite3.connect(older / "memory.sqlite3")) as conn:
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    lock = WriterLock(older)
    if held:
        lock.acquire()
    try:
        assert main(["upgrade", "--agent", "ada", "--json"]) == 1
    finally:
        if held:
            lock.release()
    done = capsys.readouterr()
    report = json.loads(done.out)
    assert (report["from"], report["to"], report["upgraded"]) == (
        SCHEMA_VERSION + 1, SCHEMA_VERSION + 1, False)
    assert report["error"] in done.err
    assert "written by a newer version" in report["error"]  # open elsewhere or not
    assert _schema(older) == SCHEMA_VERSION + 1


@pytest.mark.parametrize("command", [
    ["diagnostics", "--agent", "ada"],
    ["diagnostics", "--agent", "ada", "--embedder", "hashing", "--json"],
    ["config", "--agent", "ada"],
    ["config", "--agent", "ada", "core_limit", "--json"],
])
def test_a_read_only_command_names_the_upgrade_and_leaves_an_older_home_alone(
        older: Path, capsys: pytest.CaptureFixture[str], command: list[str]) -> None:
    before = database_digest(older)
    assert main(command) == 1
    done = capsys.readouterr()
    assert done.out == ""
    assert done.err == (
        f"tiermem: agent ada's memory was written by an older version of tiermem (schema "
        f"{SCHEMA_VERSION - 1}; this version reads {SCHEMA_VERSION}); run `tiermem upgrade "
        f"--agent ada` to upgrade it in place (writing commands such as chat also upgrade "
        f"it)\n")
    assert _schema(older) == SCHEMA_VERSION - 1
    assert database_digest(older) == before


def test_migrate_from_an_older_home_elsewhere_names_its_directory(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home = _older_home(tmp_path / "elsewhere")  # not under $TIERMEM_HOME
    assert main(["migrate", "--from", str(home), "--to", str(tmp_path / "copy")]) == 1
    err = capsys.readouterr().err
    # Upgrade names the agent after the directory given with --home, as migrate does.
    assert f"run `tiermem upgrade --home {home}`" in err
    assert not (tmp_path / "copy").exists()
    assert _schema(home) == SCHEMA_VERSION - 1
    assert main(["upgrade", "--agent", "ada", "--home", str(home)]) == 0
    assert capsys.readouterr().out.startswith("upgraded agent ada's memory")
    assert main(["migrate", "--from", str(home), "--to", str(tmp_path / "copy")]) == 0


def test_migrate_s_advice_quotes_a_directory_no_agent_name_can_have(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    older = _older_home(tmp_path / "elsewhere")
    home = older.rename(older.parent / "my agent")  # `my agent` is no valid --agent
    assert main(["migrate", "--from", str(home), "--to", str(tmp_path / "copy")]) == 1
    err = capsys.readouterr().err
    command = f"tiermem upgrade --home '{home}'"
    assert f"run `{command}` to upgrade it" in err
    assert main(shlex.split(command)[1:]) == 0
    assert _schema(home) == SCHEMA_VERSION
    # An agent named apart from its directory is named, when --agent can take the name.
    older = _older_home(tmp_path / "other")
    assert main(["migrate", "--from", str(older), "--to", str(tmp_path / "copy"),
                 "--agent", "bea"]) == 1
    assert f"run `tiermem upgrade --agent bea --home {older}`" in capsys.readouterr().err


@pytest.mark.parametrize("command", WRITING)
def test_a_writing_command_opens_a_current_home_for_writing_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: list[str]) -> None:
    monkeypatch.setenv("TIERMEM_HOME", str(tmp_path))
    with HierarchicalMemory(tmp_path / "agents" / "ada", embedder=HashingEmbedder()) as memory:
        memory.add_fact("User likes green tea", "durable")
    writers = []
    opened = SQLiteStore.__init__

    def counted(self: SQLiteStore, *args: Any, **kwargs: Any) -> None:
        if not kwargs.get("read_only", False):
            writers.append(args)
        opened(self, *args, **kwargs)

    monkeypatch.setattr(SQLiteStore, "__init__", counted)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"")))
    assert main(command) == 0
    assert len(writers) == 1


def _home_at_schema_2(root: Path) -> Path:
    """Agent ada's home before migration 3, which indexes every fact's text again through
    the SQL function tiermem registers (and so can be stopped inside SQLite)."""
    home = root / "agents" / "ada"
    with sqlite_store_at_version(home, 2) as before, before.transaction():
        before.execute("INSERT INTO facts (text, norm, durability, tier, created_at,"
                       " created_tick, last_access, last_counted_tick, tokens) VALUES"
                       " ('User likes green tea', 'user likes green tea', 'durable', 'core',"
                       " 1, 0, 0, 0, 5)")
    return home


def test_ctrl_c_inside_a_migration_stops_the_upgrade_and_says_where_not_damage(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("TIERMEM_HOME", str(tmp_path))
    home = _home_at_schema_2(tmp_path)

    def ctrl_c(text: str) -> str:
        raise KeyboardInterrupt  # as the signal handler does, inside SQLite's call

    monkeypatch.setattr("tiermem.memory.store.sqlite.schema.indexed_text", ctrl_c)
    with pytest.raises(KeyboardInterrupt):
        SQLiteStore(home)
    assert _schema(home) == 2  # migration 3 rolled back whole
    assert main(["upgrade", "--agent", "ada"]) == 130
    err = capsys.readouterr().err
    assert err == (f"tiermem: upgrade stopped (Ctrl-C) at schema 2 of {SCHEMA_VERSION}; agent "
                   f"ada's memory is not damaged: run `tiermem upgrade --agent ada` again to "
                   f"continue\n")
    monkeypatch.undo()
    monkeypatch.setenv("TIERMEM_HOME", str(tmp_path))
    assert main(["upgrade", "--agent", "ada"]) == 0
    assert _schema(home) == SCHEMA_VERSION
    with HierarchicalMemory(home, embedder=HashingEmbedder(), read_only=True) as memory:
        assert [f.text for f in memory.facts()] == ["User likes green tea"]


def test_a_lock_another_program_holds_on_the_database_is_busy_not_damage(
        older: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from tiermem.memory.errors import StoreBusyError
    from tiermem.memory.store.sqlite import connection

    monkeypatch.setattr(connection, "BUSY_SECONDS", 0.0)  # fail at once, not after 5 s
    holder = sqlite3.connect(older / "memory.sqlite3", isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")  # the sqlite3 shell inside a transaction
    try:
        with pytest.raises(StoreBusyError, match=r"is busy .*database is locked"):
            SQLiteStore(older)
        assert main(["upgrade", "--agent", "ada"]) == 1
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    err = capsys.readouterr().err
    assert "is busy (database is locked): another process holds a lock" in err
    assert "damaged" not in err.replace("is not damaged", "")
    assert _schema(older) == SCHEMA_VERSION - 1
    assert main(["upgrade", "--agent", "ada"]) == 0


def test_a_database_that_is_not_one_is_still_damage(tmp_path: Path) -> None:
    from tiermem.memory.errors import StoreCorruptError

    home = tmp_path / "ada"
    home.mkdir()
    (home / "memory.sqlite3").write_bytes(b"not a database at all, " * 200)
    with pytest.raises(StoreCorruptError, match=r"is damaged .*file is not a database"):
        SQLiteStore(home)


def test_upgrade_of_a_migrate_target_cut_short_says_only_what_is_wrong(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("TIERMEM_HOME", str(tmp_path))
    with HierarchicalMemory(tmp_path / "src", embedder=HashingEmbedder()) as memory:
        memory.add_fact("User likes figs")
    target = tmp_path / "agents" / "cut"
    migrate_cut_short(tmp_path / "src", (str(target), None))
    assert main(["upgrade", "--agent", "cut"]) == 1
    done = capsys.readouterr()
    assert done.out == ""  # not "already at schema ...; nothing to do" as well
    assert "a migrate into" in done.err and "run the migrate again" in done.err
    assert main(["upgrade", "--agent", "cut", "--json"]) == 1
    done = capsys.readouterr()
    report = json.loads(done.out)
    assert report["upgraded"] is False
    assert "a migrate into" in report["error"] and "run the migrate again" in report["error"]
    assert report["error"] in done.err


def test_a_chat_left_below_its_rows_names_the_upgrade_that_lets_it_go_on(
        tmp_path: Path) -> None:
    home = tmp_path / "agents" / "ada"

    def cli(*command: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
        return tiermem(tmp_path, *command, stdin=stdin)

    chat = ["chat", "--agent", "ada", "--offline", "--embedder", "hashing"]
    assert cli(*chat, stdin="I live in Lyon\nI work at Globex\n").returncode == 0
    with contextlib.closing(writable_database(home / "memory.sqlite3")) as conn, conn:
        conn.execute("UPDATE meta SET value = '0' WHERE key = 'tick'")  # as an older version
    refused = cli(*chat, stdin="I like tea\n")
    assert refused.returncode == 1
    assert (f"counter 'tick' holds 0, below what its rows hold (2), as an older tiermem or an "
            f"edit of its database can leave it, so it cannot move on to 1: run `tiermem "
            f"upgrade --home {home}`, which raises it to 2") in refused.stderr
    done = cli("upgrade", "--home", str(home))
    assert done.returncode == 0, done.stderr
    assert done.stdout == (f"agent ada's memory is already at schema {SCHEMA_VERSION}; raised "
                           f"its counters left below what its rows hold (tick from 0 to 2), "
                           f"which it could not move on from\n")
    again = cli(*chat, stdin="I like tea\n")
    assert again.returncode == 0 and "User likes tea" in again.stdout, again.stderr


def test_upgrade_json_of_a_lost_connection_still_prints_its_object(
        older: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    import tiermem.memory.store.opening as opening
    from tiermem.memory.errors import ConnectionLostError

    def lost(location: str, agent: str | None) -> None:
        raise ConnectionLostError("lost the connection to PostgreSQL for agent 'ada'",
                                  "`tiermem pg status`")

    with monkeypatch.context() as patched:
        patched.setattr(opening, "upgrade_backend", lost)
        assert main(["upgrade", "--agent", "ada", "--json"]) == 1
    done = capsys.readouterr()
    report = json.loads(done.out)
    # The server is gone: the schema cannot be told, and is not guessed.
    assert (report["from"], report["to"], report["upgraded"]) == (None, None, False)
    assert report["error"].startswith("lost the connection to PostgreSQL for agent 'ada'")
    assert done.err == f"tiermem: {report['error']}\n"
    assert main(["upgrade", "--agent", "ada", "--json"]) == 0
    assert set(json.loads(capsys.readouterr().out)) == set(report)  # the same fields
    readme = " ".join((REPO / "README.md").read_text("utf-8").split())
    assert ("It prints that object on every outcome but a usage error (exit 2) or Ctrl-C: a "
            "refused upgrade (a server it cannot reach, a lost connection") in readme


@pytest.mark.parametrize("json_asked", [False, True])
def test_upgrade_of_a_held_home_names_the_counters_left_below_its_rows(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str], json_asked: bool) -> None:
    monkeypatch.setenv("TIERMEM_HOME", str(tmp_path))
    home = _tick_left_below(tmp_path / "agents" / "ada")
    lock = WriterLock(home)
    lock.acquire()
    try:
        assert main(["upgrade", "--agent", "ada", *(["--json"] if json_asked else [])]) == 1
    finally:
        lock.release()
    done = capsys.readouterr()
    assert done.err.endswith("and try again, which raises its counters left below what its "
                             "rows hold (tick holds 0, its rows 2)\n")
    if json_asked:
        report = json.loads(done.out)
        assert report["not_raised"] == [{"counter": "tick", "from": 0, "to": 2}]
        assert done.err == f"tiermem: {report['error']}\n"
    readme = " ".join((REPO / "README.md").read_text("utf-8").split())
    assert ("which raises its counters left below what its rows hold (tick holds 0, its rows "
            "2)`) and `--json` lists them in `\"not_raised\"`") in readme
