"""tiermem's own settings carried in a PostgreSQL DSN.

A store is configured where users name it: the DSN of ``store=``, ``--store`` or
``TIERMEM_STORE``. ``vector_index=hnsw`` there searches vectors through an HNSW
index instead of exactly (``auto``: when the agent has many vectors,
memory/store/vector_choice.py), and ``ef_search=N`` sets how many candidates
that search keeps. libpq refuses keys it does not know, so these are taken out of the DSN
before it connects; both the URI form (``postgresql://...?vector_index=hnsw``)
and the ``key=value`` form are understood.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tiermem.memory.store.vector_choice import checked_ef_search, checked_vector_index

_KEYS = ("vector_index", "ef_search")
_PAIR = re.compile(r"(^|\s)(" + "|".join(_KEYS) + r")\s*=\s*('(?:[^'\\]|\\.)*'|\S*)")


@dataclass(frozen=True)
class StoreOptions:
    """How the store searches vectors: exactly (the default), through HNSW, or by size."""

    vector_index: str = "exact"
    ef_search: int | None = None

    @property
    def hnsw(self) -> bool:
        return self.vector_index == "hnsw"


def split_dsn(dsn: str) -> tuple[str, StoreOptions]:
    """The DSN libpq is given, and tiermem's settings taken out of ``dsn``."""
    libpq, found = _taken_out(dsn)
    return libpq, _parsed(found)


def libpq_dsn(dsn: str) -> str:
    """``dsn`` without tiermem's settings, whatever their values (for connecting to list
    the agents, or for a message)."""
    return _taken_out(dsn)[0]


def _taken_out(dsn: str) -> tuple[str, dict[str, str]]:
    found: dict[str, str] = {}
    if dsn.startswith(("postgresql://", "postgres://")) and "?" in dsn:
        base, _, query = dsn.partition("?")
        kept = []
        for part in query.split("&"):
            key, _, value = part.partition("=")
            if key in _KEYS:
                found[key] = value
            elif part:
                kept.append(part)
        libpq = base + ("?" + "&".join(kept) if kept else "")
    elif dsn.startswith(("postgresql://", "postgres://")):
        libpq = dsn
    else:
        def take(match: re.Match[str]) -> str:
            found[match.group(2)] = match.group(3).strip("'")
            return match.group(1)
        libpq = _PAIR.sub(take, dsn).strip()
    return libpq, found


def _parsed(found: dict[str, str]) -> StoreOptions:
    index = checked_vector_index(found.get("vector_index", "exact"), " in the PostgreSQL DSN")
    ef_search = checked_ef_search(found.get("ef_search"), " in the PostgreSQL DSN")
    return StoreOptions(vector_index=index, ef_search=ef_search)
