"""PostgreSQL for the tests: one local server for the whole session, a fresh database per test.

The server is the one ``tiermem pg start`` runs (memory/store/postgres/local_server.py),
on a temporary directory and a unix socket, with durability off: the tests kill
clients, never the server. ``TIERMEM_TEST_POSTGRES_DSN`` names an existing
server to use instead; its user must be allowed to create databases.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from tiermem.bench.postgres_only import fresh_database, throwaway_server

DSN_VARIABLE = "TIERMEM_TEST_POSTGRES_DSN"


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[str]:
    """The DSN of a PostgreSQL server for this test session (its ``postgres`` database)."""
    given = os.environ.get(DSN_VARIABLE)
    if given:
        yield given
        return
    with throwaway_server() as dsn:
        yield dsn


@pytest.fixture
def postgres_dsn(postgres_server: str) -> Iterator[str]:
    """The DSN of a new, empty database, dropped after the test."""
    with fresh_database(postgres_server) as dsn:
        yield dsn
