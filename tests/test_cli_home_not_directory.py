"""A TIERMEM_HOME (or ~/.tiermem) that is a file: every command refuses it as a usage
error naming it, rather than a traceback, or "no agents yet" with a command that fails."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest

from tiermem.cli import main

_COMMANDS = [
    ["chat", "--offline", "--embedder", "hashing"],
    ["diagnostics"],
    ["forget", "my sister"],
    ["config"],
    ["upgrade"],
    ["restore", "snapshot.json", "--agent", "ada"],
    ["scenario", "personal-assistant", "--offline", "--embedder", "hashing"],
    ["pg", "status"],
]


@pytest.mark.parametrize("args", _COMMANDS, ids=lambda args: args[0])
def test_a_home_that_is_a_file_is_a_usage_error(
        args: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    home = tmp_path / "notes.txt"
    home.write_text("kept\n")
    monkeypatch.setenv("TIERMEM_HOME", str(home))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"hello\n")))
    assert main(args) == 2
    assert capsys.readouterr().err == (
        f"tiermem: TIERMEM_HOME is {home}, which is not a directory; set it to the "
        f"directory to keep agent homes in\n")
    assert home.read_text() == "kept\n"


def test_a_default_home_that_is_a_file_says_how_to_move_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / ".tiermem").write_text("")
    monkeypatch.delenv("TIERMEM_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert main(["diagnostics"]) == 2
    assert capsys.readouterr().err == (
        f"tiermem: {tmp_path / '.tiermem'}, where agent homes are kept, is not a directory; "
        f"move it away, or set TIERMEM_HOME to the directory to keep them in\n")
