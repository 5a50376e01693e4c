"""tiermem's own settings carried in a PostgreSQL DSN.

A store is configured where users name it: the DSN of ``store=``, ``--store`` or
``TIERMEM_STORE``. ``vector_index=hnsw`` there searches vectors through an HNSW
index instead of exactly, and ``ef_search=N`` sets how many candidates that search
keeps. libpq refuses keys it does not know, so these are taken out of the DSN
before it connects; both the URI form (``postgresql://...?vector_index=hnsw``)
and the ``key=value`` form are understood.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tiermem.memory.errors import InvalidInputError

VECTOR_INDEXES = ("exact", "hnsw")
#: pgvector's bounds on hnsw.ef_search.
EF_SEARCH_RANGE = (1, 1000)
_KEYS = ("vector_index", "ef_search")
_PAIR = re.compile(r"(^|\s)(" + "|".join(_KEYS) + r")\s*=\s*('(?:[^'\\]|\\.)*'|\S*)")


@dataclass(frozen=True)
class StoreOptions:
    """How the store searches vectors: exactly (the default) or through HNSW."""

    hnsw: bool = False
    ef_search: int | None = None


def split_dsn(dsn: str) -> tuple[str, StoreOptions]:
    """The DSN libpq is given, and tiermem's settings taken out of ``dsn``."""
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
    return libpq, _parsed(found)


def _parsed(found: dict[str, str]) -> StoreOptions:
    index = found.get("vector_index", "exact").lower()
    if index not in VECTOR_INDEXES:
        raise InvalidInputError(
            f"vector_index={index!r} in the PostgreSQL DSN is not known; use "
            f"vector_index=exact (the default: answers match SQLite's) or vector_index=hnsw "
            f"(approximate, faster on large stores)")
    ef_search = None
    if "ef_search" in found:
        low, high = EF_SEARCH_RANGE
        text = found["ef_search"]
        if not text.isdigit() or not low <= int(text) <= high:
            raise InvalidInputError(
                f"ef_search={text!r} in the PostgreSQL DSN must be a whole number from {low} "
                f"to {high} (how many candidates HNSW search keeps; more finds more of the "
                f"exact answers, more slowly)")
        ef_search = int(text)
    return StoreOptions(hnsw=index == "hnsw", ef_search=ef_search)
