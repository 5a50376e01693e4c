"""Report and snapshot files: written whole or not at all, and their paths checked first."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from test_cli import tiermem

from tiermem.memory.output_file import (
    OutputPathError,
    check_writable,
    output_path,
    write_atomic,
)


def test_a_failed_write_leaves_the_old_file_and_no_temporary_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "report.json"
    target.write_text("old report")

    def refuse(*_: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(OutputPathError, match="No space left on device"):
        write_atomic(target, "new report")
    assert target.read_text() == "old report"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.json"]


def test_a_directory_that_cannot_be_synced_leaves_the_file_written_with_a_warning(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The rename is done: "cannot write" would be false, and send the user to write again.
    target = tmp_path / "report.json"
    target.write_text("old report")
    sync = os.fsync

    def refuse_directory(fd: int) -> None:
        if stat.S_ISDIR(os.fstat(fd).st_mode):
            raise OSError(5, "Input/output error")
        sync(fd)

    monkeypatch.setattr(os, "fsync", refuse_directory)
    write_atomic(target, "new report")
    assert target.read_text() == "new report"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.json"]
    err = capsys.readouterr().err
    assert f"{target} is written" in err and "Input/output error" in err
    assert "power loss" in err and "cannot write" not in err


def test_a_written_file_keeps_an_existing_mode_or_follows_the_umask(tmp_path: Path) -> None:
    kept = tmp_path / "kept.txt"
    kept.write_text("x")
    kept.chmod(0o640)
    write_atomic(kept, "new")
    assert kept.read_text() == "new" and stat.S_IMODE(kept.stat().st_mode) == 0o640
    previous = os.umask(0o022)
    try:
        write_atomic(tmp_path / "new.txt", "text")
    finally:
        os.umask(previous)
    assert stat.S_IMODE((tmp_path / "new.txt").stat().st_mode) == 0o644


def test_writing_a_report_leaves_the_umask_alone(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Setting the umask, even to read it, would change it for every thread for a moment:
    a file another thread created then could be readable by anyone."""
    def refuse(mask: int) -> int:
        raise AssertionError(f"os.umask({mask:o}) called")

    previous = os.umask(0o027)
    try:
        monkeypatch.setattr(os, "umask", refuse)
        write_atomic(tmp_path / "new.json", "{}")
        write_atomic(tmp_path / "private.json", "{}", private=True)
    finally:
        monkeypatch.undo()
        os.umask(previous)
    assert stat.S_IMODE((tmp_path / "new.json").stat().st_mode) == 0o640
    assert stat.S_IMODE((tmp_path / "private.json").stat().st_mode) == 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == ["new.json", "private.json"]


@pytest.mark.parametrize("case", ["missing parent", "parent is a file", "is a directory"])
def test_unwritable_paths_are_named_with_the_reason(tmp_path: Path, case: str) -> None:
    (tmp_path / "file").write_text("")
    path = {"missing parent": tmp_path / "nope" / "r.json",
            "parent is a file": tmp_path / "file" / "r.json",
            "is a directory": tmp_path}[case]
    with pytest.raises(OutputPathError) as raised:
        check_writable(path)
    assert str(raised.value).startswith(f"cannot write {path}: ")




@pytest.mark.parametrize(("name", "reason"), [
    ("r\0.json", "a file name cannot hold a NUL byte; remove it"),
    ("r" * 300 + ".json", "File name too long"),
])
def test_a_name_no_system_call_takes_is_refused_with_the_reason(
        tmp_path: Path, name: str, reason: str) -> None:
    # These raised ValueError and OSError, which a chat's /snapshot called an internal error.
    path = tmp_path / name
    with pytest.raises(OutputPathError) as raised:
        write_atomic(path, "{}")
    assert str(raised.value) == f"cannot write {path}: {reason}"
    assert list(tmp_path.iterdir()) == []


def test_a_tilde_naming_no_user_is_left_as_a_shell_leaves_it() -> None:
    # Path.expanduser raised RuntimeError("Could not determine home directory.").
    with pytest.raises(OutputPathError) as raised:
        output_path("~tiermem-no-such-user/r.json")
    assert str(raised.value) == ("cannot write ~tiermem-no-such-user/r.json: the directory "
                                 "~tiermem-no-such-user does not exist; create it first")


def test_no_report_is_written_over_a_memorys_own_files(tmp_path: Path) -> None:
    home = tmp_path / "home"
    made = tiermem(home, "chat", "--agent", "a", "--embedder", "hashing",
                   stdin="I live in Lisbon.\n")
    assert made.returncode == 0, made.stderr
    agent = home / "agents" / "a"
    files = {p.name: p.read_bytes() for p in agent.iterdir() if p.is_file()}
    for args in (("diagnostics", "--agent", "a", "--out", str(agent / "memory.sqlite3")),
                 ("diagnostics", "--agent", "a", "--json", str(agent / "archival.faiss")),
                 ("config", "--agent", "a", "--json", str(agent / "report.json"))):
        refused = tiermem(home, *args)
        assert refused.returncode == 2, refused.stderr
        assert "holds a memory's files (memory.sqlite3)" in refused.stderr
        assert "write it to another directory" in refused.stderr
    snapshot = tiermem(home, "chat", "--agent", "a", "--embedder", "hashing",
                       stdin=f"/snapshot {agent / 'memory.sqlite3'}\n/core\n")
    assert "holds a memory's files" in snapshot.stdout + snapshot.stderr
    assert {p.name: p.read_bytes() for p in agent.iterdir()
            if p.is_file() and p.name in files} == files
    again = tiermem(home, "chat", "--agent", "a", "--embedder", "hashing", stdin="/core\n")
    assert again.returncode == 0 and "Lisbon" in again.stdout
    (tmp_path / "pg").mkdir()
    (tmp_path / "pg" / "PG_VERSION").write_text("18\n")
    with pytest.raises(OutputPathError, match="PG_VERSION"):
        check_writable(tmp_path / "pg" / "postgresql.conf")
    # Below the data directory, every folder is the server's.
    (tmp_path / "pg" / "global").mkdir()
    (tmp_path / "pg" / "global" / "pg_control").write_bytes(b"control")
    for inside in (tmp_path / "pg" / "global" / "pg_control",
                   tmp_path / "pg" / "global" / "new.json"):
        with pytest.raises(OutputPathError, match=r"inside the PostgreSQL data directory"):
            check_writable(inside)
    assert (tmp_path / "pg" / "global" / "pg_control").read_bytes() == b"control"
    check_writable(tmp_path / "report.json")  # beside the home, not in it



def test_a_symlink_to_a_memorys_directory_is_refused_too(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "memory.sqlite3").write_bytes(b"")
    (tmp_path / "link").symlink_to(home, target_is_directory=True)
    with pytest.raises(OutputPathError, match="holds a memory's files"):
        check_writable(tmp_path / "link" / "report.json")
    # A symlink named like the report is replaced by the rename, not followed.
    (tmp_path / "report.json").symlink_to(home / "memory.sqlite3")
    check_writable(tmp_path / "report.json")


def test_a_write_removes_what_a_killed_write_to_the_same_file_left(tmp_path: Path) -> None:
    import subprocess
    import sys

    target = tmp_path / "s.json"
    # A process that has exited (as a `kill -9` during /snapshot leaves it) and a live one.
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    dead = tmp_path / f".s.json.{done.stdout.strip()}-0a1b2c3d4e5f.tmp"
    live = tmp_path / f".s.json.{os.getpid()}-0a1b2c3d4e5f.tmp"
    other = tmp_path / f".t.json.{done.stdout.strip()}-0a1b2c3d4e5f.tmp"  # another file's
    for leftover in (dead, live, other):
        leftover.write_text("the whole memory, half written")
    write_atomic(target, '{"format": "x"}', private=True)
    assert target.read_text() == '{"format": "x"}'
    assert not dead.exists()
    assert live.exists() and other.exists()  # a write still running, and another target's


@pytest.mark.parametrize("name", ["b" * 255, "é" * 127, "s" * 240 + ".json"])
def test_any_name_the_file_system_takes_is_written_and_its_orphans_removed(
        tmp_path: Path, name: str) -> None:
    # The temporary file beside it was named ".NAME.PID-HEX.tmp", 26 more characters, so a
    # name of 230 or more failed "File name too long" though the file itself could be made.
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    target = tmp_path / name
    write_atomic(target, "old")
    left = [path for path in tmp_path.iterdir() if path != target]
    assert left == [] and target.read_text() == "old"
    stem = name.encode()[:255 - 29].decode(errors="ignore")
    dead = tmp_path / f".{stem}.{done.stdout.strip()}-0a1b2c3d4e5f.tmp"
    dead.write_text("half written")
    write_atomic(target, "new", private=True)
    assert target.read_text() == "new" and list(tmp_path.iterdir()) == [target]


def test_a_killed_writes_temporary_named_before_names_were_cut_is_still_removed(
        tmp_path: Path) -> None:
    # A temporary once began with the whole name, which had room beside a name
    # of 228 characters and a PID of up to 7 digits; the cut name (226) no longer found it.
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    target = tmp_path / ("s" * 223 + ".json")
    dead = tmp_path / f".{target.name}.{done.stdout.strip()}-0a1b2c3d4e5f.tmp"
    dead.write_text("the whole memory, half written")
    write_atomic(target, "new", private=True)
    assert target.read_text() == "new" and list(tmp_path.iterdir()) == [target]
