"""tiermem's own settings carried in a PostgreSQL DSN.

A store is configured where users name it: the DSN of ``store=``, ``--store`` or
``TIERMEM_STORE``. ``vector_index=hnsw`` there searches vectors through an HNSW
index instead of exactly (``auto``: when the agent has many vectors,
memory/store/vector_choice.py), and ``ef_search=N`` sets how many candidates
that search keeps. libpq refuses keys it does not know, so these are taken out of the DSN
before it connects; both the URI form (``postgresql://...?vector_index=hnsw``)
and the ``key=value`` form are understood, a URI's percent-escapes decoded as libpq
decodes them. A key given twice with two meanings is
refused: which was meant cannot be told.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import unquote

from tiermem.memory.errors import InvalidConfigError
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


def _taken_out(dsn: str) -> tuple[str, dict[str, list[str]]]:
    found: dict[str, list[str]] = {}
    if dsn.startswith(("postgresql://", "postgres://")) and "?" in dsn:
        base, _, query = dsn.partition("?")
        kept = []
        for part in query.split("&"):
            # libpq decodes percent-escapes in a URI's query keys and values alike; one
            # that is not an escape stays, and no value tiermem takes holds a "%".
            key, _, value = (unquote(text) for text in part.partition("="))
            if key in _KEYS:
                found.setdefault(key, []).append(value)
            elif part:
                kept.append(part)
        libpq = base + ("?" + "&".join(kept) if kept else "")
    elif dsn.startswith(("postgresql://", "postgres://")):
        libpq = dsn
    else:
        def take(match: re.Match[str]) -> str:
            found.setdefault(match.group(2), []).append(match.group(3).strip("'"))
            return match.group(1)
        libpq = _PAIR.sub(take, dsn).strip()
    return libpq, found


def _parsed(found: dict[str, list[str]]) -> StoreOptions:
    where = " in the PostgreSQL DSN"
    indexes = {checked_vector_index(value, where) for value in found.get("vector_index", [])}
    searches = {checked_ef_search(value, where) for value in found.get("ef_search", [])}
    for key, meanings in (("vector_index", indexes), ("ef_search", searches)):
        if len(meanings) > 1:
            shown = " and ".join(repr(value) for value in found[key])
            raise InvalidConfigError(
                f"the PostgreSQL DSN gives {key} more than once, as {shown}; give it once",
                (key,))
    return StoreOptions(vector_index=indexes.pop() if indexes else "exact",
                        ef_search=searches.pop() if searches else None)
