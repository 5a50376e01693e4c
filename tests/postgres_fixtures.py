"""PostgreSQL for the tests: one local server for the whole session, a fresh database per test.

The server is the one ``tiermem pg start`` runs (memory/store/postgres/local_server.py),
on a temporary directory and a unix socket, with durability off: the tests kill
clients, never the server. ``TIERMEM_TEST_POSTGRES_DSN`` names an existing
server to use instead; its user must be allowed to create databases.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from psycopg import sql
from psycopg.conninfo import make_conninfo

from tiermem.memory.store.postgres.local_server import LocalPostgres

DSN_VARIABLE = "TIERMEM_TEST_POSTGRES_DSN"
#: A throwaway server needs no durability; these settings only make it faster.
TEST_SETTINGS = {"fsync": "off", "synchronous_commit": "off", "full_page_writes": "off"}


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[str]:
    """The DSN of a PostgreSQL server for this test session (its ``postgres`` database)."""
    given = os.environ.get(DSN_VARIABLE)
    if given:
        yield given
        return
    # Not under pytest's own temporary directory: when root runs the tests the server
    # runs as an unprivileged account, which cannot enter pytest's private directory.
    # The base is passable (0711) so the server's account reaches the data directory and,
    # when the virtualenv is private, the server programs linked beside it.
    base = Path(tempfile.mkdtemp(prefix="tiermem-pg-"))
    base.chmod(0o711)
    server = LocalPostgres(base / "data", settings=TEST_SETTINGS)
    try:
        yield server.start()
    finally:
        try:
            server.stop()
        finally:
            shutil.rmtree(base, ignore_errors=True)


@contextlib.contextmanager
def fresh_database(server: str) -> Iterator[str]:
    """The DSN of a new, empty database on ``server``, dropped afterwards."""
    name = f"tiermem_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(server, autocommit=True) as admin:
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    try:
        yield make_conninfo(server, dbname=name)
    finally:
        with psycopg.connect(server, autocommit=True) as admin:
            admin.execute(sql.SQL("DROP DATABASE {} WITH (FORCE)").format(sql.Identifier(name)))


@pytest.fixture
def postgres_dsn(postgres_server: str) -> Iterator[str]:
    """The DSN of a new, empty database, dropped after the test."""
    with fresh_database(postgres_server) as dsn:
        yield dsn
