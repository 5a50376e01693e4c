"""How a store searches for the nearest vectors: exactly, through an HNSW graph, or by size.

Both backends take the same two settings. On PostgreSQL they ride in the DSN
(``vector_index=hnsw&ef_search=200``, memory/store/postgres/options.py); on
SQLite they are arguments (``HierarchicalMemory(path, vector_index="hnsw")``,
``SQLiteStore(home, vector_index=...)``).

- ``exact``: every vector is compared; answers are the true nearest rows.
- ``hnsw``: an HNSW index proposes the nearest rows; faster on large stores,
  and approximate (a near row is sometimes missed).
- ``auto``: exact below a size, HNSW above it. SQLite's default; on PostgreSQL
  the size is read once, when the agent is opened (building a server-side
  index is a deliberate step there, so its default stays ``exact``).

``ef_search`` is how many candidates an HNSW search keeps: more finds more of
the exact answers, more slowly.
"""

from __future__ import annotations

from tiermem.memory.errors import InvalidConfigError, InvalidInputError

VECTOR_INDEXES = ("exact", "hnsw", "auto")
#: pgvector's bounds on hnsw.ef_search, used for both backends.
EF_SEARCH_RANGE = (1, 1000)
#: From this many vectors on, ``auto`` chooses HNSW. Below it SQLite's 8-bit scan for
#: recall's 2,000 nearest rows is no slower than the graph, and it is exact (README,
#: "Approximate vector search").
HNSW_MIN_ROWS = 200_000


def checked_vector_index(value: object, where: str = "") -> str:
    """``value`` if it names a known way to search vectors, else a usage error."""
    text = value.lower() if isinstance(value, str) else value
    if text not in VECTOR_INDEXES:
        raise InvalidInputError(
            f"vector_index={value!r}{where} is not known; use exact (compare every vector), hnsw "
            f"(approximate, faster on large stores) or auto (exact below "
            f"{HNSW_MIN_ROWS:,} vectors, hnsw above)")
    return str(text)


def checked_ef_search(value: object, where: str = "") -> int | None:
    """``value`` as a candidate count for HNSW search (None: the default), else a usage error."""
    if value is None:
        return None
    low, high = EF_SEARCH_RANGE
    number = int(value) if isinstance(value, str) and value.isdigit() else value
    if isinstance(number, bool) or not isinstance(number, int) or not low <= number <= high:
        raise InvalidInputError(
            f"ef_search={value!r}{where} must be a whole number from {low} to {high} (how many "
            f"candidates HNSW search keeps; more finds more of the exact answers, more slowly)")
    return number


def refuse_unused_ef_search(vector_index: str | None, ef_search: int | None,
                            where: str = "", *, exact_as: str | None = None) -> None:
    """Refuse ``ef_search`` given beside ``vector_index="exact"``: exact search keeps no
    candidates, so one of the two was not meant, and the setting would do nothing.
    ``exact_as`` (``hnsw=False``, ``vector_index='exact'``): exact is that argument, and
    ``ef_search`` is the DSN's, which is where to leave it out."""
    if vector_index != "exact" or ef_search is None:
        return
    if exact_as is None:
        pair, leave = f"ef_search={ef_search} and vector_index='exact'{where}", "ef_search out"
    else:
        pair = f"ef_search={ef_search}{where} and the argument {exact_as}"
        leave = "ef_search out of the DSN"
    raise InvalidConfigError(
        f"{pair} contradict each other (exact search compares every vector; ef_search is "
        f"for HNSW search); give vector_index as hnsw or auto with ef_search, or leave "
        f"{leave}", ("ef_search", "vector_index"))


def refuse_ef_search_by_default(ef_search: int | None, where: str = "", *,
                                in_dsn: int | None = None) -> None:
    """Refuse ``ef_search`` given where no vector_index is named anywhere, for PostgreSQL:
    its default, exact, would never use it (SQLite's, auto, does past ``HNSW_MIN_ROWS``).
    ``in_dsn``: the DSN's own ef_search beside the argument ``ef_search``, which would be
    refused in its turn were only the argument left out, so both are named."""
    if ef_search is None:
        return
    given, leave = f"ef_search={ef_search}{where} is", "ef_search out"
    if in_dsn is not None:
        given = f"ef_search={ef_search} and ef_search={in_dsn} in the PostgreSQL DSN are"
        leave = "both out (the argument and the DSN's)"
    raise InvalidConfigError(
        f"{given} for HNSW search, and PostgreSQL compares every vector unless vector_index "
        f"says otherwise; give vector_index as hnsw or auto with ef_search, or leave {leave}",
        ("ef_search", "vector_index"))


__all__ = ["EF_SEARCH_RANGE", "HNSW_MIN_ROWS", "VECTOR_INDEXES", "checked_ef_search",
           "checked_vector_index", "refuse_ef_search_by_default",
           "refuse_unused_ef_search"]
