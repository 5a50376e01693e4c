"""Connecting to PostgreSQL: DSNs, the schema, the agent's row and tiermem's errors.

The agent's writer lock is memory/store/postgres/writer_lock.py.
"""

from __future__ import annotations

import contextlib
import re
import secrets
import shlex
from collections.abc import Iterator
from typing import Any

import psycopg
from psycopg import errors as pg_errors
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from tiermem.memory.errors import (
    THIS_PROCESS,
    ConnectionLostError,
    NewerSchemaError,
    OlderSchemaError,
    ReadOnlyError,
    StoreClosedError,
    StoreCorruptError,
    StoreError,
    StoreFullError,
    StoreLockedError,
    StoreUnreachableError,
)
from tiermem.memory.store.location_text import hidden_port_note, without_password
from tiermem.memory.store.postgres.dsn_checks import dsn_parts, first_line, not_valid
from tiermem.memory.store.postgres.local_server import local_server_at
from tiermem.memory.store.postgres.options import libpq_dsn
from tiermem.memory.store.postgres.schema import (
    SCHEMA_VERSION,
    VECTOR_EXTENSION,
    SchemaMismatchError,
    applied_version,
    migrate,
)


def public_dsn(dsn: str) -> str:
    """``dsn`` without its passwords (or tiermem's settings), for messages and the chat's
    banner: the login's, and ``sslpassword``, which unlocks the client's SSL key, also
    those a ``dbname`` written as a DSN of its own holds (``dbname=postgresql://u:PW@h``).
    A port hidden as a possible password is said to be, wherever it is shown."""
    shown = _public_conninfo(dsn)
    if shown is None:
        return "the PostgreSQL database given"
    return shown + hidden_port_note(dsn)


def _public_conninfo(dsn: str) -> str | None:
    """``public_dsn`` as a connection string, with no word of a port hidden, to build on;
    None when libpq cannot read ``dsn``."""
    try:
        parts = conninfo_to_dict(libpq_dsn(dsn))
    except psycopg.ProgrammingError:
        return None
    for secret in ("password", "sslpassword"):
        parts.pop(secret, None)
    shown = make_conninfo("", **{k: v for k, v in parts.items() if v is not None})
    return without_password(shown, dsn)


class AgentLockedError(StoreLockedError):
    """Another session holds this agent's writer lock in the database."""

    def __init__(self, where: str, host: str | None, pid: int | None,
                 since: str | None, orphaned_backend: int | None = None,
                 this_process: bool = False) -> None:
        self.path = where
        self.holder_pid = pid
        self.holder_host = host
        self.since = since
        self.exited_pid = None  # a database lock ends with the session that took it
        #: The server process of a session whose client has exited, still holding the lock.
        self.orphaned_backend = orphaned_backend
        self.this_process = this_process
        who = (f"process {pid} on host {host}" + (f" (since {since})" if since else "")
               if pid is not None else "another session")
        self.situation = f"{where} is open for writing by {who}"
        held_open = this_process and orphaned_backend is None
        gone = ("no memory of this process has it open" if this_process
                else "that process has exited")
        if orphaned_backend is not None:
            advice = (f"{gone}, but its database session has not ended; end "
                      f"it with `SELECT pg_terminate_backend({orphaned_backend})` and try "
                      f"again, or open it with read_only=True to inspect it")
        elif held_open:
            advice = ("close() that memory (or end its with block) before opening the agent "
                      "again, or open it with read_only=True to inspect it")
        else:
            advice = ("close that session (or wait for it to exit) and try again, or open it "
                      "with read_only=True to inspect it")
        StoreError.__init__(self, f"{self.situation}{THIS_PROCESS if held_open else ''}; {advice}")

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.path, self.holder_host, self.holder_pid, self.since,
                             self.orphaned_backend, self.this_process))


def connect(dsn: str) -> psycopg.Connection:
    """An autocommit connection (transactions are begun explicitly) with tiermem's types."""
    try:
        conn = psycopg.connect(dsn, autocommit=True, application_name="tiermem")
    except psycopg.OperationalError as exc:
        # libpq's words may name a part of a password it cut short (its host, as "@" ends it).
        raise StoreUnreachableError(without_password(
            f"cannot connect to PostgreSQL at {public_dsn(dsn)}: "
            f"{first_line(exc)}", dsn)
            + f"; {_connect_advice(dsn, exc)}") from None
    except psycopg.ProgrammingError as exc:
        raise StoreError(without_password(not_valid(exc), dsn)) from None
    return conn


#: The server's words for a database it does not have. On connect psycopg gives no
#: sqlstate (3D000), so the message is what tells this failure apart.
_NO_DATABASE = re.compile(r'database "(.*)" does not exist')


def _connect_advice(dsn: str, exc: psycopg.OperationalError) -> str:
    """What to do when connecting to ``dsn`` failed with ``exc``: only what comes from
    ``dsn`` or the server hides the password's parts, not the commands' own words (a
    password cut short at a "/", postgresql://u:pg/status@h/db, has a part "status")."""
    def shown(text: object) -> str:
        return without_password(str(text), dsn)

    missing = _NO_DATABASE.search(str(exc))
    if missing is not None or exc.sqlstate == pg_errors.InvalidCatalogName.sqlstate:
        name = (missing.group(1) if missing is not None
                else dsn_parts(dsn).get("dbname") or "DATABASE")
        return (f"create it (`createdb {shown(shlex.quote(name))}`, or `CREATE DATABASE "
                f"{shown(_identifier(name))}` in psql) or name a database that exists in the DSN "
                f"(a local server from `tiermem pg start` has `postgres`)")
    server = local_server_at(dsn_parts(dsn).get("host", ""))
    if server is None:
        return ("check that the server runs (a local one: `tiermem pg status`) and the DSN "
                "is right")
    try:
        running = server.status() is not None
    except StoreError:
        running = True  # another user's server: its owner can say
    if not running:
        return (f"the local server in {shown(server.data_dir)} is not running; start it "
                f"with `tiermem pg start{shown(server.dir_option)}`")
    return (f"check the local server with `tiermem pg status{shown(server.dir_option)}` and that "
            f"the DSN is right")


def _identifier(name: str) -> str:
    """``name`` as SQL writes it: quoted unless PostgreSQL would read it unchanged bare."""
    if re.fullmatch(r"[a-z_][a-z0-9_$]*", name):
        return name
    return '"' + name.replace('"', '""') + '"'


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


def prepare(conn: psycopg.Connection, *, read_only: bool, where: str, agent: str,
            server: str) -> None:
    """Bring the schema up to date (a writer), or check it can be read (read-only). An
    upgrade refused names the command that makes it, for ``agent`` at DSN ``server``."""
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
            if applied_version(conn) > 0:
                raise _upgrade_refused(conn, exc, where, agent, server) from None
            raise StoreError(
                f"cannot create tiermem's tables in {where}: {first_line(exc)}; the user "
                f"needs CREATE on the database (and the `vector` extension installed by a "
                f"superuser: CREATE EXTENSION vector)") from None
        except pg_errors.FeatureNotSupported as exc:
            raise StoreError(f"{where} lacks what tiermem needs: {first_line(exc)}") from None
        except SchemaMismatchError as exc:
            raise StoreError(
                f"cannot upgrade the schema of {where}, left at schema "
                f"{applied_version(conn)}: {exc}. A development version of "
                f"tiermem wrote it; open it with that version and move each agent to an "
                f"agent home (`tiermem migrate --from DSN --agent NAME --to PATH`), then "
                f"into a new database with this one") from None
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


def _upgrade_refused(conn: psycopg.Connection, exc: pg_errors.InsufficientPrivilege,
                     where: str, agent: str, server: str) -> StoreError:
    # An upgrade alters tables (and disables their guard triggers for a conversion), which
    # PostgreSQL lets only their owner do, whatever rights on the rows a role was granted.
    owner, role = conn.execute(
        "SELECT (SELECT pg_get_userbyid(relowner) FROM pg_class"
        " WHERE oid = to_regclass('tiermem.messages')), current_user").fetchone() or (None, None)
    upgrading = f"cannot upgrade the schema of {where} from {applied_version(conn)} to " \
                f"{SCHEMA_VERSION}: {first_line(exc)}"
    if owner is None or owner == role:
        return StoreError(f"{upgrading}; grant the role {role} what it was refused, or run "
                          f"`tiermem upgrade --agent {shlex.quote(agent)} --store DSN` once, "
                          f"DSN connecting as a superuser")
    # The DSN given, as the owner and without the password of this role's login.
    as_owner = make_conninfo(_public_conninfo(server) or "", user=owner)
    return StoreError(
        f"{upgrading}; an upgrade changes tiermem's tables, which only their owner may do, "
        f"and they belong to role {owner}, not {role}: run `tiermem upgrade --agent "
        f"{shlex.quote(agent)} --store {shlex.quote(as_owner)}`{hidden_port_note(server)} "
        f"once (adding {owner}'s "
        f"password to that DSN if its login needs one), then this role writes again with "
        f"the rights it has")


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
        f"({first_line(exc)}); connect as the role that created tiermem's tables, or have "
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


def refuse_newer_schema_since(conn: psycopg.Connection, where: str) -> None:
    """``refuse_newer_schema`` for a store opened before, first thing in each of its write
    transactions, and in each read of a read-only one (its catch-up). The schema is the
    database's: a newer tiermem opening any agent there upgrades it while this session is
    open, and writes after that could break what the newer schema rests on, as an open of
    it would; reads could leave out what it withholds. It costs one read of the
    migrations' primary key (its last entry) per transaction; a transaction already
    running when an upgrade commits is not stopped by it."""
    row = conn.execute("SELECT max(version) FROM tiermem.migrations").fetchone()
    if row is not None and row[0] is not None and int(row[0]) > SCHEMA_VERSION:
        raise NewerSchemaError(where, int(row[0]), SCHEMA_VERSION)


def agent_id(conn: psycopg.Connection, name: str, *, create: bool, where: str,
             mark_if_new: tuple[str, str] | None = None) -> tuple[int, str]:
    """The agent's id and store id, creating the agent when ``create``; an agent created
    here is given the setting ``mark_if_new`` (key, value), if any, in the same transaction."""
    if create and mark_if_new is not None:
        _create_marked(conn, name, mark_if_new)
    elif create:
        conn.execute("INSERT INTO tiermem.agents (name, store_id) VALUES (%s, %s) "
                     "ON CONFLICT (name) DO NOTHING", (name, secrets.token_hex(16)))
    row = conn.execute("SELECT id, store_id FROM tiermem.agents WHERE name = %s",
                       (name,)).fetchone()
    if row is None:
        raise StoreError(f"{where} does not exist; open it for writing once to create it")
    return int(row[0]), str(row[1])


def _create_marked(conn: psycopg.Connection, name: str, mark: tuple[str, str]) -> None:
    # One transaction: a process killed between creating the agent and marking it would
    # leave an empty agent that opens as a memory (a restore's mark says it is not one).
    conn.execute("BEGIN")
    try:
        created = conn.execute(
            "INSERT INTO tiermem.agents (name, store_id) VALUES (%s, %s) "
            "ON CONFLICT (name) DO NOTHING RETURNING id",
            (name, secrets.token_hex(16))).fetchone()
        if created is not None:
            conn.execute("INSERT INTO tiermem.settings (agent_id, key, value) "
                         "VALUES (%s, %s, %s)", (created[0], *mark))
        conn.execute("COMMIT")
    except BaseException:
        with contextlib.suppress(psycopg.Error):
            conn.execute("ROLLBACK")
        raise


def stored_agents(dsn: str) -> list[str] | None:
    """The names of the agents the database at ``dsn`` holds, sorted; None when it holds
    no tiermem memory at all."""
    server = libpq_dsn(dsn)
    with connect(server) as conn, privileges_checked(f"the agents of {public_dsn(server)}"):
        found = conn.execute("SELECT to_regclass('tiermem.agents')").fetchone()
        if found is None or found[0] is None:
            return None
        return [row[0] for row in conn.execute("SELECT name FROM tiermem.agents ORDER BY name")]


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
                                 f"{first_line(exc)}; restore it from a backup or snapshot")
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
                                   f"{first_line(exc)}; the last transaction was not "
                                   f"committed", status_advice(dsn))
    return None


def status_advice(dsn: str) -> str:
    """How to look at the server of ``dsn``: the ``tiermem pg status`` that reaches it when
    it is a local server, since plain ``status`` looks at the default directory only."""
    server = local_server_at(dsn_parts(dsn).get("host", ""))
    if server is None:
        return "`tiermem pg status` for a local one"
    return f"`tiermem pg status{server.dir_option}`"
