"""The storage backends the conformance suite (tests/conformance/) runs against, by name.

Each entry builds a ``Backend`` for one test session: ``memory()`` is a new,
empty memory; ``home()`` a new place for one memory that can be opened again
and again (to reopen after a close or a kill). A child process opens a home
from its ``spec`` with ``open_spec``. ``unavailable`` says why a backend cannot
run here (its server is missing), so its tests are skipped rather than failed.

Every memory is built on the deterministic hashing embedder unless the test
gives another.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from memory.embed.embeddings import HashingEmbedder
from memory.hierarchy import HierarchicalMemory


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


# -- the registry -------------------------------------------------------------------------------
#: Each backend by name: a function of a scratch directory that builds it.
BACKENDS: dict[str, Callable[[Path], Backend]] = {
    "sqlite": SQLiteBackend,
}

#: Each backend that may be unavailable: a function returning why (None when it can run).
UNAVAILABLE: dict[str, Callable[[], str | None]] = {}

#: How ``open_spec`` opens a home of each backend, by the spec's prefix.
OPENERS: dict[str, Callable[[str], Home]] = {
    "sqlite": lambda rest: SQLiteHome(Path(rest)),
}


def unavailable(name: str) -> str | None:
    """Why the backend ``name`` cannot run here, or None."""
    check = UNAVAILABLE.get(name)
    return check() if check is not None else None


def open_spec(spec: str, **options: Any) -> HierarchicalMemory:
    """Open the home that ``spec`` names (``Home.spec``)."""
    kind, _, rest = spec.partition(":")
    return OPENERS[kind](rest).open(**options)
