"""A home another process has open for writing: the command line says to wait for that
process or use a command that only reads, not the library's ``read_only=True``, which
Python callers still get."""

from __future__ import annotations

import contextlib
import io
import os
import sqlite3
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tiermem.cli import main
from tiermem.memory.embed.embeddings import HashingEmbedder
from tiermem.memory.errors import StoreLockedError
from tiermem.memory.hierarchy import HierarchicalMemory
from tiermem.memory.store.sqlite import DB_FILE
from tiermem.memory.store.sqlite.schema import SCHEMA_VERSION
from tiermem.memory.store.sqlite.writer_lock import WriterLock


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
    if command[0] == "upgrade":
        with contextlib.closing(sqlite3.connect(home / DB_FILE)) as conn:
            conn.execute("DROP INDEX erasures_message")
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION - 1}")
    with _held(home):
        assert main(command) == 1
    assert capsys.readouterr().err == (
        f"tiermem: agent home {home} is open for writing by process {os.getpid()}; wait for "
        f"that process to end (or end its session) and try again. Commands that only read, "
        f"such as `tiermem diagnostics --agent ada`, work meanwhile\n")


def test_a_python_caller_is_still_told_of_read_only(home: Path) -> None:
    with _held(home), pytest.raises(StoreLockedError, match="open it with read_only=True"):
        HierarchicalMemory(home, embedder=HashingEmbedder())


def test_a_writer_lock_that_cannot_be_opened_gets_command_line_advice(
        home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    from tiermem.memory.store.sqlite import writer_lock

    real_open = os.open

    def refused(path: str | os.PathLike[str], flags: int, mode: int = 0o777) -> int:
        if Path(path) == home / writer_lock.LOCK_FILE:  # as on a read-only file system
            raise OSError(30, "Read-only file system")
        return real_open(path, flags, mode)

    monkeypatch.setattr(writer_lock.os, "open", refused)
    assert main(["config", "--agent", "ada", "core_limit", "500"]) == 1
    err = capsys.readouterr().err
    assert err == (f"tiermem: cannot open the writer lock {home / writer_lock.LOCK_FILE}: "
                   f"Read-only file system; check that the agent home is writable by this "
                   f"user. Commands that only read, such as `tiermem diagnostics --agent "
                   f"ada`, work without writing it\n")
    monkeypatch.setattr(writer_lock.os, "open", real_open)
    with HierarchicalMemory(home, embedder=HashingEmbedder(), read_only=True) as memory:
        assert memory.core.limit == 2000  # nothing changed
