"""The writer lock of an agent kept in PostgreSQL.

An agent's writer lock is a session advisory lock on ``(LOCK_CLASS, agent id)``,
held by the writer's connection until it closes (or the server sees it die).
Writers of different agents take different locks, from any number of processes
and machines. The holder records its host and pid in ``tiermem.writers`` so a
refused writer is told who has the agent.

A writer killed outright (SIGKILL, the OOM killer) keeps the lock until the server
ends its session. On the writer's own host the kernel closes its socket, and the
server ends the session within moments; an opener that finds the holder's process
gone from this host waits for the lock (the server wakes it) rather than refusing,
up to ``ORPHAN_WAIT_MS``. "This host" is the host name and the process table
(``process_scope``): a container sharing its host's name has pids of its own.

A writer whose machine died sends nothing more, and its session would live until
the server's TCP keepalives gave up (two hours by default): the writer's session
asks the server to probe after ``KEEPALIVE`` settings instead, about two minutes of
silence. They apply to TCP connections only; a unix socket closes with its process.

The writer announces each commit on its agent's channel (``changes_channel``: a NOTIFY,
delivered at COMMIT and only if it commits); a read-only session listens there
(``listen_for_commits``) and reloads what it keeps only when a commit was announced.
"""

from __future__ import annotations

import contextlib
import gc
import logging
import os
import socket
import weakref
from collections.abc import Callable

import psycopg
from psycopg import errors as pg_errors

from tiermem.memory.store.postgres.connection import AgentLockedError
from tiermem.memory.store.postgres.schema import LOCK_CLASS

log = logging.getLogger(__name__)

#: The sessions holding a writer lock in this process, each with its server process as the
#: server reports it, to tell a memory still open from one dropped unclosed. Not the
#: client's ``info.backend_pid``: behind a pooler (PgBouncer) that is the pooler's number.
_writer_sessions: weakref.WeakKeyDictionary[psycopg.Connection, int] = (
    weakref.WeakKeyDictionary())

#: How long an opener waits for a writer lock whose holder has exited on this host.
ORPHAN_WAIT_MS = 30_000
#: How long of that it waits before saying why it waits.
QUIET_WAIT_MS = 500
#: The writer's session's TCP keepalives (server side): seconds idle before the first
#: probe, seconds between probes, probes unanswered before the session ends.
KEEPALIVE = {"tcp_keepalives_idle": "60", "tcp_keepalives_interval": "15",
             "tcp_keepalives_count": "4"}


def take_writer_lock(conn: psycopg.Connection, agent: int, where: str) -> None:
    """Hold the agent's writer lock on ``conn``, or raise AgentLockedError naming the holder.
    A holder that has exited on this host is waited for (module docstring)."""
    if not _try_lock(conn, agent):
        holder = conn.execute(
            "SELECT w.host, w.pid, to_char(w.since, 'YYYY-MM-DD HH24:MI:SS TZ'), l.pid, "
            "w.process_scope "
            "FROM tiermem.writers w JOIN pg_locks l ON l.pid = w.backend_pid "
            "WHERE w.agent_id = %s AND l.locktype = 'advisory' AND l.granted "
            "AND l.classid = %s AND l.objid = %s",
            (agent, LOCK_CLASS, agent)).fetchone()
        host, pid, since, backend, scope = holder if holder is not None else (None,) * 5
        here = host == socket.gethostname() and scope == process_scope()
        mine = here and pid == os.getpid()
        # A session whose client is gone: its writer exited, or (``mine``) no memory of this
        # process has it open any more; the server ends it, so it is waited for.
        orphaned = here and pid is not None and (
            _dropped_here(backend) if mine else not _process_exists(pid))
        if holder is None and _try_lock(conn, agent):
            pass  # its holder let it go between the two statements
        elif not (orphaned and _wait_for_dead_writer(conn, agent, where, pid, backend, mine)):
            raise AgentLockedError(where, host, pid, since, backend if orphaned else None,
                                   this_process=mine)
    row = conn.execute(
        "SELECT pg_backend_pid(), " + ", ".join(["set_config(%s, %s, false)"] * len(KEEPALIVE)),
        [part for setting in KEEPALIVE.items() for part in setting]).fetchone()
    assert row is not None
    # Known before its pid is recorded, so another thread that reads the pid as this
    # process's finds the session still open, not dropped.
    _writer_sessions[conn] = row[0]
    conn.execute(
        "INSERT INTO tiermem.writers (agent_id, host, pid, backend_pid, process_scope) "
        "VALUES (%s, %s, %s, pg_backend_pid(), %s) ON CONFLICT (agent_id) DO UPDATE SET "
        "host = excluded.host, pid = excluded.pid, backend_pid = excluded.backend_pid, "
        "process_scope = excluded.process_scope, since = now()",
        (agent, socket.gethostname(), os.getpid(), process_scope()))


def _dropped_here(backend: int | None) -> bool:
    """Whether no memory of this very process still has open the session ``backend`` that
    holds the lock: one dropped without close() sits in reference cycles, so its session is
    closed only when the collector frees it; one whose connection broke is closed too, while
    the server may keep its session a while. One still open keeps the lock."""
    gc.collect()
    return not any(not session.closed and server_pid == backend
                   for session, server_pid in list(_writer_sessions.items()))


def _how_let_go(backend: int | None) -> str:
    """How the memory of this process whose session ``backend`` holds the lock let it go.
    One that lost its connection is not closed, and its caller should not look for a
    close() that never happened."""
    if any(session.broken and server_pid == backend
           for session, server_pid in list(_writer_sessions.items())):
        return "lost its connection to the server"
    return "was closed or dropped"


def writer_lock_held(conn: psycopg.Connection, agent: int) -> bool:
    """Whether some session holds ``agent``'s writer lock now."""
    row = conn.execute(
        # pg_locks lists every database's locks, and agent ids repeat across databases.
        "SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted "
        "AND classid = %s AND objid = %s AND database = (SELECT oid FROM pg_database "
        "WHERE datname = current_database()))", (LOCK_CLASS, agent)).fetchone()
    return bool(row and row[0])


def process_scope() -> str | None:
    """Which process table this process's pid belongs to: the machine's boot and the pid
    namespace (Linux); None where the system does not say. Stored with a writer's pid, so
    only an opener that reads pids in the same table judges whether the writer exited."""
    try:
        with open("/proc/sys/kernel/random/boot_id", encoding="ascii") as boot:
            booted = boot.read().strip()
        return f"{booted} {os.readlink('/proc/self/ns/pid')}"
    except OSError:
        return None


def _wait_for_dead_writer(conn: psycopg.Connection, agent: int, where: str, pid: int,
                          backend: int | None, mine: bool = False) -> bool:
    """Wait for the lock of a writer that exited (``ORPHAN_WAIT_MS`` in all); whether it was
    taken. The server normally ends such a session within moments: a wait that lasts longer
    than ``QUIET_WAIT_MS`` is explained while it lasts, not suffered in silence."""
    quiet = min(QUIET_WAIT_MS, ORPHAN_WAIT_MS)
    if _wait_for_lock(conn, agent, quiet):
        return True
    if quiet >= ORPHAN_WAIT_MS:
        return False
    gone = (f"a memory this process opened there {_how_let_go(backend)}" if mine
            else f"its last writer, process {pid} of this host, has exited")
    log.warning("%s: %s, but its database session (server process %s) has not ended yet; "
                "waiting up to %s s more for the server to end it", where, gone, backend,
                f"{(ORPHAN_WAIT_MS - quiet) / 1000:g}")
    return _wait_for_lock(conn, agent, ORPHAN_WAIT_MS - quiet)


def _try_lock(conn: psycopg.Connection, agent: int) -> bool:
    got = conn.execute("SELECT pg_try_advisory_lock(%s, %s)", (LOCK_CLASS, agent)).fetchone()
    return bool(got and got[0])


def _process_exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        pass  # another user's process: it exists
    return not _unreaped(pid)


def _unreaped(pid: int) -> bool:
    """Whether ``pid`` has exited but is still listed until its parent reaps it (a zombie,
    whose sockets the kernel has closed); False where /proc cannot tell."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as stat:
            fields = stat.read().rpartition(")")[2].split()  # the name may hold ") "
    except OSError:
        return False
    return fields[:1] == ["Z"]


def _wait_for_lock(conn: psycopg.Connection, agent: int, ms: int) -> bool:
    """Wait, at most ``ms`` milliseconds, for the agent's writer lock; whether it was taken."""
    if ms <= 0:  # a lock_timeout of 0 would wait for ever
        return _try_lock(conn, agent)
    # The wait's bound is lock_timeout alone: a shorter statement_timeout of the DSN or the
    # role would end it early, with an error that names no holder.
    conn.execute("SELECT set_config('lock_timeout', %s, false), "
                 "set_config('statement_timeout', '0', false)", (f"{ms}ms",))
    try:
        conn.execute("SELECT pg_advisory_lock(%s, %s)", (LOCK_CLASS, agent))
        return True
    except (pg_errors.LockNotAvailable, pg_errors.QueryCanceled):  # timed out, or cancelled
        return False
    finally:
        conn.execute("RESET lock_timeout")  # back to the DSN's, the role's or the server's
        conn.execute("RESET statement_timeout")


def release_writer_lock(conn: psycopg.Connection, agent: int) -> None:
    with contextlib.suppress(psycopg.Error):
        conn.execute("DELETE FROM tiermem.writers WHERE agent_id = %s "
                     "AND backend_pid = pg_backend_pid()", (agent,))
        conn.execute("SELECT pg_advisory_unlock(%s, %s)", (LOCK_CLASS, agent))


def changes_channel(agent: int) -> str:
    """The LISTEN/NOTIFY channel on which an agent's writer announces its commits."""
    return f"tiermem_changes_{agent}"


def listen_for_commits(conn: psycopg.Connection, agent: int,
                       on_notify: Callable[[psycopg.Notify], None]) -> bool:
    """LISTEN for the agent's writer's commits; False where the server refuses LISTEN (a
    hot standby, which receives no notifications), so every call must read again."""
    conn.add_notify_handler(on_notify)
    try:
        conn.execute(f"LISTEN {changes_channel(agent)}")
    except psycopg.Error as exc:
        log.info("a read-only session of agent %d reloads on every call: the server refused "
                 "LISTEN (%s)", agent, exc)
        return False
    return True
