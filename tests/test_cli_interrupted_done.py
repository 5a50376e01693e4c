"""Ctrl-C once a writing command's work is done (as it returns its status, or as the command
line ends): exit 130 with a line saying the work was done and stands, never the line for a
Ctrl-C before it ("before it changed what the memory holds", "before it read any input").
Ctrl-C is raised by a line tracer at a chosen line, never by a timer."""

from __future__ import annotations

import contextlib
import inspect
import io
import json
import logging
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from line_ctrl_c import ctrl_c_at
from test_cli_interrupted import ada  # noqa: F401  (the fixture)

from tiermem.agent import (
    chat_command,
    config_command,
    forget_command,
    index_command,
    library_notes,
    pg_commands,
    restore_command,
    store_commands,
    upgrade_command,
)
from tiermem.cli import main
from tiermem.memory.embed.embeddings import HashingEmbedder
from tiermem.memory.hierarchy import HierarchicalMemory


@pytest.fixture(autouse=True)
def _library_handlers_restored() -> Iterator[None]:
    """A Ctrl-C raised before ``library_notes`` removes its handler leaves it on the logger,
    where a process would end; later tests in this one would print each note again."""
    logger = logging.getLogger(library_notes.LIBRARY_LOGGER)
    handlers = list(logger.handlers)
    yield
    logger.handlers[:] = handlers


def _last_line(function: Callable[..., Any], starts: str) -> int:
    """The number of the last line of ``function`` that starts with ``starts``."""
    lines, first = inspect.getsourcelines(function)
    return max(first + i for i, line in enumerate(lines) if line.strip().startswith(starts))


@contextlib.contextmanager
def _ctrl_c_at(function: Callable[..., Any], line: int) -> Iterator[None]:
    """Ctrl-C raised the first time ``function`` reaches ``line``, which it must."""
    with ctrl_c_at(function, line) as pressed:
        yield
    assert pressed[0], "the line was never reached"


def _snapshot(home: Path, tmp_path: Path) -> Path:
    path = tmp_path / "ada.json"
    with HierarchicalMemory(home, embedder=HashingEmbedder(), read_only=True) as memory:
        memory.write_snapshot(path)
    return path


#: Each writing command, where its status is returned once its work is done.
_COMMANDS: dict[str, tuple[Callable[..., Any], str]] = {
    "forget": (forget_command.cmd_forget, "return 0 if"),
    "reindex": (store_commands.cmd_reindex, "return 0"),
    "migrate": (store_commands.cmd_migrate, "return 0"),
    "upgrade": (upgrade_command.cmd_upgrade, "return 0"),
    "restore": (restore_command.cmd_restore, "return 0"),
    "chat": (chat_command.cmd_chat, "return code"),
    "config": (config_command.cmd_config, "return 0"),
    "index": (index_command.cmd_index, "return 1 if any"),
}


def _argv(command: str, home: Path, tmp_path: Path) -> list[str]:
    return {
        "forget": ["forget", "--agent", "ada", "User's locker code is 4412"],
        "reindex": ["reindex", "--agent", "ada", "--embedder", "hashing"],
        "migrate": ["migrate", "--from", str(home), "--to", str(tmp_path / "copy")],
        "upgrade": ["upgrade", "--agent", "ada"],
        "restore": ["restore", str(_snapshot(home, tmp_path)), "--agent", "bea"],
        "chat": ["chat", "--agent", "ada", "--embedder", "hashing", "--offline"],
        "config": ["config", "--agent", "ada", "core_limit", "3000"],
        "index": ["index", "--agent", "ada"],
    }[command]


@pytest.mark.parametrize("where", ["returning", "ending"])
@pytest.mark.parametrize("command", list(_COMMANDS))
def test_a_writing_command_stopped_once_its_work_is_done_says_so(
        ada: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,  # noqa: F811
        capsys: pytest.CaptureFixture[str], command: str, where: str) -> None:
    monkeypatch.setattr(sys, "stdin", _Piped("hello there\n"))
    argv = _argv(command, ada, tmp_path)
    if where == "returning":  # at the handler's own `return`
        function, starts = _COMMANDS[command]
    else:  # as the command line takes the library's warnings back, after it returned
        function, starts = library_notes.library_notes.__wrapped__, "logger.removeHandler"
    with _ctrl_c_at(function, _last_line(function, starts)):
        assert main(argv) == 130
    err = capsys.readouterr().err
    assert err.endswith(
        f"tiermem: {command} stopped (Ctrl-C) after its work was done, which stands; only "
        f"output it had still to write may be missing\n"), err
    assert err.count("stopped (Ctrl-C)") == 1, err
    if command == "forget":
        with HierarchicalMemory(ada, embedder=HashingEmbedder(), read_only=True) as memory:
            assert [r.outcome for r in memory.forget_requests(newest=1)] == ["matched"]


def _stopped_once_done(function: Callable[..., Any], starts: str, where: str,
                       argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    """``argv`` run with Ctrl-C once its work is done: at the first line of ``function``
    that starts with ``starts`` (``where`` "returning"), or as the command line ends."""
    if where == "ending":
        function, starts = library_notes.library_notes.__wrapped__, "logger.removeHandler"
    with _ctrl_c_at(function, _last_line(function, starts)):
        assert main(argv) == 130
    err = capsys.readouterr().err
    command = " ".join(argv[:2]) if argv[0] == "pg" else argv[0]
    assert err.endswith(
        f"tiermem: {command} stopped (Ctrl-C) after its work was done, which stands; only "
        f"output it had still to write may be missing\n"), err
    assert err.count("stopped (Ctrl-C)") == 1, err


@pytest.mark.parametrize("where", ["returning", "ending"])
@pytest.mark.parametrize(("action", "after"), [("start", "print(dsn)"),
                                               ("stop", 'note(f"stopped the server')])
def test_pg_stopped_once_the_server_started_or_stopped_says_so(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        action: str, after: str, where: str) -> None:
    from tiermem.memory.store.postgres.local_server import LocalPostgres

    # What the command makes of the server's answer is tested, not the server itself.
    monkeypatch.setattr(LocalPostgres, "start", lambda self, *a, **k: "postgresql:///tiermem")
    monkeypatch.setattr(LocalPostgres, "stop", lambda self, *a, **k: True)
    _stopped_once_done(pg_commands.cmd_pg, after, where,
                       ["pg", action, "--dir", str(tmp_path / "pg")], capsys)


@pytest.mark.parametrize("where", ["returning", "ending"])
def test_drop_agent_stopped_once_the_agent_is_deleted_says_so(
        postgres_dsn: str, capsys: pytest.CaptureFixture[str], where: str) -> None:
    from tiermem.memory.store.postgres.connection import stored_agents

    with HierarchicalMemory(store=postgres_dsn, agent="cyd", embedder=HashingEmbedder()) as cyd:
        cyd.add_fact("User's desk is by the window")
    _stopped_once_done(pg_commands.cmd_drop_agent, "return code", where,
                       ["drop-agent", "--agent", "cyd", "--store", postgres_dsn, "--yes"], capsys)
    assert "cyd" not in (stored_agents(postgres_dsn) or [])


def test_a_reading_command_stopped_once_done_says_its_work_stands(
        ada: Path, monkeypatch: pytest.MonkeyPatch,  # noqa: F811
        capsys: pytest.CaptureFixture[str]) -> None:
    function = library_notes.library_notes.__wrapped__
    with _ctrl_c_at(function, _last_line(function, "logger.remove")):
        assert main(["diagnostics", "--agent", "ada", "--json"]) == 130
    done = capsys.readouterr()
    assert "core" in json.loads(done.out)
    assert done.err.endswith("tiermem: diagnostics stopped (Ctrl-C) after its work was done, "
                             "which stands; only output it had still to write may be "
                             "missing\n")


class _Piped:
    """Standard input piped with ``text``."""

    def __init__(self, text: str) -> None:
        self.buffer = io.BytesIO(text.encode())

    def isatty(self) -> bool:
        return False

    def fileno(self) -> int:
        raise OSError("piped")

