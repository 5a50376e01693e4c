"""A command asked for ``--json PATH`` writes that file even when the reader of its
standard output has gone (``| head``), then exits as a closed pipe does (141)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from test_cli import ROOT, cli_env, tiermem

from tiermem.agent.terminal import Progress


def _reader_gone(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``tiermem ARGS`` with standard output a pipe whose reader closed before any write."""
    child = subprocess.Popen([sys.executable, "cli.py", *args], cwd=ROOT, env=cli_env(home),
                             stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    assert child.stdout is not None and child.stderr is not None
    child.stdout.close()
    stderr = child.stderr.read()
    child.stderr.close()
    return subprocess.CompletedProcess(child.args, child.wait(), "", stderr)


@pytest.mark.parametrize("command", [
    ["config", "--agent", "a"],
    ["scenario", "personal-assistant", "--embedder", "hashing"],
    ["benchmark", "--quick", "--only", "core_limit,durable_resistance"],
])
def test_the_json_file_is_written_when_the_reader_is_gone(tmp_path: Path,
                                                          command: list[str]) -> None:
    home = tmp_path / "home"
    assert tiermem(home, "chat", "--agent", "a", "--embedder", "hashing",
                   stdin="hi\n").returncode == 0
    out = tmp_path / "out.json"
    done = _reader_gone(home, *command, "--json", str(out))
    assert done.returncode == 141, done.stderr
    assert "Traceback" not in done.stderr
    assert isinstance(json.loads(out.read_text(encoding="utf-8")), dict)


def test_progress_stops_showing_at_a_closed_pipe_and_raises_it_at_the_end() -> None:
    shown: list[int] = []

    def show(n: int) -> None:
        if n == 2:
            raise BrokenPipeError(32, "Broken pipe")
        shown.append(n)

    progress = Progress(show)
    for n in range(1, 5):
        progress(n)
    assert shown == [1] and isinstance(progress.gone, BrokenPipeError)
    with pytest.raises(BrokenPipeError):
        progress.finish(shown.append, 99)
    assert 99 not in shown
    fine = Progress(shown.append)
    fine(5)
    fine.finish(shown.append, 6)
    assert shown == [1, 5, 6]


def test_progress_lets_other_exits_through() -> None:
    def leave(code: int) -> None:
        raise SystemExit(code)

    with pytest.raises(SystemExit):
        Progress(leave)(3)
