"""Dense search with pgvector: the stored ``embedding`` column is the index.

Search is exact by default (every vector of the agent is compared), so it
answers as SQLite's flat FAISS index does. ``hnsw=True`` (``vector_index=hnsw``
in the DSN) builds an HNSW index of the agent's vectors and searches through
it: approximate, much faster at a million rows (its recall against exact search
is measured by ``python -m tiermem.bench.perf_backends``). pgvector's ``<#>`` is
the negative inner product, which on unit vectors is the negative cosine.

Each agent gets its own partial HNSW index (``WHERE agent_id = N``): a graph
over every agent's rows would hand back other agents' neighbours, which the
agent filter then drops, so a small agent beside a large one would get fewer
than ``k`` answers or cost a long iterative scan.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tiermem.memory.store.postgres.scope import Scope

#: How many candidates HNSW search keeps (pgvector's hnsw.ef_search). Recall against
#: exact search depends on the data: on sentence embeddings, which cluster, 100 finds
#: the exact top 10; on random 384-dimensional vectors, where every distance is about
#: the same, it finds a fraction of them (bench/perf_backends.py measures both).
HNSW_EF_SEARCH = 100


def hnsw_index_name(table: str, dim: int, agent: int) -> str:
    return f"{table}_hnsw_{dim}_agent_{agent}"


def _agent_rows(agent: int, dim: int) -> str:
    # Literals, not parameters: the planner matches a partial index only against
    # conditions it can see, and both are integers tiermem itself holds.
    return f"agent_id = {int(agent)} AND vector_dims(embedding) = {int(dim)}"


def create_hnsw_index(scope: Scope, table: str, dim: int) -> None:
    """The HNSW index of the agent's vectors of ``dim`` in ``table`` (built once; kept
    up to date by PostgreSQL on every insert)."""
    scope.conn.execute(
        f"CREATE INDEX IF NOT EXISTS {hnsw_index_name(table, dim, scope.agent)} "
        f"ON tiermem.{table} USING hnsw ((embedding::vector({dim})) vector_ip_ops) "
        f"WHERE {_agent_rows(scope.agent, dim)}")


class PgVectorIndex:
    """The vectors of one table of one agent, searched where they are stored."""

    def __init__(self, scope: Scope, table: str, dim: int, *, hnsw: bool = False,
                 ef_search: int = HNSW_EF_SEARCH) -> None:
        self.scope, self.table, self.dim, self.hnsw = scope, table, int(dim), hnsw
        self.ef_search = int(ef_search)
        self._rows = (f"FROM tiermem.{table} WHERE agent_id = %s AND embedding IS NOT NULL "
                      f"AND vector_dims(embedding) = {self.dim}")

    def __len__(self) -> int:
        return int(self.scope.value(f"SELECT count(*) {self._rows}"))

    @property
    def approximate(self) -> bool:
        return self.hnsw

    def ids(self) -> np.ndarray:
        rows = self.scope.rows(f"SELECT id {self._rows}")
        return np.array([r[0] for r in rows], dtype=np.int64)

    def add(self, ids: np.ndarray, vectors: np.ndarray) -> None:
        """Nothing to do: the rows' own column is what search reads."""

    def remove(self, ids: np.ndarray) -> None:
        """Nothing to do: the rows' own column is what search reads."""

    def _query(self, query: np.ndarray) -> np.ndarray:
        return np.asarray(query, dtype=np.float32).reshape(-1)

    def _ranked(self, query: np.ndarray, limit: int) -> list[tuple[int, float]]:
        q = self._query(query)
        if self.hnsw:
            with self.scope.conn.transaction():
                self.scope.conn.execute(f"SET LOCAL hnsw.ef_search = {max(self.ef_search, limit)}")
                self.scope.conn.execute("SET LOCAL hnsw.iterative_scan = relaxed_order")
                rows = self.scope.conn.execute(
                    f"SELECT id, -(embedding::vector({self.dim}) <#> %s::vector({self.dim})) "
                    f"AS s FROM tiermem.{self.table} "
                    f"WHERE {_agent_rows(self.scope.agent, self.dim)} "
                    f"ORDER BY embedding::vector({self.dim}) <#> %s::vector({self.dim}) "
                    f"LIMIT %s", (q, q, limit)).fetchall()
            return sorted(((int(i), float(s)) for i, s in rows), key=lambda r: (-r[1], r[0]))
        rows = self.scope.conn.execute(
            f"SELECT id, -(embedding <#> %s) AS s {self._rows} ORDER BY s DESC, id LIMIT %s",
            (q, self.scope.agent, limit)).fetchall()
        return [(int(i), float(s)) for i, s in rows]

    def search(self, query: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        rows = self._ranked(query, k) if k > 0 else []
        return (np.array([r[0] for r in rows], dtype=np.int64),
                np.array([r[1] for r in rows], dtype=np.float32))

    def nearest(self, query: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray, float]:
        rows = self._ranked(query, k + 1) if k > 0 else []
        bound = rows[k][1] if len(rows) > k else float("-inf")
        if k <= 0 and len(self) > 0:
            bound = float("inf")
        elif self.hnsw and rows and len(rows) <= k and len(rows) < len(self):
            # The graph's scan stopped short of the rows there are: what it did not reach
            # is unknown, so the bound is the last row it found (approximate, as HNSW is).
            bound = rows[-1][1]
        rows = rows[:k]
        return (np.array([r[0] for r in rows], dtype=np.int64),
                np.array([r[1] for r in rows], dtype=np.float32), bound)

    def above(self, query: np.ndarray, threshold: float) -> tuple[np.ndarray, np.ndarray]:
        rows = self.scope.conn.execute(
            f"SELECT id, s FROM (SELECT id, -(embedding <#> %s) AS s {self._rows}) m "
            f"WHERE s >= %s ORDER BY s DESC, id",
            (self._query(query), self.scope.agent, threshold)).fetchall()
        return (np.array([int(r[0]) for r in rows], dtype=np.int64),
                np.array([float(r[1]) for r in rows], dtype=np.float32))

    def similarities(self, ids: Sequence[int], query: np.ndarray) -> dict[int, float]:
        if not len(ids):
            return {}
        rows = self.scope.conn.execute(
            f"SELECT id, -(embedding <#> %s) {self._rows} AND id = ANY(%s::bigint[])",
            (self._query(query), self.scope.agent, [int(i) for i in ids])).fetchall()
        return {int(i): float(s) for i, s in rows}

    def rebuild(self) -> None:
        """Nothing to rebuild: the stored vectors are the index."""

    def save(self) -> None:
        """Nothing to save: every vector is committed with its row."""

    def differences(self, limit: int = 5) -> list[str]:
        """None: the index is the stored column itself."""
        return []
