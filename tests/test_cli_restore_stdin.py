"""``tiermem restore -`` is refused, not taken for a file named "-": the snapshot is read
twice (checked whole before anything is written, then written), which standard input
cannot give. The refusal and the help say so, and how to give a file named "-"."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from memory_helpers import make_memory

from tiermem.cli import main

REFUSED = ("tiermem: restore reads the snapshot twice (checked whole before anything is "
           "written, then written), which standard input cannot give: save it to a file and "
           "give its path (a file named - as ./-)\n")


@pytest.fixture
def snapshot_named_dash(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A good snapshot in a file named "-" in the working directory."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TIERMEM_HOME", str(tmp_path / "homes"))
    with make_memory(tmp_path / "source") as m:
        m.add_fact("User lives in Lyon", "durable")
        m.write_snapshot(tmp_path / "-")
    return tmp_path / "homes" / "agents"


def test_a_dash_is_refused_and_neither_stdin_nor_a_file_named_dash_is_read(
        snapshot_named_dash: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("{}"))
    assert main(["restore", "-", "--agent", "zed"]) == 2
    out, err = capsys.readouterr()
    assert (out, err) == ("", REFUSED)
    assert not (snapshot_named_dash / "zed").exists()
    assert main(["restore", "./-", "--agent", "zed"]) == 0
    assert "restored agent zed from -: 1 fact in core" in capsys.readouterr().out


def test_the_help_says_a_dash_is_no_standard_input(
        capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["restore", "--help"])
    shown = " ".join(capsys.readouterr().out.split())
    assert "not - (standard input): the file is read twice (a file named - as ./-)" in shown
