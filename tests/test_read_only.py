"""Read-only access: inspection works while another process holds the writer lock, every
write is refused clearly, and nothing on disk changes. Also: a killed turn's pending
message is marked unanswered by the next writer."""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import os
import pickle
import shutil
import signal
import sqlite3
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from memory_helpers import (
    child_process,
    make_memory,
    mounted_tmpfs,
    sqlite_schema_at_version,
    writable_database,
)

from tiermem.bench.fault_os import Report, run_forked
from tiermem.memory.errors import (
    InvalidConfigError,
    OlderSchemaError,
    ReadOnlyError,
    StoreError,
)
from tiermem.memory.hierarchy import HierarchicalMemory
from tiermem.memory.store.sqlite import DB_FILE, schema

REPO = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": str(REPO), "PYTHONUNBUFFERED": "1"}

_HOLD_THE_LOCK = textwrap.dedent("""
    import sys
    from tiermem.memory.embed.embeddings import HashingEmbedder
    from tiermem.memory.hierarchy import HierarchicalMemory
    m = HierarchicalMemory(sys.argv[1], embedder=HashingEmbedder())
    m.archival_insert("written by the writer that still holds the lock")
    print("HOLDING", flush=True)
    sys.stdin.readline()
    m.close()
""")


@contextlib.contextmanager
def _writer_holding(home: Path) -> Iterator[None]:
    with child_process([sys.executable, "-c", _HOLD_THE_LOCK, str(home)], cwd=REPO,
                       env=ENV) as child:
        assert child.stdout is not None and child.stdin is not None
        assert child.stdout.readline().strip() == "HOLDING"
        yield
        child.stdin.write("\n")
        child.stdin.flush()
        assert child.wait(timeout=60) == 0


def _fill(home: Path) -> None:
    with make_memory(home, core_limit=3, core_limit_unit="facts") as m:
        for i in range(4):
            m.add_fact(f"fact {i} about the tokyo office")
        m.archival_insert("the billing runbook lives in the ops wiki")
        m.process_interaction("The production region is eu-west-1.", "Noted.")


def _files(home: Path) -> dict[str, str]:
    """What every file of the home holds. Left out: the WAL index (memory shared by
    readers) and an empty WAL, which SQLite creates for a reader of a closed database."""
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(home.iterdir())
            if not p.name.endswith("-shm") and not (p.name.endswith("-wal")
                                                    and p.stat().st_size == 0)}


WRITES: dict[str, Callable[[HierarchicalMemory], Any]] = {
    "add_fact": lambda m: m.add_fact("a new fact"),
    "re-assert": lambda m: m.add_fact("fact 3 about the tokyo office"),
    "replace_in_core": lambda m: m.replace_in_core("fact 3 about the tokyo", "fact 3 osaka"),
    "archival_insert": lambda m: m.archival_insert("a new passage"),
    "process_interaction": lambda m: m.process_interaction("I like tea.", "Noted."),
    "set_state": lambda m: m.set_state("context", {}),
    "interaction": lambda m: m.interaction().__enter__(),
    "recall_append": lambda m: m.recall.append("user", "hello", 1),
}


def test_inspection_works_while_another_process_writes(tmp_path: Path) -> None:
    home = tmp_path / "agent"
    _fill(home)
    with _writer_holding(home):
        before = _files(home)
        with make_memory(home, read_only=True) as m:
            hits = m.archival_search("writer that still holds the lock").hits
            assert hits[0].text == "written by the writer that still holds the lock"
            assert m.query("billing runbook", touch=True)[0].text.startswith("the billing")
            report = m.diagnostics()
            # Two facts evicted, the runbook and the writer's passage.
            assert report["archival"]["passages"] == 4 and report["core"]["facts"] == 3
            facts = [f.to_dict() for f in m.core]
            for name, write in WRITES.items():
                with pytest.raises(ReadOnlyError, match="read-only") as info:
                    write(m)
                assert "read_only" in str(info.value), name
            assert [f.to_dict() for f in m.core] == facts  # query(touch=True) counted nothing
        assert _files(home) == before


def test_cli_diagnostics_runs_while_a_chat_holds_the_home(tmp_path: Path) -> None:
    env = {**ENV, "TIERMEM_HOME": str(tmp_path / "tiermem"), "HF_HUB_OFFLINE": "1"}
    with child_process([sys.executable, "cli.py", "chat", "--agent", "a", "--offline",
                        "--embedder", "hashing"], cwd=REPO, env=env) as chat:
        assert chat.stdin is not None and chat.stdout is not None
        chat.stdin.write("I am allergic to peanuts.\n")
        chat.stdin.flush()
        assert chat.stdout.readline()  # it answered: the chat has the home open
        report = subprocess.run(
            [sys.executable, "cli.py", "diagnostics", "--agent", "a", "--embedder", "hashing",
             "--format", "json"], cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
        assert report.returncode == 0, report.stderr
        assert json.loads(report.stdout)["recall"]["messages"] >= 2
        chat.stdin.close()
        assert chat.wait(timeout=120) == 0


def test_stale_index_files_are_rebuilt_in_memory_only(tmp_path: Path) -> None:
    home = tmp_path / "agent"
    _fill(home)
    (home / "archival.json").write_text("{}")
    before = _files(home)
    with make_memory(home, read_only=True) as m:
        assert m.archival.vectors.rebuilt_on_open
        assert m.archival.vectors.differences() == []
        assert m.archival_search("billing runbook").hits[0].text.startswith("the billing")
    assert _files(home) == before


def test_a_read_only_memory_takes_the_same_snapshot_and_writes_nothing(
    tmp_path: Path,
) -> None:
    home = tmp_path / "agent"
    _fill(home)
    with make_memory(home) as writer:
        expected = writer.snapshot()
    before = _files(home)
    with make_memory(home, read_only=True) as reader:
        assert reader.snapshot() == expected
    assert _files(home) == before


def test_read_only_needs_an_existing_memory(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="no memory at"):
        make_memory(tmp_path / "nowhere", read_only=True)
    assert not (tmp_path / "nowhere").exists()
    with pytest.raises(ValueError, match="read_only needs"):
        make_memory(None, read_only=True)


def test_a_reader_keeps_the_core_size_its_writer_set(tmp_path: Path) -> None:
    home = tmp_path / "agent"
    with make_memory(home, core_limit=10, core_limit_unit="facts") as writer:
        for n in range(10):
            writer.add_fact(f"User owns server number {n}")
    # A reader cannot evict, so a smaller core would hold more than its limit.
    for asked in ({"core_limit": 3}, {"core_limit_unit": "tokens"}):
        with pytest.raises(InvalidConfigError, match=r"open read-only, so its core keeps the "
                                                      r"size its writer set \(10 facts\)"):
            make_memory(home, read_only=True, **asked)
    with make_memory(home, read_only=True) as reader:
        assert (reader.core.used, reader.core.limit) == (10, 10)
    # A larger core, or another unit, is refused too, and not as one too small to fit.
    for asked in ({"core_limit": 500}, {"core_limit_unit": "tokens"}):
        with pytest.raises(InvalidConfigError) as refused:
            make_memory(home, read_only=True, **asked)
        assert "smaller" not in str(refused.value)
        assert "cannot resize it" in str(refused.value)
    with make_memory(home, read_only=True, core_limit=10, core_limit_unit="facts") as reader:
        assert reader.core.used <= reader.core.limit
    # A damaged stored setting is still repaired by giving it, as its error says to.
    with contextlib.closing(writable_database(home / DB_FILE)) as conn, conn:
        conn.execute("UPDATE meta SET value = 'garbage' WHERE key = 'tau'")
    with make_memory(home, read_only=True, tau=50.0) as reader:
        assert reader.config.tau == 50.0 and reader.core.used == 10


@pytest.mark.parametrize("dies_in", [1, 5])
def test_a_home_killed_while_being_created_is_reported_as_such_not_as_older(
        tmp_path: Path, dies_in: int) -> None:
    home = tmp_path / "agent"

    def create_then_die(report: Report) -> None:
        def die(conn: sqlite3.Connection) -> None:
            os.kill(os.getpid(), signal.SIGKILL)

        # The first open runs every migration: the process dies in migration ``dies_in``.
        schema.MIGRATIONS = tuple(dataclasses.replace(m, apply=die) if m.number == dies_in
                                  else m for m in schema.MIGRATIONS)
        make_memory(home)
        report("survived the kill")

    outcome = run_forked(create_then_die)
    assert outcome.killed and outcome.lines == []
    with pytest.raises(StoreError, match="never finished being created") as info:
        make_memory(home, read_only=True)
    assert "holds nothing yet" in str(info.value) and "older" not in str(info.value)
    with make_memory(home) as m:  # as the message says, opening for writing finishes it
        m.add_fact("User likes tea")
    with make_memory(home, read_only=True) as m:
        assert [f.text for f in m.facts()] == ["User likes tea"]


def test_a_database_of_an_older_schema_is_reported_as_older(tmp_path: Path) -> None:
    home = tmp_path / "agent"
    with sqlite_schema_at_version(schema.SCHEMA_VERSION - 1):  # as the version before wrote it
        _fill(home)
    with pytest.raises(OlderSchemaError, match="older version of tiermem") as info:
        make_memory(home, read_only=True)
    older = info.value
    assert (older.found, older.current) == (schema.SCHEMA_VERSION - 1, schema.SCHEMA_VERSION)
    assert "open it once for writing" in str(older)
    # Errors cross process boundaries (forked workers, the crash harness) by pickle.
    copy = pickle.loads(pickle.dumps(older))
    assert (type(copy), str(copy), copy.found, copy.current) == (
        OlderSchemaError, str(older), older.found, older.current)
    with contextlib.closing(sqlite3.connect(home / DB_FILE)) as conn:  # nothing written
        assert conn.execute("PRAGMA user_version").fetchone()[0] == schema.SCHEMA_VERSION - 1


def test_a_database_of_a_newer_schema_is_not_reported_as_older(tmp_path: Path) -> None:
    home = tmp_path / "agent"
    _fill(home)
    # A newer version's migrations are unknown here: its schema number is all that is read.
    with contextlib.closing(sqlite3.connect(home / DB_FILE)) as conn:
        conn.execute(f"PRAGMA user_version = {schema.SCHEMA_VERSION + 1}")
    with pytest.raises(StoreError, match="written by a newer version") as info:
        make_memory(home, read_only=True)
    assert not isinstance(info.value, OlderSchemaError)


def test_a_home_on_a_read_only_filesystem_can_be_inspected(tmp_path: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("mounting a file system needs root")
    with mounted_tmpfs(tmp_path, "8m") as disk:
        home = disk / "agent"
        _fill(home)
        subprocess.run(["mount", "-o", "remount,ro", str(disk)], check=True)
        with make_memory(home, read_only=True) as m:
            assert m.archival_search("billing runbook").hits[0].text.startswith("the billing")
            assert len(m.core) == 3
        with pytest.raises(StoreError, match="read_only=True"):
            make_memory(home)


def test_a_read_only_copy_whose_wal_holds_commits_is_refused_not_read_without_them(
        tmp_path: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("mounting a file system needs root")
    with mounted_tmpfs(tmp_path, "8m") as disk:
        home, copy = tmp_path / "agent", disk / "agent"
        copy.mkdir()
        with make_memory(home) as m:
            m.add_fact("User likes figs")
            # A copy taken while the writer ran (or after it crashed): the commits are in
            # the -wal, not yet in the database file, and there is no -shm.
            for name in (DB_FILE, f"{DB_FILE}-wal"):
                shutil.copy2(home / name, copy / name)
        assert (copy / f"{DB_FILE}-wal").stat().st_size > 0
        subprocess.run(["mount", "-o", "remount,ro", str(disk)], check=True)
        with pytest.raises(StoreError, match=r"read-only, and memory.sqlite3-wal holds changes "
                                             r"not yet in memory.sqlite3.*copy the agent home"):
            make_memory(copy, read_only=True)


# -- a turn killed mid-way --------------------------------------------------------------------

_KILLED_TURN = textwrap.dedent("""
    import os, signal, sys
    from tiermem.agent.loop import Agent
    from tiermem.memory.embed.embeddings import HashingEmbedder
    from tiermem.memory.hierarchy import HierarchicalMemory

    class DiesWhenAsked:
        name = "dies"
        context_window = 100_000

        def complete(self, messages, tools):
            os.kill(os.getpid(), signal.SIGKILL)

    m = HierarchicalMemory(sys.argv[1], embedder=HashingEmbedder())
    Agent(m, DiesWhenAsked()).step("Is the billing runbook in the wiki?")
""")


def test_a_killed_turns_message_is_marked_unanswered_at_the_next_writer_open(
        tmp_path: Path) -> None:
    home = tmp_path / "agent"
    _fill(home)
    killed = subprocess.run([sys.executable, "-c", _KILLED_TURN, str(home)], cwd=REPO, env=ENV,
                            capture_output=True, text=True, timeout=120)
    assert killed.returncode == -9, killed.stderr

    def statuses(m: HierarchicalMemory) -> list[tuple[str, str]]:
        return [(r[0], r[1]) for r in m.store.execute(
            "SELECT content, status FROM messages WHERE role = 'user' ORDER BY id")]

    question = "Is the billing runbook in the wiki?"
    with make_memory(home, read_only=True) as m:  # a reader changes nothing
        assert statuses(m)[-1] == (question, "pending")
    with make_memory(home) as m:
        assert statuses(m) == [("The production region is eu-west-1.", "ok"),
                               (question, "unanswered")]
