"""Connecting to PostgreSQL: DSNs, the agent's row, its writer lock and tiermem's errors.

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
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import secrets
import shlex
import socket
from collections.abc import Callable, Iterator
from typing import Any

import psycopg
from psycopg import errors as pg_errors
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from tiermem.memory.errors import (
    ConnectionLostError,
    InvalidInputError,
    NewerSchemaError,
    OlderSchemaError,
    ReadOnlyError,
    StoreClosedError,
    StoreCorruptError,
    StoreError,
    StoreFullError,
    StoreLockedError,
)
from tiermem.memory.store.opening import without_password
from tiermem.memory.store.postgres.local_server import local_server_at
from tiermem.memory.store.postgres.options import libpq_dsn, split_dsn
from tiermem.memory.store.postgres.schema import (
    LOCK_CLASS,
    SCHEMA_VERSION,
    VECTOR_EXTENSION,
    applied_version,
    migrate,
)


def public_dsn(dsn: str) -> str:
    """``dsn`` without its password (or tiermem's settings), for messages."""
    try:
        parts = conninfo_to_dict(libpq_dsn(dsn))
    except psycopg.ProgrammingError:
        return "the PostgreSQL database given"
    parts.pop("password", None)
    return make_conninfo("", **{k: v for k, v in parts.items() if v is not None})


class AgentLockedError(StoreLockedError):
    """Another session holds this agent's writer lock in the database."""

    def __init__(self, where: str, host: str | None, pid: int | None,
                 since: str | None, orphaned_backend: int | None = None) -> None:
        self.path = where
        self.holder_pid = pid
        self.holder_host = host
        self.since = since
        self.exited_pid = None  # a database lock ends with the session that took it
        #: The server process of a session whose client has exited, still holding the lock.
        self.orphaned_backend = orphaned_backend
        who = (f"process {pid} on host {host}" + (f" (since {since})" if since else "")
               if pid is not None else "another session")
        self.situation = f"{where} is open for writing by {who}"
        if orphaned_backend is not None:
            advice = (f"that process has exited, but its database session has not ended; end "
                      f"it with `SELECT pg_terminate_backend({orphaned_backend})` and try "
                      f"again, or open it with read_only=True to inspect it")
        else:
            advice = ("close that session (or wait for it to exit) and try again, or open it "
                      "with read_only=True to inspect it")
        StoreError.__init__(self, f"{self.situation}; {advice}")

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.path, self.holder_host, self.holder_pid, self.since,
                             self.orphaned_backend))


def connect(dsn: str) -> psycopg.Connection:
    """An autocommit connection (transactions are begun explicitly) with tiermem's types."""
    try:
        conn = psycopg.connect(dsn, autocommit=True, application_name="tiermem")
    except psycopg.OperationalError as exc:
        raise StoreError(f"cannot connect to PostgreSQL at {public_dsn(dsn)}: "
                         f"{_first_line(exc)}; {_connect_advice(dsn, exc)}") from None
    except psycopg.ProgrammingError as exc:
        raise StoreError(without_password(_not_valid(exc), dsn)) from None
    return conn


#: The server's words for a database it does not have. On connect psycopg gives no
#: sqlstate (3D000), so the message is what tells this failure apart.
_NO_DATABASE = re.compile(r'database "(.*)" does not exist')


def _connect_advice(dsn: str, exc: psycopg.OperationalError) -> str:
    """What to do when connecting to ``dsn`` failed with ``exc``."""
    missing = _NO_DATABASE.search(str(exc))
    if missing is not None or exc.sqlstate == pg_errors.InvalidCatalogName.sqlstate:
        name = (missing.group(1) if missing is not None
                else _dsn_parts(dsn).get("dbname") or "DATABASE")
        return (f"create it (`createdb {shlex.quote(name)}`, or `CREATE DATABASE "
                f"{_identifier(name)}` in psql) or name a database that exists in the DSN "
                f"(a local server from `tiermem pg start` has `postgres`)")
    server = local_server_at(_dsn_parts(dsn).get("host", ""))
    if server is None:
        return ("check that the server runs (a local one: `tiermem pg status`) and the DSN "
                "is right")
    try:
        running = server.status() is not None
    except StoreError:
        running = True  # another user's server: its owner can say
    if not running:
        return (f"the local server in {server.data_dir} is not running; start it with "
                f"`tiermem pg start{server.dir_option}`")
    return (f"check the local server with `tiermem pg status{server.dir_option}` and that "
            f"the DSN is right")


def _dsn_parts(dsn: str) -> dict[str, str]:
    try:
        parts = conninfo_to_dict(libpq_dsn(dsn))
    except psycopg.ProgrammingError:
        return {}
    return {k: str(v) for k, v in parts.items() if v is not None}


def _identifier(name: str) -> str:
    """``name`` as SQL writes it: quoted unless PostgreSQL would read it unchanged bare."""
    if re.fullmatch(r"[a-z_][a-z0-9_$]*", name):
        return name
    return '"' + name.replace('"', '""') + '"'


def dsn_problem(dsn: str) -> str | None:
    """What makes ``dsn`` unusable as written (None: nothing), found without connecting."""
    try:
        libpq, _ = split_dsn(dsn)
        parts = conninfo_to_dict(libpq)
    except InvalidInputError as exc:
        return without_password(str(exc), dsn)
    except psycopg.ProgrammingError as exc:
        return without_password(_not_valid(exc), dsn)
    # libpq reads these only when it connects, and then reports them as a failure to reach
    # the server.
    for key, fits, wanted in _CHECKED_PARTS:
        value = parts.get(key)
        if value is not None and not fits(str(value)):
            return without_password(
                f"the PostgreSQL DSN is not valid: {key} {str(value)!r} is not {wanted}; write "
                f"it as postgresql://USER@HOST:PORT/DATABASE (`tiermem pg start` prints one "
                f"for a local server)", dsn)
    return None


def _ports(value: str) -> bool:
    return all(p == "" or (p.isascii() and p.isdigit() and 0 < int(p) < 65536)
               for p in value.split(","))


_SSL_MODES = ("disable", "allow", "prefer", "require", "verify-ca", "verify-full")
#: DSN parts checked before connecting: the key, a test of its value, what it must be.
_CHECKED_PARTS: tuple[tuple[str, Callable[[str], bool], str], ...] = (
    ("port", _ports, "a port number from 1 to 65535 (or a comma list of them)"),
    ("sslmode", lambda v: v in _SSL_MODES, "one of " + ", ".join(_SSL_MODES)),
    ("connect_timeout", lambda v: v.strip().lstrip("-").isascii()
     and v.strip().lstrip("-").isdigit(), "a whole number of seconds"),
)


def _not_valid(exc: Exception) -> str:
    return (f"the PostgreSQL DSN is not valid: {_first_line(exc)}; write it as "
            f"postgresql://USER@HOST:PORT/DATABASE (`tiermem pg start` prints one for a "
            f"local server)")


def require_pgvector(conn: psycopg.Connection, where: str) -> None:
    """Refuse, saying what to install, a server that cannot give tiermem its vectors."""
    row = conn.execute("SELECT 1 FROM pg_available_extensions WHERE name = %s",
                       (VECTOR_EXTENSION,)).fetchone()
    if row is None:
        raise StoreError(
            f"the PostgreSQL server of {where} has no pgvector extension, which tiermem "
            f"stores its vectors with; install pgvector on that server "
            f"(https://github.com/pgvector/pgvector#installation), or use a local server "
            f"that has it: `tiermem pg start`")


def prepare(conn: psycopg.Connection, *, read_only: bool, where: str) -> None:
    """Bring the schema up to date (a writer), or check it can be read (read-only)."""
    # Before a writer creates anything: what a newer version stored may rest on columns
    # and invariants this one would break.
    refuse_newer_schema(conn, where)
    if read_only:
        version = applied_version(conn)
        if version == 0:
            raise StoreError(f"{where} has no tiermem memory yet; open it once for writing "
                             f"to create it")
        if version < SCHEMA_VERSION:
            raise OlderSchemaError(where, version, SCHEMA_VERSION)
    else:
        require_pgvector(conn, where)
        try:
            migrate(conn)
        except pg_errors.InsufficientPrivilege as exc:
            raise StoreError(
                f"cannot create tiermem's tables in {where}: {_first_line(exc)}; the user "
                f"needs CREATE on the database (and the `vector` extension installed by a "
                f"superuser: CREATE EXTENSION vector)") from None
        except pg_errors.FeatureNotSupported as exc:
            raise StoreError(f"{where} lacks what tiermem needs: {_first_line(exc)}") from None
        except pg_errors.UndefinedObject as exc:
            if "vector" not in str(exc):
                raise
            raise _vector_not_found(where) from None
    refuse_newer_schema(conn, where)  # a newer version may have migrated meanwhile
    from pgvector.psycopg import register_vector

    try:
        register_vector(conn)
    except psycopg.ProgrammingError as exc:
        if "vector type not found" not in str(exc):
            raise
        raise _vector_not_found(where) from None


def _vector_not_found(where: str) -> StoreError:
    # pgvector installed in a schema the connection's search_path leaves out.
    return StoreError(
        f"the PostgreSQL connection for {where} does not find pgvector's `vector` type: the "
        f"extension is installed in a schema its search_path leaves out. Move it to one on "
        f"the path (`ALTER EXTENSION vector SET SCHEMA public`), or add its schema to the "
        f"role's search_path (`ALTER ROLE ... SET search_path = \"$user\", public, "
        f"SCHEMA`)")


def privilege_error(exc: pg_errors.InsufficientPrivilege, where: str) -> StoreError:
    """What to do when the connection's role may not read or write tiermem's tables."""
    return StoreError(
        f"the PostgreSQL role used for {where} lacks a privilege tiermem needs "
        f"({_first_line(exc)}); connect as the role that created tiermem's tables, or have "
        f"that role grant this one `USAGE ON SCHEMA tiermem` and `SELECT` on its tables to "
        f"read, plus `INSERT, UPDATE, DELETE` on the tables and `USAGE` on the sequences to "
        f"write")


@contextlib.contextmanager
def privileges_checked(where: str) -> Iterator[None]:
    """Raise a refused privilege in the block as ``privilege_error`` says it."""
    try:
        yield
    except pg_errors.InsufficientPrivilege as exc:
        raise privilege_error(exc, where) from None


def refuse_newer_schema(conn: psycopg.Connection, where: str) -> None:
    version = applied_version(conn)
    if version > SCHEMA_VERSION:
        raise NewerSchemaError(where, version, SCHEMA_VERSION)


def agent_id(conn: psycopg.Connection, name: str, *, create: bool,
             where: str) -> tuple[int, str]:
    """The agent's id and store id, creating the agent when ``create``."""
    if create:
        conn.execute("INSERT INTO tiermem.agents (name, store_id) VALUES (%s, %s) "
                     "ON CONFLICT (name) DO NOTHING", (name, secrets.token_hex(16)))
    row = conn.execute("SELECT id, store_id FROM tiermem.agents WHERE name = %s",
                       (name,)).fetchone()
    if row is None:
        raise StoreError(f"{where} does not exist; open it for writing once to create it")
    return int(row[0]), str(row[1])


def stored_agents(dsn: str) -> list[str] | None:
    """The names of the agents the database at ``dsn`` holds, sorted; None when it holds
    no tiermem memory at all."""
    server = libpq_dsn(dsn)
    with connect(server) as conn, privileges_checked(f"the agents of {public_dsn(server)}"):
        found = conn.execute("SELECT to_regclass('tiermem.agents')").fetchone()
        if found is None or found[0] is None:
            return None
        return [row[0] for row in conn.execute("SELECT name FROM tiermem.agents ORDER BY name")]


log = logging.getLogger(__name__)

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
        orphaned = (host == socket.gethostname() and scope == process_scope()
                    and pid is not None and pid != os.getpid() and not _process_exists(pid))
        if holder is None and _try_lock(conn, agent):
            pass  # its holder let it go between the two statements
        elif not (orphaned and _wait_for_dead_writer(conn, agent, where, pid, backend)):
            raise AgentLockedError(where, host, pid, since, backend if orphaned else None)
    conn.execute("SELECT " + ", ".join(["set_config(%s, %s, false)"] * len(KEEPALIVE)),
                 [part for setting in KEEPALIVE.items() for part in setting])
    conn.execute(
        "INSERT INTO tiermem.writers (agent_id, host, pid, backend_pid, process_scope) "
        "VALUES (%s, %s, %s, pg_backend_pid(), %s) ON CONFLICT (agent_id) DO UPDATE SET "
        "host = excluded.host, pid = excluded.pid, backend_pid = excluded.backend_pid, "
        "process_scope = excluded.process_scope, since = now()",
        (agent, socket.gethostname(), os.getpid(), process_scope()))


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
                          backend: int | None) -> bool:
    """Wait for the lock of a writer that exited (``ORPHAN_WAIT_MS`` in all); whether it was
    taken. The server normally ends such a session within moments: a wait that lasts longer
    than ``QUIET_WAIT_MS`` is explained while it lasts, not suffered in silence."""
    quiet = min(QUIET_WAIT_MS, ORPHAN_WAIT_MS)
    if _wait_for_lock(conn, agent, quiet):
        return True
    if quiet >= ORPHAN_WAIT_MS:
        return False
    log.warning("%s: its last writer, process %s of this host, has exited, but its database "
                "session (server process %s) has not ended yet; waiting up to %s s more for "
                "the server to end it", where, pid, backend,
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


def translate(exc: BaseException, where: str, dsn: str) -> StoreError | None:
    """tiermem's error for a PostgreSQL failure a user can act on; None for any other.

    ``dsn`` is the connection's, which tells a local server's directory apart."""
    if isinstance(exc, StoreError):
        return None
    if isinstance(exc, pg_errors.DiskFull):
        return StoreFullError(f"the PostgreSQL server of {where} is out of disk space; "
                              f"nothing was written. Free space on it and try again")
    if isinstance(exc, (pg_errors.DataCorrupted, pg_errors.IndexCorrupted)):
        return StoreCorruptError(f"PostgreSQL reports damaged data in {where}: "
                                 f"{_first_line(exc)}; restore it from a backup or snapshot")
    if isinstance(exc, pg_errors.InsufficientPrivilege):
        return privilege_error(exc, where)
    if isinstance(exc, pg_errors.ReadOnlySqlTransaction):
        return ReadOnlyError(f"the PostgreSQL server of {where} accepts no writes (a standby "
                             f"or read-only database); connect to its primary to write")
    if isinstance(exc, psycopg.OperationalError):
        closed = getattr(exc, "__cause__", None) is None and "closed" in str(exc)
        if closed:
            return StoreClosedError("this memory is closed; open it again to use it")
        return ConnectionLostError(f"lost the connection to PostgreSQL for {where}: "
                                   f"{_first_line(exc)}; the last transaction was not "
                                   f"committed", status_advice(dsn))
    return None


def status_advice(dsn: str) -> str:
    """How to look at the server of ``dsn``: the ``tiermem pg status`` that reaches it when
    it is a local server, since plain ``status`` looks at the default directory only."""
    server = local_server_at(_dsn_parts(dsn).get("host", ""))
    if server is None:
        return "`tiermem pg status` for a local one"
    return f"`tiermem pg status{server.dir_option}`"


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__

