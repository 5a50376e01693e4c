"""A home another process has open for writing, or whose writer lock file cannot be opened:
the command line says what to do at a shell (wait for that process, check the home's
permissions, use a command that only reads), not the library's ``read_only=True``, which
Python callers still get."""

from __future__ import annotations

import argparse
import contextlib
import errno
import io
import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from memory_helpers import sqlite_store_at_version
from network_guard import guarded_env

from tiermem.agent.store_errors import cli_message
from tiermem.cli import main
from tiermem.memory.embed.embeddings import HashingEmbedder
from tiermem.memory.errors import (
    ConnectionLostError,
    StoreError,
    StoreLockedError,
    WriterLockError,
)
from tiermem.memory.hierarchy import HierarchicalMemory
from tiermem.memory.store.sqlite.schema import SCHEMA_VERSION
from tiermem.memory.store.sqlite.writer_lock import LOCK_FILE, WriterLock

#: The repository, whose cli.py a shell runs as the user would.
_ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("TIERMEM_HOME", str(tmp_path))
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"hello\n")))
    home = tmp_path / "agents" / "ada"
    with HierarchicalMemory(home, embedder=HashingEmbedder()) as memory:
        memory.add_fact("User likes green tea", "durable")
    return home


@contextlib.contextmanager
def _held(home: Path) -> Iterator[None]:
    lock = WriterLock(home)
    lock.acquire()
    try:
        yield
    finally:
        lock.release()


@pytest.mark.parametrize("command", [
    ["chat", "--agent", "ada", "--offline"],
    ["chat", "--agent", "ada", "--offline", "--embedder", "hashing"],
    ["forget", "--agent", "ada", "User likes green tea"],
    ["config", "--agent", "ada", "core_limit", "500"],
    ["upgrade", "--agent", "ada"],  # on a home one schema back: it must open it for writing
])
def test_a_writing_command_on_a_held_home_says_to_wait_or_read(
        home: Path, capsys: pytest.CaptureFixture[str], command: list[str]) -> None:
    if command[0] == "upgrade":  # the home as the version before the newest wrote it
        shutil.rmtree(home)
        with sqlite_store_at_version(home, SCHEMA_VERSION - 1):
            pass
    with _held(home):
        assert main(command) == 1
    # upgrade opens for writing only a memory at an older schema, which the readers refuse
    # until it is upgraded: naming one would send the user back to upgrade.
    readers = ("" if command[0] == "upgrade" else
               ". Commands that only read, such as `tiermem diagnostics --agent ada`, work "
               "meanwhile (unless it is a reindex, which they wait for)")
    assert capsys.readouterr().err == (
        f"tiermem: agent home {home} is open for writing by process {os.getpid()}; wait for "
        f"that process to end (or end its session) and try again{readers}\n")


def test_upgrade_of_a_held_home_given_by_directory_names_no_reader_that_cannot_reach_it(
        home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # diagnostics has no --home: it would read agent default under $TIERMEM_HOME instead.
    elsewhere = tmp_path / "elsewhere"  # the home as the version before the newest wrote it
    with sqlite_store_at_version(elsewhere, SCHEMA_VERSION - 1):
        pass
    with _held(elsewhere):
        assert main(["upgrade", "--home", str(elsewhere)]) == 1
    assert capsys.readouterr().err == (
        f"tiermem: agent home {elsewhere} is open for writing by process {os.getpid()}; wait "
        f"for that process to end (or end its session) and try again\n")


@pytest.mark.parametrize(("given", "reader"), [
    ({"agent": None, "store": "postgresql://tm@db/mem"},
     "`tiermem diagnostics --store postgresql://tm@db/mem`"),
    ({"agent": "ada", "store": "postgresql://tm@db/mem"},
     "`tiermem diagnostics --agent ada --store postgresql://tm@db/mem`"),
    ({"agent": None, "store": None}, "`tiermem diagnostics`"),
])
def test_the_reader_named_for_a_held_agent_keeps_the_options_given(
        given: dict[str, Any], reader: str) -> None:
    args = argparse.Namespace(command="chat", home=None, **given)
    held = StoreLockedError("agent home /h", 7)
    assert cli_message(held, args).endswith(
        f"try again. Commands that only read, such as {reader}, work meanwhile (unless it "
        f"is a reindex, which they wait for)")


@pytest.mark.parametrize(("command", "options"), [
    ("scenario", {"name": "changing-facts", "store": "postgresql://tm@db/mem"}),
    ("diagnostics", {"agent": None, "scenario": "changing-facts",
                     "store": "postgresql://tm@db/mem"}),
])
def test_the_reader_named_for_a_held_scenario_keeps_its_store(
        command: str, options: dict[str, Any]) -> None:
    args = argparse.Namespace(command=command, home=None, **options)
    said = cli_message(StoreLockedError("agent scenario-changing-facts", 7), args)
    assert said.endswith("such as `tiermem diagnostics --scenario changing-facts --store "
                         "postgresql://tm@db/mem`, work meanwhile (unless it is a reindex, "
                         "which they wait for)")


@pytest.mark.parametrize("command", ["migrate", "upgrade"])
def test_no_reader_is_named_where_none_reaches_the_held_memory(command: str) -> None:
    # migrate names its homes by path, which diagnostics has no option for; upgrade only
    # writes to a memory at an older schema, which the readers refuse.
    args = argparse.Namespace(command=command, home=None, agent="ada", store=None)
    said = cli_message(StoreLockedError("agent home /h", 7), args)
    assert said.endswith("and try again") and "diagnostics" not in said


def test_a_python_caller_is_still_told_of_read_only(home: Path) -> None:
    with _held(home), pytest.raises(StoreLockedError, match="open it with read_only=True"):
        HierarchicalMemory(home, embedder=HashingEmbedder())


def _lock_unopenable(monkeypatch: pytest.MonkeyPatch, code: int) -> None:
    """Opening any writer lock fails with ``code``, as it does in a home this user may not
    write or on a read-only file system (the tests may run as root, whom modes do not stop)."""
    real_open = os.open

    def refusing(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if Path(path).name == LOCK_FILE:
            raise OSError(code, os.strerror(code), str(path))
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", refusing)


@pytest.mark.parametrize("code", [errno.EACCES, errno.EROFS], ids=["denied", "read-only"])
@pytest.mark.parametrize("command", [
    ["chat", "--agent", "ada", "--offline"],
    ["forget", "--agent", "ada", "User likes green tea"],
    ["config", "--agent", "ada", "core_limit", "500"],
])
def test_a_writing_command_whose_lock_cannot_be_opened_says_to_check_the_home_or_read(
        home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        command: list[str], code: int) -> None:
    _lock_unopenable(monkeypatch, code)
    assert main(command) == 1
    assert capsys.readouterr().err == (
        f"tiermem: cannot open {home / LOCK_FILE} ({os.strerror(code)}), the lock a command "
        f"that writes takes on the agent home; check that this user owns {home} and may "
        f"write in it. On a read-only file system, use a command that only reads, such as "
        f"`tiermem diagnostics --agent ada`\n")
    monkeypatch.undo()
    with HierarchicalMemory(home, embedder=HashingEmbedder(), read_only=True) as memory:
        assert [fact.text for fact in memory.facts()] == ["User likes green tea"]


def test_a_python_caller_whose_lock_cannot_be_opened_is_told_of_read_only(
        home: Path) -> None:
    # A lock file that is a symbolic link to itself fails to open for anyone, root too.
    (home / LOCK_FILE).unlink()
    (home / LOCK_FILE).symlink_to(LOCK_FILE)
    with pytest.raises(WriterLockError) as refused:
        HierarchicalMemory(home, embedder=HashingEmbedder())
    assert refused.value.path == str(home / LOCK_FILE)
    assert str(refused.value) == (
        f"cannot open the writer lock {home / LOCK_FILE}: {os.strerror(errno.ELOOP)}; check "
        f"that the agent home is writable by this user, or open it with read_only=True to "
        f"inspect it")


def test_a_scenario_run_on_a_held_home_names_the_diagnostics_that_reads_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from tiermem.scenarios.runner import scenario_home

    monkeypatch.setenv("TIERMEM_HOME", str(tmp_path))
    where = scenario_home("personal-assistant")
    with HierarchicalMemory(where, embedder=HashingEmbedder()) as memory:
        memory.add_fact("User is allergic to peanuts", "durable")
    with _held(where):  # a run in progress: the new one must not empty its home under it
        assert main(["scenario", "personal-assistant", "--embedder", "hashing"]) == 1
        err = capsys.readouterr().err
        # The reader it names, run as given in a shell that set TIERMEM_HOME only for the run.
        reader = re.search(r"and `([^`]+)` reads it meanwhile", err)
        assert reader is not None, err
        cli = f"{shlex.quote(sys.executable)} {shlex.quote(str(_ROOT / 'cli.py'))}"
        env = {name: value for name, value in os.environ.items() if name != "TIERMEM_HOME"}
        env.update(HOME=str(tmp_path / "user"), HF_HUB_OFFLINE="1")
        read = subprocess.run(
            ["bash", "-c", f'tiermem() {{ {cli} "$@" --embedder hashing; }}\n{reader[1]}'],
            capture_output=True, text=True, env=guarded_env(env), check=False)
    assert read.returncode == 0 and "facts in core" in read.stdout, read.stdout + read.stderr
    with HierarchicalMemory(where, embedder=HashingEmbedder(), read_only=True) as memory:
        assert [fact.text for fact in memory.facts()] == ["User is allergic to peanuts"]
    assert err.startswith(f"tiermem: agent home {where} is open for writing by process ")
    assert (f"scenario personal-assistant is being run there already, and `TIERMEM_HOME="
            f"{shlex.quote(str(tmp_path))} tiermem diagnostics --scenario personal-assistant` "
            "reads it meanwhile. ") in err, err


def test_a_writer_whose_lock_file_was_deleted_takes_it_again_or_stops_writing(
        tmp_path: Path) -> None:
    home = tmp_path / "agent"
    # Two memories in one process stand for two processes: an flock belongs to the open
    # file, so the second open of the file conflicts with the first as another process's.
    first = HierarchicalMemory(home, embedder=HashingEmbedder())
    try:
        first.add_fact("User likes green tea")
        (home / LOCK_FILE).unlink()  # a "stale lock" removed by hand
        first.add_fact("User lives in Lisbon")  # takes the lock file at the path again
        assert (home / LOCK_FILE).read_text() == str(os.getpid())
        with pytest.raises(StoreLockedError):
            HierarchicalMemory(home, embedder=HashingEmbedder())
        (home / LOCK_FILE).unlink()
        with HierarchicalMemory(home, embedder=HashingEmbedder()) as second:
            second.add_fact("User works at Acme")
            # The first would now write beside the second: it stops, saying why.
            with pytest.raises(StoreError, match=r"was deleted while this session held it.*"
                                                 r"stops writing"):
                first.add_fact("User drinks coffee")
            assert sorted(f.text for f in second.core) == [
                "User likes green tea", "User lives in Lisbon", "User works at Acme"]
    finally:
        first.close()


def test_a_writer_whose_lock_was_deleted_stops_once_another_has_written_meanwhile(
        tmp_path: Path) -> None:
    home = tmp_path / "agent"
    first = HierarchicalMemory(home, embedder=HashingEmbedder())
    try:
        first.process_interaction("I like green tea.", "Noted.")
        (home / LOCK_FILE).unlink()
        with HierarchicalMemory(home, embedder=HashingEmbedder()) as second:  # came and went
            second.process_interaction("I live in Lisbon.", "Noted.")
        # Taking the lock back now would write turn 2 again over a database at turn 2.
        with pytest.raises(StoreError, match="another process has written the agent home "
                                             "since; this session stops writing"):
            first.process_interaction("I work at Acme.", "Noted.")
    finally:
        first.close()
    with HierarchicalMemory(home, embedder=HashingEmbedder(), read_only=True) as memory:
        turns = [r["turn"] for r in memory.recall.iter_rows() if r["role"] == "user"]
        assert turns == [1, 2] and memory.tick == 2


@pytest.mark.parametrize(("command", "extra", "again"), [
    ("reindex", {"embedder": "hashing"},
     "then run `tiermem reindex --agent ada --store postgresql://tm@db/mem --embedder "
     "hashing` again (it continues where it stopped)"),
    ("forget", {}, "then run the command again"),
])
def test_a_lost_connection_says_to_run_the_command_again(
        command: str, extra: dict[str, Any], again: str) -> None:
    args = argparse.Namespace(command=command, home=None, agent="ada",
                              store="postgresql://tm@db/mem", **extra)
    lost = ConnectionLostError("lost the connection to PostgreSQL for agent 'ada'",
                               "`tiermem pg status`")
    said = cli_message(lost, args)
    assert said == (f"lost the connection to PostgreSQL for agent 'ada'. Check the server "
                    f"(`tiermem pg status`), {again}")
    assert "open the memory again" not in said
