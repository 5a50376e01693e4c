"""tiermem's own settings carried in a PostgreSQL DSN.

A store is configured where users name it: the DSN of ``store=``, ``--store`` or
``TIERMEM_STORE``. ``vector_index=hnsw`` there searches vectors through an HNSW
index instead of exactly (``auto``: when the agent has many vectors,
memory/store/vector_choice.py), and ``ef_search=N`` sets how many candidates
that search keeps. libpq refuses keys it does not know, so these are taken out of the DSN
before it connects; both the URI form (``postgresql://...?vector_index=hnsw``)
and the ``key=value`` form are understood as libpq reads them (a URI's percent-escapes
decoded; a quoted or backslash-escaped value, such as a password holding
``ef_search=40``, left whole and as written). A key given twice with two meanings is
refused: which was meant cannot be told.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import unquote

from tiermem.memory.errors import InvalidConfigError, InvalidInputError
from tiermem.memory.store.vector_choice import (
    checked_ef_search,
    checked_vector_index,
    refuse_unused_ef_search,
)

DSN_KEYS = ("vector_index", "ef_search")
#: How each is written, for a key given without a value.
_EXAMPLES = {"vector_index": "hnsw (or exact, auto)",
             "ef_search": "200 (how many candidates HNSW search keeps, from 1 to 1000)"}
#: What libpq counts as a blank between and around its key=value pairs (C's isspace).
BLANKS = " \t\n\r\f\v"


@dataclass(frozen=True)
class StoreOptions:
    """How the store searches vectors: exactly (the default), through HNSW, or by size."""

    vector_index: str = "exact"
    ef_search: int | None = None
    #: Whether the DSN gave vector_index (else "exact" is the default, which an argument's
    #: hnsw may still change, so ef_search beside it is no contradiction yet).
    vector_index_given: bool = field(default=False, compare=False)

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


def _taken_out(dsn: str) -> tuple[str, dict[str, list[str | None]]]:
    """``dsn`` without tiermem's settings, and the values of each found (None: a URI's
    key given without "=", which has no value as an empty one has none)."""
    found: dict[str, list[str | None]] = {}
    query_at = _query_start(dsn)
    if query_at is not None:
        base, query = dsn[:query_at], dsn[query_at + 1:]
        kept = []
        for part in query.split("&"):
            # libpq decodes percent-escapes in a URI's query keys and values alike; one
            # that is not an escape stays, and no value tiermem takes holds a "%".
            key, equals, value = (unquote(text) for text in part.partition("="))
            if key in DSN_KEYS:
                found.setdefault(key, []).append(value if equals else None)
            elif part:
                kept.append(part)
        libpq = dsn if not found else base + ("?" + "&".join(kept) if kept else "")
    elif dsn.startswith(("postgresql://", "postgres://")):
        libpq = dsn
    else:
        kept, (pairs, rest) = [], dsn_pairs(dsn)
        for key, value, written in pairs:
            if key in DSN_KEYS:
                found.setdefault(key, []).append(value)
            else:
                kept.append(written)
        # A pair libpq cannot read (no "=", an unclosed quote) is left for it to refuse.
        libpq = dsn if not found else " ".join(kept + ([rest] if rest.strip(BLANKS) else []))
    return libpq, found


def _query_start(dsn: str) -> int | None:
    """Where the query string of a URI DSN starts (its "?"), None if it has none. libpq
    takes the text up to an "@" before any "/" for the user and password, which may
    hold a "?" unescaped: the query comes after it."""
    if not dsn.startswith(("postgresql://", "postgres://")):
        return None
    authority = dsn.index("://") + 3
    at = authority
    while at < len(dsn) and dsn[at] not in "@/":
        at += 1
    found = dsn.find("?", at + 1 if dsn[at:at + 1] == "@" else authority)
    return found if found >= 0 else None


def dsn_pairs(dsn: str) -> tuple[list[tuple[str, str, str]], str]:
    """The pairs of a key=value DSN as libpq reads them, up to one it cannot read (each
    key, its value unquoted with its backslash escapes undone, and the pair as written),
    and the text after them. A value may hold blanks, quotes and "key=value" inside quotes or
    escaped, and a blank after "=" is skipped, so ``password= ef_search=40`` is a
    password."""
    pairs: list[tuple[str, str, str]] = []
    at = 0
    while True:
        while at < len(dsn) and dsn[at] in BLANKS:
            at += 1
        start = at
        while at < len(dsn) and dsn[at] != "=" and dsn[at] not in BLANKS:
            at += 1
        key = dsn[start:at]
        while at < len(dsn) and dsn[at] in BLANKS:
            at += 1
        if not key or at == len(dsn) or dsn[at] != "=":
            return pairs, dsn[start:]
        at += 1
        while at < len(dsn) and dsn[at] in BLANKS:
            at += 1
        quoted = at < len(dsn) and dsn[at] == "'"
        at += quoted
        value = []
        while at < len(dsn) and not (dsn[at] == "'" if quoted else dsn[at] in BLANKS):
            if dsn[at] == "\\":
                at += 1
            value.append(dsn[at:at + 1])
            at += 1
        if quoted and at >= len(dsn):
            # Unclosed, also when a backslash ends the DSN: libpq takes it to escape the end.
            return pairs, dsn[start:]
        at += quoted
        pairs.append((key, "".join(value), dsn[start:at]))


def _parsed(found: dict[str, list[str | None]]) -> StoreOptions:
    where = " in the PostgreSQL DSN"
    for key, values in found.items():
        if None in values or "" in values:  # "?ef_search", "ef_search=" or "ef_search=''"
            raise InvalidInputError(
                f"{key}{where} has no value; give it one, as {key}={_EXAMPLES[key]}")
    indexes = {checked_vector_index(value, where) for value in found.get("vector_index", [])}
    searches = {checked_ef_search(value, where) for value in found.get("ef_search", [])}
    for key, meanings in (("vector_index", indexes), ("ef_search", searches)):
        if len(meanings) > 1:
            shown = " and ".join(repr(value) for value in found[key])
            raise InvalidConfigError(
                f"the PostgreSQL DSN gives {key} more than once, as {shown}; give it once",
                (key,))
    options = StoreOptions(vector_index=indexes.pop() if indexes else "exact",
                           ef_search=searches.pop() if searches else None,
                           vector_index_given="vector_index" in found)
    if "vector_index" in found:  # exact by default: ef_search may await an argument's hnsw
        refuse_unused_ef_search(options.vector_index, options.ef_search, where)
    return options
