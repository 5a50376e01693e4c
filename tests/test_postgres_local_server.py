"""The local PostgreSQL server: a real PostgreSQL 18 with pgvector 0.8 on a unix socket only."""

from __future__ import annotations

import contextlib
import os
import pwd
import re
import shlex
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from psycopg.conninfo import make_conninfo

from tiermem.cli import main
from tiermem.memory.embed.embeddings import HashingEmbedder
from tiermem.memory.errors import ConnectionLostError, StoreError
from tiermem.memory.hierarchy import HierarchicalMemory
from tiermem.memory.store.postgres import connection, local_server, start_lock
from tiermem.memory.store.postgres.local_server import PG_MAJOR, LocalPostgres, LocalServerError


@pytest.fixture
def scratch_dir() -> Iterator[Path]:
    # Under /tmp itself: a root test run hands the directory to an unprivileged account.
    path = Path(tempfile.mkdtemp(prefix="tiermem-pgt-"))
    path.chmod(0o711)
    try:
        yield path
    finally:
        LocalPostgres(path / "pg").stop()
        shutil.rmtree(path, ignore_errors=True)


def test_server_starts_with_pgvector_listens_on_a_socket_only_and_stops(scratch_dir: Path) -> None:
    server = LocalPostgres(scratch_dir / "pg")
    assert server.status() is None
    dsn = server.start()
    assert server.start() == dsn  # a running server is reused, not started twice
    # Each start took its lock file away: none pile up in the temporary directory.
    assert not start_lock.start_lock(server.data_dir).exists()
    status = server.status()
    assert status is not None and status.ready and status.socket_dir == server.data_dir
    with psycopg.connect(dsn) as conn:
        assert conn.info.server_version // 10000 == 18
        conn.execute("CREATE EXTENSION vector")
        version = conn.execute(
            "SELECT extversion FROM pg_extension WHERE extname = 'vector'").fetchone()
        assert version is not None and version[0].startswith("0.8.")
        assert conn.execute("SHOW listen_addresses").fetchone() == ("",)
        distance = conn.execute("SELECT '[1,2,3]'::vector <-> '[1,2,5]'::vector").fetchone()
        assert distance == (2.0,)
    assert server.stop() is True
    assert server.status() is None
    assert server.stop() is False
    with pytest.raises(psycopg.OperationalError):
        psycopg.connect(dsn)


def test_restart_keeps_the_data(scratch_dir: Path) -> None:
    server = LocalPostgres(scratch_dir / "pg")
    with psycopg.connect(server.start(), autocommit=True) as conn:
        conn.execute("CREATE TABLE kept (word text)")
        conn.execute("INSERT INTO kept VALUES ('persimmon')")
    server.stop()
    with psycopg.connect(server.start()) as conn:
        assert conn.execute("SELECT word FROM kept").fetchall() == [("persimmon",)]


def test_two_starts_of_one_directory_take_turns(
        scratch_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import fcntl

    data_dir = scratch_dir / "pg"
    held: list[bool] = []

    def another_start_meanwhile(self: LocalPostgres, timeout: int) -> str:
        # What a second `tiermem pg start --dir` finds while this one runs initdb.
        fd = os.open(start_lock.start_lock(self.data_dir), os.O_RDWR)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            held.append(False)
        except BlockingIOError:
            held.append(True)  # it would wait for this one
        finally:
            os.close(fd)
        return "postgresql://test"

    monkeypatch.setattr(LocalPostgres, "_start", another_start_meanwhile)
    assert LocalPostgres(data_dir).start() == "postgresql://test"
    assert not start_lock.start_lock(data_dir).exists()  # removed, not left in $TMPDIR
    assert LocalPostgres(data_dir).start() == "postgresql://test"  # let go after the first
    assert held == [True, True]
    assert not start_lock.start_lock(data_dir).exists()


def test_a_start_that_waited_on_a_removed_lock_file_waits_for_the_next_holder(
        scratch_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # W waits on the lock file start A holds; A removes it as it ends, and start C takes
    # a new file at the same path. W's lock on the removed file locks nothing: W must
    # open the path again and wait for C, not run beside it.
    import threading

    data_dir = scratch_dir / "pg"
    path = start_lock.start_lock(data_dir)
    events: list[str] = []
    w_waits, c_holds, w_moved = threading.Event(), threading.Event(), threading.Event()
    real_open = start_lock._open

    def watched_open(where: Path) -> int:
        if threading.current_thread().name != "W":
            return real_open(where)
        if w_waits.is_set():  # W opens the path again: once C holds the file there
            assert c_holds.wait(30)
            fd = real_open(where)
            events.append("W opened again")
            w_moved.set()
            return fd
        fd = real_open(where)
        events.append("W opened")
        w_waits.set()
        return fd

    def waiter() -> None:
        with start_lock.starting(data_dir):
            events.append("W entered")
            w_moved.set()

    monkeypatch.setattr(start_lock, "_open", watched_open)
    w = threading.Thread(target=waiter, name="W", daemon=True)
    with start_lock.starting(data_dir):  # A
        w.start()
        assert w_waits.wait(30)  # W has A's file open, and waits to lock it
    assert not path.exists()
    with start_lock.starting(data_dir):  # C
        c_holds.set()
        assert w_moved.wait(30)  # W entered (beside C) or opened C's file to wait for it
        events.append("C left")
    w.join(30)
    # C removed its file too: W, let in, found the path free and made its own.
    assert events == ["W opened", "W opened again", "C left", "W opened again", "W entered"]
    assert not path.exists()


@pytest.mark.skipif(os.geteuid() != 0, reason="only a server root starts runs as another account")
def test_a_server_root_started_lets_in_root_and_not_its_own_account(scratch_dir: Path) -> None:
    # The server runs as nobody and nobody owns its socket: every process of that shared
    # account could connect if the socket were trusted.
    server = LocalPostgres(scratch_dir / "pg")
    server.start()
    psql = [str(server._programs() / "psql"), "-h", str(server.data_dir), "-U", "postgres",
            "-d", "postgres", "-Atc", "SELECT 1"]
    env = {"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"}
    as_root = subprocess.run(psql, capture_output=True, text=True, env=env, check=False)
    assert as_root.returncode == 0 and as_root.stdout.strip() == "1", as_root.stderr
    account = pwd.getpwnam(local_server.ROOT_SERVER_ACCOUNT)
    as_nobody = subprocess.run(psql, capture_output=True, text=True, env=env, check=False,
                               cwd="/", user=account.pw_uid, group=account.pw_gid,
                               extra_groups=[])
    assert as_nobody.returncode != 0
    assert "Peer authentication failed" in as_nobody.stderr


@pytest.mark.skipif(os.geteuid() != 0, reason="only root's server runs as another account")
def test_root_is_told_which_directory_the_server_account_cannot_enter(scratch_dir: Path) -> None:
    closed = scratch_dir / "private"
    closed.mkdir(mode=0o700)
    with pytest.raises(LocalServerError, match=f"cannot enter {closed}.*--dir") as caught:
        LocalPostgres(closed / "home" / "pg").start()
    assert "a user other than root" in str(caught.value) and "--store" in str(caught.value)
    # The directories the failed start made are gone; the one that was there is kept.
    assert closed.is_dir() and not (closed / "home").exists()


@pytest.mark.parametrize("given", ["notes.txt", "memory.sqlite3"])
def test_a_directory_holding_other_files_is_refused_untouched(scratch_dir: Path,
                                                              given: str) -> None:
    directory = scratch_dir / "victim"
    directory.mkdir(mode=0o755)
    (directory / given).write_text("x")
    before = directory.stat()
    with pytest.raises(LocalServerError, match=f"holds files \\({given}\\).*not a "
                       "PostgreSQL data directory.*--dir"):
        LocalPostgres(directory).start()
    after = directory.stat()
    assert (after.st_uid, after.st_gid, after.st_mode) == (before.st_uid, before.st_gid,
                                                           before.st_mode)
    assert [p.name for p in directory.iterdir()] == [given]
    (scratch_dir / "file").write_text("x")
    with pytest.raises(LocalServerError, match="is a file, not a directory"):
        LocalPostgres(scratch_dir / "file").start()
    (scratch_dir / "dangling").symlink_to(scratch_dir / "nowhere")
    with pytest.raises(LocalServerError, match="symbolic link to nothing"):
        LocalPostgres(scratch_dir / "dangling").start()


def test_a_failed_first_start_removes_the_empty_directories_it_made(
        scratch_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    written: list[str] = []

    def fail(self: LocalPostgres, program: str, *args: str, what: str) -> None:
        for name in written:  # what a program wrote before it failed
            (self.data_dir / name).write_text("")
        raise LocalServerError(f"could not {what}")

    monkeypatch.setattr(LocalPostgres, "_run", fail)
    with pytest.raises(LocalServerError, match="initialise the data directory"):
        LocalPostgres(scratch_dir / "home" / "postgres").start()
    assert list(scratch_dir.iterdir()) == []
    # A directory that was there already stays, and so does one a program wrote in.
    (scratch_dir / "given").mkdir(mode=0o700)
    with pytest.raises(LocalServerError):
        LocalPostgres(scratch_dir / "given").start()
    written.append("server.log")
    with pytest.raises(LocalServerError):
        LocalPostgres(scratch_dir / "used" / "pg").start()
    assert (scratch_dir / "given").is_dir()
    assert (scratch_dir / "used" / "pg" / "server.log").exists()


@pytest.mark.skipif(os.geteuid() != 0, reason="only root's server runs as another account")
def test_root_runs_programs_installed_where_the_server_account_cannot_enter(
        scratch_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A virtualenv under `mktemp -d` (mode 0700), as a fresh clone's CI run has it.
    private = Path(tempfile.mkdtemp(prefix="tiermem-venv-"))
    try:
        wheel_install = local_server.binaries().parent
        package = private / wheel_install.parent.name
        install = package / wheel_install.name
        shutil.copytree(wheel_install, install, symlinks=True)
        libs = wheel_install.parent.parent / f"{package.name}.libs"
        if libs.exists():
            shutil.copytree(libs, private / libs.name, symlinks=True)
        monkeypatch.setattr(local_server, "binaries", lambda: install / "bin")
        server = LocalPostgres(scratch_dir / "pg")
        with psycopg.connect(server.start()) as conn:
            assert conn.execute("SELECT 1").fetchone() == (1,)
        mirror = scratch_dir / f".pg-pginstall{PG_MAJOR}"
        assert (mirror / "source").read_text().splitlines()[0] == str(install)
        assert (mirror / package.name / install.name / "bin" / "postgres").stat().st_ino == (
            install / "bin" / "postgres").stat().st_ino  # linked, not copied
        assert server.stop() is True
        # An upgrade of the wheel in place replaces the program: the mirror follows it.
        program = install / "bin" / "postgres"
        content = program.read_bytes()
        program.unlink()
        program.write_bytes(content)
        program.chmod(0o755)
        server.start()
        assert (mirror / package.name / install.name / "bin" / "postgres").stat().st_ino == (
            program.stat().st_ino)
        assert server.stop() is True
    finally:
        shutil.rmtree(private, ignore_errors=True)


def test_cli_starts_reports_and_stops_a_server(scratch_dir: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    data = str(scratch_dir / "pg data")  # a space: the commands it prints are quoted
    assert main(["pg", "status", "--dir", data]) == 1
    assert "no server is running" in capsys.readouterr().err
    assert main(["pg", "start", "--dir", data]) == 0
    out, err = capsys.readouterr()
    dsn = out.strip()
    assert dsn.startswith("postgresql://") and "TIERMEM_STORE" in err
    stop = err.rsplit("stop it with `", 1)[1].split("`")[0]
    assert shlex.split(stop) == ["tiermem", "pg", "stop", "--dir", data]
    with psycopg.connect(dsn) as conn:
        assert conn.execute("SELECT 1").fetchone() == (1,)
    assert main(["pg", "status", "--dir", data]) == 0
    assert capsys.readouterr().out.strip() == dsn
    assert main(["pg", "stop", "--dir", data]) == 0
    assert capsys.readouterr() == ("", f"tiermem: stopped the server on {data}\n")
    assert main(["pg", "status", "--dir", data]) == 1
    capsys.readouterr()
    assert main(["pg", "stop", "--dir", data]) == 0
    assert capsys.readouterr() == ("", f"tiermem: no server was running on {data}\n")


def test_a_dsn_on_a_local_server_names_the_pg_command_for_its_directory(
        scratch_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    server = LocalPostgres(scratch_dir / "pg")
    where = re.escape(str(server.data_dir))

    def refused(dsn: str, said: str) -> None:
        with pytest.raises(StoreError, match=said):
            HierarchicalMemory(store=dsn, agent="alice", embedder=HashingEmbedder())

    server.start()
    refused(make_conninfo(server.dsn, user="ghost"),
            rf'"ghost" does not exist; check the local server with `tiermem pg status '
            rf"--dir {where}`")
    server.stop()
    refused(server.dsn, rf"the local server in {where} is not running; start it with "
                        rf"`tiermem pg start --dir {where}`$")
    # The default directory (here through a link to it) needs no --dir.
    (scratch_dir / "postgres").symlink_to(server.data_dir)
    monkeypatch.setenv("TIERMEM_HOME", str(scratch_dir))
    refused(server.dsn, r"is not running; start it with `tiermem pg start`$")


def test_a_lost_connection_to_a_local_server_names_the_pg_command_for_its_directory(
        scratch_dir: Path) -> None:
    server = LocalPostgres(scratch_dir / "pg")
    memory = HierarchicalMemory(store=server.start(), agent="alice",
                                embedder=HashingEmbedder())
    try:
        memory.add_fact("User likes persimmons")
        with psycopg.connect(server.dsn, autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                          "WHERE application_name = 'tiermem'")
        with pytest.raises(ConnectionLostError,
                           match=rf"lost the connection to PostgreSQL.*Check the server "
                                 rf"\(`tiermem pg status --dir "
                                 rf"{re.escape(str(server.data_dir))}`\)"):
            memory.add_fact("User likes figs")
        # Later calls say the connection was lost, not that the memory was closed: reads,
        # and writes that open a transaction first (a chat turn's process_interaction).
        for call in (lambda: memory.add_fact("User likes dates"),
                     lambda: memory.archival_insert("the figs are in the pantry"),
                     lambda: memory.process_interaction("I like figs.", "Noted."),
                     lambda: memory.add_fact("User likes dates")):
            with pytest.raises(ConnectionLostError, match=r"was lost earlier, so this memory "
                                                          r"cannot be used any more\. Check the "
                                                          r"server") as later:
                call()
            assert "open it again to use it" not in str(later.value)
    finally:
        with contextlib.suppress(StoreError):
            memory.close()
    with pytest.raises(StoreError, match="this memory is closed; open it again"):
        memory.add_fact("User likes plums")


def test_a_lost_connection_to_another_server_keeps_the_general_advice() -> None:
    lost = psycopg.OperationalError("server closed the connection unexpectedly")
    lost.__cause__ = OSError("reset")
    error = connection.translate(lost, "agent 'alice'", "postgresql://u@db.example/memory")
    assert error is not None
    assert "Check the server (`tiermem pg status` for a local one)" in str(error)
