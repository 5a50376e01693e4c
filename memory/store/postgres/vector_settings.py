"""How a ``PostgresBackend`` searches vectors: its arguments and its DSN's settings,
resolved once when it opens, and the vector index of each table it hands out.

``vector_index="hnsw"`` (or ``hnsw=True``) searches vectors through an HNSW
index (approximate) instead of comparing every one (``"exact"``, the
default); ``"auto"`` does so for a table holding at least ``HNSW_MIN_ROWS``
of the agent's vectors when it is opened (memory/store/vector_choice.py).
``vector_index=...`` in the DSN says the same (memory/store/postgres/options.py),
and an argument given to the backend wins over the DSN. ``hnsw`` and
``vector_index`` given together must agree: which was meant cannot be told.
"""

from __future__ import annotations

from tiermem.memory.errors import InvalidConfigError
from tiermem.memory.store.postgres.options import StoreOptions
from tiermem.memory.store.postgres.scope import Scope
from tiermem.memory.store.postgres.vectors import (
    HNSW_EF_SEARCH,
    PgVectorIndex,
    create_hnsw_index,
)
from tiermem.memory.store.records import VectorTable
from tiermem.memory.store.vector_choice import (
    HNSW_MIN_ROWS,
    checked_ef_search,
    checked_vector_index,
    refuse_ef_search_by_default,
    refuse_unused_ef_search,
)


class PgVectorSettings:
    """The vector search settings of a backend that has ``scope`` and ``_read_only``."""

    scope: Scope
    _read_only: bool
    vector_index: str
    ef_search: int

    def _choose_vectors(self, options: StoreOptions, hnsw: bool | None,
                        vector_index: str | None, ef_search: int | None) -> None:
        exact_as = f"vector_index={vector_index!r}"
        if hnsw is not None:
            exact_as = f"hnsw={hnsw!r}"
            if not isinstance(hnsw, bool):  # the string "false" would turn HNSW on
                raise InvalidConfigError(
                    f"hnsw must be True or False, got {hnsw!r:.40}; or pass vector_index: "
                    f"'exact', 'hnsw' or 'auto'", ("hnsw",))
            implied = "hnsw" if hnsw else "exact"
            if vector_index is not None and checked_vector_index(vector_index) != implied:
                raise InvalidConfigError(
                    f"hnsw={hnsw} and vector_index={vector_index!r} contradict each other "
                    f"(hnsw={hnsw} means vector_index={implied!r}); pass vector_index alone: "
                    f"'exact', 'hnsw' or 'auto'", ("hnsw", "vector_index"))
            vector_index = implied
        if vector_index is not None:  # the two arguments; the DSN's are checked together
            refuse_unused_ef_search(checked_vector_index(vector_index),
                                    checked_ef_search(ef_search))
            if ef_search is None and not options.vector_index_given:
                # The DSN's ef_search awaited an index argument; one that gives its own
                # vector_index is overridden whole by the argument's.
                refuse_unused_ef_search(checked_vector_index(vector_index), options.ef_search,
                                        " in the PostgreSQL DSN", exact_as=exact_as)
        elif options.vector_index_given:  # the DSN's index with the argument's ef_search
            refuse_unused_ef_search(options.vector_index, checked_ef_search(ef_search),
                                    " in the PostgreSQL DSN")
        elif ef_search is not None:  # no index named anywhere: the default, exact
            refuse_ef_search_by_default(checked_ef_search(ef_search), in_dsn=options.ef_search)
        else:
            refuse_ef_search_by_default(options.ef_search, " in the PostgreSQL DSN")
        self.vector_index = (options.vector_index if vector_index is None
                             else checked_vector_index(vector_index))
        self.ef_search = (checked_ef_search(ef_search) or options.ef_search
                          or HNSW_EF_SEARCH)

    @property
    def hnsw(self) -> bool:
        """Whether every table is searched through HNSW (``auto`` decides per table)."""
        return self.vector_index == "hnsw"

    def vectors(self, table: VectorTable, dim: int) -> PgVectorIndex:
        hnsw = self.hnsw
        if self.vector_index == "auto":
            hnsw = len(PgVectorIndex(self.scope, table, dim)) >= HNSW_MIN_ROWS
        if hnsw and not self._read_only:
            create_hnsw_index(self.scope, table, dim)
        return PgVectorIndex(self.scope, table, dim, hnsw=hnsw, ef_search=self.ef_search)


__all__ = ["PgVectorSettings"]
