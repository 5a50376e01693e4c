"""An agent's writer lock on PostgreSQL when its holder dies: a holder gone from this host
is waited for, a session left behind is named, and the writer's session asks the server to
notice a silent client."""

from __future__ import annotations

import logging
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import psycopg
import pytest
from memory_helpers import collector_off
from pg_relay import cuttable_relay
from psycopg.conninfo import make_conninfo

from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.store.postgres import connection, writer_lock
from tiermem.memory.store.postgres.backend import PostgresBackend
from tiermem.memory.store.postgres.connection import AgentLockedError, stored_agents
from tiermem.memory.store.postgres.schema import LOCK_CLASS


def _exited_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def _holding_for(dsn: str, pid: int, scope: str | None = None) -> psycopg.Connection:
    """A session holding agent alice's writer lock, recorded for process ``pid`` of this host
    (of this process table, unless ``scope`` names another)."""
    PostgresBackend(dsn, "alice").close()
    session = psycopg.connect(dsn, autocommit=True)
    session.execute("SELECT pg_advisory_lock(%s, a.id) FROM tiermem.agents a "
                    "WHERE a.name = 'alice'", (LOCK_CLASS,))
    session.execute("INSERT INTO tiermem.writers (agent_id, host, pid, backend_pid, "
                    "process_scope) SELECT id, %s, %s, pg_backend_pid(), %s "
                    "FROM tiermem.agents WHERE name = 'alice'",
                    (socket.gethostname(), pid, scope or writer_lock.process_scope()))
    return session


@pytest.fixture
def left_behind(postgres_dsn: str) -> Iterator[psycopg.Connection]:
    """A session holding agent alice's writer lock for a process of this host that has
    exited: what a writer killed outright leaves until the server ends its session."""
    session = _holding_for(postgres_dsn, _exited_pid())
    yield session
    session.close()


def _waiting_for_a_lock(dsn: str) -> bool:
    with psycopg.connect(dsn, autocommit=True) as probe:
        row = probe.execute("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' "
                            "AND NOT granted").fetchone()
    return bool(row and row[0])


def _open_when_released(given: str, dsn: str, left_behind: psycopg.Connection,
                        until: Callable[[], bool] = lambda: True) -> PostgresBackend:
    """Open alice at ``given`` (``dsn`` with options, or itself), which must wait on the lock
    ``left_behind`` holds, not be refused; then, once ``until()`` holds too, end that session
    and return the open."""
    opened: list[PostgresBackend | BaseException] = []

    def open_alice() -> None:
        try:
            opened.append(PostgresBackend(given, "alice"))
        except BaseException as exc:  # reported by the assertion below
            opened.append(exc)

    opener = threading.Thread(target=open_alice)
    opener.start()
    # The open is refused at once, or it waits on the server: one of the two shows first.
    while opener.is_alive() and not (_waiting_for_a_lock(dsn) and until()):
        opener.join(0.01)
    assert not opened, opened  # still waiting, not refused
    left_behind.close()  # the server ends the dead writer's session
    opener.join()
    backend = opened[0]
    assert isinstance(backend, PostgresBackend), backend
    return backend


def _refused_naming(left_behind: psycopg.Connection, given: str) -> AgentLockedError:
    """The refusal of an open of alice at ``given``, which names ``left_behind``'s session."""
    session = left_behind.execute("SELECT pg_backend_pid()").fetchone()
    assert session is not None
    with pytest.raises(AgentLockedError) as refused:
        PostgresBackend(given, "alice")
    assert refused.value.orphaned_backend == session[0]
    return refused.value


def test_an_open_waits_for_the_lock_of_a_writer_that_exited(
        postgres_dsn: str, left_behind: psycopg.Connection,
        caplog: pytest.LogCaptureFixture) -> None:
    session = left_behind.execute("SELECT pg_backend_pid()").fetchone()
    assert session is not None
    caplog.set_level(logging.WARNING, logger="tiermem")

    def said() -> list[str]:
        return [r.getMessage() for r in caplog.records if r.name == writer_lock.__name__]

    # A wait that outlasts the quiet part is explained while it lasts, not in silence.
    backend = _open_when_released(postgres_dsn, postgres_dsn, left_behind,
                                  until=lambda: bool(said()))
    assert len(said()) == 1 and (
        f"has exited, but its database session (server process {session[0]}) has not "
        f"ended yet; waiting up to 29.5 s more for the server to end it") in said()[0]
    try:
        with psycopg.connect(postgres_dsn, autocommit=True) as probe:
            row = probe.execute("SELECT pid FROM tiermem.writers").fetchone()
        assert row is not None and row[0] == writer_lock.os.getpid()
        # The wait's bound is the opener's own: the session keeps the server's setting.
        assert backend.conn.execute("SHOW lock_timeout").fetchone() == ("0",)
    finally:
        backend.close()


def test_a_session_the_server_ends_at_once_is_waited_for_in_silence(
        postgres_dsn: str, left_behind: psycopg.Connection, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    # The usual case after a crash on this host: nothing to explain.
    monkeypatch.setattr(writer_lock, "QUIET_WAIT_MS", 60_000)
    caplog.set_level(logging.WARNING, logger="tiermem")
    _open_when_released(postgres_dsn, postgres_dsn, left_behind).close()
    assert not [r for r in caplog.records if r.name == writer_lock.__name__]


def test_a_session_that_outlives_its_writer_is_named_with_how_to_end_it(
        postgres_dsn: str, left_behind: psycopg.Connection,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(writer_lock, "ORPHAN_WAIT_MS", 50)
    refused = _refused_naming(left_behind, postgres_dsn)
    advice = f"`SELECT pg_terminate_backend({refused.orphaned_backend})`"
    assert f"that process has exited, but its database session has not ended; end it with "\
           f"{advice} and try again" in str(refused)
    # The advice works.
    with psycopg.connect(postgres_dsn, autocommit=True) as admin:
        admin.execute(advice.strip("`"))
    PostgresBackend(postgres_dsn, "alice").close()


def test_the_command_line_names_the_session_to_end(
        postgres_dsn: str, left_behind: psycopg.Connection, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from tiermem.cli import main

    monkeypatch.setattr(writer_lock, "ORPHAN_WAIT_MS", 50)
    monkeypatch.setattr(writer_lock, "QUIET_WAIT_MS", 10)
    session = left_behind.execute("SELECT pg_backend_pid()").fetchone()
    assert session is not None
    assert main(["drop-agent", "--agent", "alice", "--store", postgres_dsn, "--yes"]) == 1
    err = " ".join(capsys.readouterr().err.split())
    # First why it paused, as one of its own notes, then why it gave up.
    assert (f"tiermem: agent 'alice' in {connection.public_dsn(postgres_dsn)}: its last "
            f"writer, process ") in err
    assert "waiting up to 0.04 s more for the server to end it tiermem: " in err
    assert (f", which has exited, but its database session has not ended; end it with "
            f"`SELECT pg_terminate_backend({session[0]})` and try again") in err
    assert "wait for that process" not in err and "read_only" not in err
    assert stored_agents(postgres_dsn) == ["alice"]


def test_a_statement_timeout_of_the_dsn_does_not_cut_the_wait_short(
        postgres_dsn: str, left_behind: psycopg.Connection,
        monkeypatch: pytest.MonkeyPatch) -> None:
    # A role or DSN that bounds every statement still gets the wait, and the refusal
    # that names the session, not the server's cancellation.
    monkeypatch.setattr(writer_lock, "ORPHAN_WAIT_MS", 300)
    _refused_naming(left_behind, make_conninfo(postgres_dsn, options="-c statement_timeout=20"))


def test_the_wait_leaves_the_dsn_s_own_timeouts(
        postgres_dsn: str, left_behind: psycopg.Connection) -> None:
    given = make_conninfo(postgres_dsn,
                          options="-c lock_timeout=5s -c statement_timeout=10min")
    backend = _open_when_released(given, postgres_dsn, left_behind)
    try:
        shown = [backend.conn.execute(f"SHOW {name}").fetchone()
                 for name in ("lock_timeout", "statement_timeout")]
        assert shown == [("5s",), ("10min",)]
    finally:
        backend.close()


@pytest.mark.skipif(not hasattr(os, "waitid"), reason="needs os.waitid to keep a zombie")
def test_a_writer_killed_but_not_yet_reaped_is_waited_for(
        postgres_dsn: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # A supervisor that kills its writer and reopens before reaping it: the process table
    # still lists the dead writer, whose socket the kernel closed all the same.
    monkeypatch.setattr(writer_lock, "ORPHAN_WAIT_MS", 50)
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    os.waitid(os.P_PID, child.pid, os.WEXITED | os.WNOWAIT)  # exited, left unreaped
    session = _holding_for(postgres_dsn, child.pid)
    try:
        _refused_naming(session, postgres_dsn)
    finally:
        session.close()
        child.wait()


def _refused_at_once(dsn: str, monkeypatch: pytest.MonkeyPatch,
                     caplog: pytest.LogCaptureFixture) -> None:
    """Opening alice is refused without waiting, as held by a live writer, and without
    saying it waits."""
    waits: list[int] = []
    monkeypatch.setattr(writer_lock, "_wait_for_lock",
                        lambda conn, agent, ms: bool(waits.append(agent)))
    caplog.set_level(logging.WARNING, logger="tiermem")
    with pytest.raises(AgentLockedError) as refused:
        PostgresBackend(dsn, "alice")
    assert waits == [] and refused.value.orphaned_backend is None
    assert not [r for r in caplog.records if r.name == writer_lock.__name__]
    assert "close that session (or wait for it to exit)" in str(refused.value)


@pytest.mark.parametrize("scope", ["another machine's boot pid:[4026531836]", None])
def test_a_writer_of_another_process_table_is_not_waited_for(
        postgres_dsn: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture,
        scope: str | None) -> None:
    # A container sharing this host's name (or a version that recorded no scope): its pid
    # says nothing here, so the open refuses at once rather than wait and call it exited.
    session = _holding_for(postgres_dsn, _exited_pid(), "placeholder")
    try:
        session.execute("UPDATE tiermem.writers SET process_scope = %s", (scope,))
        _refused_at_once(postgres_dsn, monkeypatch, caplog)
    finally:
        session.close()


def test_a_live_writer_is_not_waited_for(postgres_dsn: str, monkeypatch: pytest.MonkeyPatch,
                                         caplog: pytest.LogCaptureFixture) -> None:
    # Recorded for another live process of this host: this process's own is told apart.
    holder = _holding_for(postgres_dsn, os.getppid())
    try:
        _refused_at_once(postgres_dsn, monkeypatch, caplog)
    finally:
        holder.close()


def test_the_writer_asks_the_server_to_probe_a_silent_client(postgres_dsn: str) -> None:
    backend = PostgresBackend(postgres_dsn, "alice")
    try:
        rows = dict(backend.conn.execute(
            "SELECT name, source FROM pg_settings WHERE name LIKE 'tcp_keepalives_%'"
        ).fetchall())
        assert rows == {name: "session" for name in writer_lock.KEEPALIVE}
    finally:
        backend.close()
    reader = PostgresBackend(postgres_dsn, "alice", read_only=True)
    try:
        row = reader.conn.execute("SELECT source FROM pg_settings "
                                  "WHERE name = 'tcp_keepalives_idle'").fetchone()
        assert row is not None and row[0] != "session"  # a reader holds nothing to free
    finally:
        reader.close()


@pytest.mark.parametrize("pooled", [False, True], ids=["direct", "behind_a_pooler"])
def test_an_agent_this_process_still_has_open_is_refused_with_close_it(
        postgres_dsn: str, monkeypatch: pytest.MonkeyPatch, pooled: bool) -> None:
    # Waiting for the holder to exit is no advice when the holder is the refused process.
    if pooled:
        # A pooler (PgBouncer) tells the client a number of its own for the server process:
        # the live memory's session is still no session left behind, to be terminated.
        monkeypatch.setattr(psycopg.ConnectionInfo, "backend_pid", property(lambda info: 1))
    waits: list[int] = []
    monkeypatch.setattr(writer_lock, "_wait_for_lock",
                        lambda conn, agent, ms: bool(waits.append(agent)))
    held = PostgresBackend(postgres_dsn, "alice")
    try:
        with pytest.raises(AgentLockedError) as refused:
            PostgresBackend(postgres_dsn, "alice")
    finally:
        held.close()
    assert waits == []  # an open memory is no dropped one: refused at once
    assert (refused.value.this_process, refused.value.holder_pid) == (True, os.getpid())
    assert str(refused.value).endswith(
        f"(since {refused.value.since}), this process: a memory it opened there is not "
        f"closed; close() that memory (or end its with block) before opening the agent "
        f"again, or open it with read_only=True to inspect it")


def _add_a_fact_and_drop(dsn: str) -> None:
    memory = HierarchicalMemory(store=dsn, agent="alice", embedder=HashingEmbedder())
    memory.add_fact("User likes green tea")


def test_an_agent_dropped_without_close_lets_this_process_open_it_again(
        postgres_dsn: str) -> None:
    # With the automatic collector off, only the open itself can free the dropped one.
    with collector_off():
        _add_a_fact_and_drop(postgres_dsn)
        with HierarchicalMemory(store=postgres_dsn, agent="alice",
                                embedder=HashingEmbedder()) as again:
            assert [f.text for f in again.core] == ["User likes green tea"]


@pytest.fixture
def said_soon(monkeypatch: pytest.MonkeyPatch,
              caplog: pytest.LogCaptureFixture) -> Callable[[], list[str]]:
    """Waits for a session left behind cut short (explained after 10 ms, given up after 50):
    what the writer lock's logger said so far."""
    monkeypatch.setattr(writer_lock, "ORPHAN_WAIT_MS", 50)
    monkeypatch.setattr(writer_lock, "QUIET_WAIT_MS", 10)
    caplog.set_level(logging.WARNING, logger="tiermem")
    return lambda: [r.getMessage() for r in caplog.records if r.name == writer_lock.__name__]


def test_a_session_this_process_no_longer_has_open_is_waited_for_with_why(
        postgres_dsn: str, said_soon: Callable[[], list[str]]) -> None:
    # What a memory dropped unclosed leaves while the server keeps its session: no memory
    # can be closed, so the wait is explained, then the session named.
    left_behind = _holding_for(postgres_dsn, os.getpid())
    try:
        refused = _refused_naming(left_behind, postgres_dsn)
    finally:
        left_behind.close()
    said = said_soon()
    assert len(said) == 1 and (
        f"a memory this process opened there was closed or dropped, but its database session "
        f"(server process {refused.orphaned_backend}) has not ended yet") in said[0]
    assert refused.this_process and str(refused).endswith(
        f"; no memory of this process has it open, but its database session has not ended; "
        f"end it with `SELECT pg_terminate_backend({refused.orphaned_backend})` and try "
        f"again, or open it with read_only=True to inspect it")
    assert "close() that memory" not in str(refused)


def test_the_logger_the_readme_names_for_the_wait_is_the_one_that_warns() -> None:
    # A caller who filters or shows that logger's warnings must find the wait's explanation.
    readme = " ".join((Path(__file__).parents[1] / "README.md").read_text("utf-8").split())
    assert f"a warning of the `{writer_lock.log.name}` logger" in readme


def test_the_command_line_says_this_process_left_the_session(
        postgres_dsn: str, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from tiermem.cli import main

    monkeypatch.setattr(writer_lock, "ORPHAN_WAIT_MS", 50)
    monkeypatch.setattr(writer_lock, "QUIET_WAIT_MS", 10)
    left_behind = _holding_for(postgres_dsn, os.getpid())
    try:
        session = left_behind.execute("SELECT pg_backend_pid()").fetchone()
        assert session is not None
        assert main(["drop-agent", "--agent", "alice", "--store", postgres_dsn, "--yes"]) == 1
    finally:
        left_behind.close()
    err = " ".join(capsys.readouterr().err.split())
    assert (f", which no longer has it open, but its database session has not ended; end it "
            f"with `SELECT pg_terminate_backend({session[0]})` and try again") in err
    assert "has exited" not in err
    assert stored_agents(postgres_dsn) == ["alice"]


def test_a_session_of_a_memory_that_lost_its_connection_is_said_so(
        postgres_dsn: str, said_soon: Callable[[], list[str]]) -> None:
    # Opened again after ConnectionLostError, as that error advises, while the server has
    # not yet noticed the client gone: the memory was neither closed nor dropped.
    with cuttable_relay(postgres_dsn) as relay:
        lost = PostgresBackend(relay.dsn, "alice")
        relay.cut()
        with pytest.raises(psycopg.OperationalError):
            lost.conn.execute("SELECT 1")
        assert lost.lost
        with pytest.raises(AgentLockedError) as refused:
            PostgresBackend(postgres_dsn, "alice")
        lost.close()
    said = said_soon()
    assert len(said) == 1 and (
        f"a memory this process opened there lost its connection to the server, but its "
        f"database session (server process {refused.value.orphaned_backend}) has not ended "
        f"yet") in said[0]
    assert refused.value.this_process
