"""Store settings carried in the DSN (vector_index, ef_search) and each agent's own HNSW
index."""

from __future__ import annotations

import numpy as np
import psycopg
import pytest

from tiermem.memory.errors import InvalidInputError
from tiermem.memory.hierarchy import HierarchicalMemory
from tiermem.memory.store.postgres.backend import PostgresBackend
from tiermem.memory.store.postgres.options import StoreOptions, split_dsn
from tiermem.memory.store.postgres.vectors import HNSW_EF_SEARCH
from tiermem.memory.store.records import Passage

DIM = 16


def _unit(seed: int, n: int) -> np.ndarray:
    v = np.random.default_rng(seed).standard_normal((n, DIM)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def _insert(backend: PostgresBackend, vectors: np.ndarray, word: str = "vector") -> None:
    with backend.transaction():
        backend.passages.insert_many([
            Passage(text=f"{word} {i}", created_at=1.0, embedding=v, embedder_id="test")
            for i, v in enumerate(vectors)])


def _agent_indexes(dsn: str, agent: int) -> list[str]:
    with psycopg.connect(dsn) as conn:
        return [r[0] for r in conn.execute(
            "SELECT indexdef FROM pg_indexes WHERE schemaname = 'tiermem' "
            "AND indexdef LIKE '%%USING hnsw%%' AND indexdef LIKE %s",
            (f"%agent_id = {agent})%",)).fetchall()]


def _hnsw_scans(dsn: str) -> int:
    with psycopg.connect(dsn) as conn:
        row = conn.execute("SELECT coalesce(sum(idx_scan), 0) FROM pg_stat_user_indexes "
                           "WHERE indexrelname LIKE '%%hnsw%%'").fetchone()
        return int(row[0]) if row else 0


def test_dsn_settings_are_taken_out_of_both_dsn_forms() -> None:
    assert split_dsn("postgresql://u@/db?host=/run/pg&vector_index=hnsw&ef_search=200") == (
        "postgresql://u@/db?host=/run/pg", StoreOptions(hnsw=True, ef_search=200))
    assert split_dsn("postgresql://u@h/db?vector_index=hnsw") == (
        "postgresql://u@h/db", StoreOptions(hnsw=True))
    assert split_dsn("host=/run/pg dbname=db vector_index=hnsw ef_search=40") == (
        "host=/run/pg dbname=db", StoreOptions(hnsw=True, ef_search=40))
    assert split_dsn("host='/run/a b' vector_index = 'exact'") == (
        "host='/run/a b'", StoreOptions())
    assert split_dsn("postgresql://u@h/db") == ("postgresql://u@h/db", StoreOptions())


@pytest.mark.parametrize("dsn, named", [
    ("postgresql://u@h/db?vector_index=fast", "vector_index='fast'"),
    ("host=h vector_index=ivf", "vector_index='ivf'"),
    ("postgresql://u@h/db?vector_index=hnsw&ef_search=0", "ef_search='0'"),
    ("host=h ef_search=lots", "ef_search='lots'"),
])
def test_a_bad_dsn_setting_is_refused_saying_what_is_allowed(dsn: str, named: str) -> None:
    with pytest.raises(InvalidInputError) as caught:
        split_dsn(dsn)
    assert named in str(caught.value) and ("hnsw" in str(caught.value)
                                           or "whole number" in str(caught.value))


def test_vector_index_hnsw_in_the_dsn_searches_the_agents_own_index(postgres_dsn: str) -> None:
    big_vectors, small_vectors = _unit(1, 300), _unit(2, 5)
    big = PostgresBackend(f"{postgres_dsn} vector_index=hnsw ef_search=40", "big")
    small = PostgresBackend(f"{postgres_dsn} vector_index=hnsw", "small")
    try:
        _insert(big, big_vectors)
        _insert(small, small_vectors)
        big_index, small_index = big.vectors("passages", DIM), small.vectors("passages", DIM)
        assert (big_index.hnsw, big_index.ef_search) == (True, 40)
        assert (small_index.hnsw, small_index.ef_search) == (True, HNSW_EF_SEARCH)
        assert len(_agent_indexes(postgres_dsn, big.agent_id)) == 1
        assert len(_agent_indexes(postgres_dsn, small.agent_id)) == 1
        before = _hnsw_scans(postgres_dsn)
        # Beside a larger agent, the small one still gets its whole top k, in exact order.
        query = _unit(3, 1)[0]
        ids, sims = small_index.search(query, 10)
        exact = small_vectors @ query
        assert ids.tolist() == (np.argsort(-exact) + 1).tolist()
        assert sims == pytest.approx(np.sort(exact)[::-1], abs=1e-5)
        small.conn.execute("SELECT pg_stat_force_next_flush()")
        small.conn.execute("SELECT 1")
        assert _hnsw_scans(postgres_dsn) > before
    finally:
        big.close()
        small.close()


def test_exact_search_stays_the_default_and_an_argument_wins_over_the_dsn(
        postgres_dsn: str) -> None:
    with HierarchicalMemory(store=postgres_dsn, agent="plain") as memory:
        assert memory.store.hnsw is False  # type: ignore[attr-defined]
    uri_options = PostgresBackend(f"{postgres_dsn} vector_index=hnsw", "overridden", hnsw=False)
    try:
        assert uri_options.vectors("passages", DIM).hnsw is False
    finally:
        uri_options.close()
    assert _agent_indexes(postgres_dsn, uri_options.agent_id) == []


def test_hierarchical_memory_takes_the_setting_from_the_dsn(postgres_dsn: str) -> None:
    with HierarchicalMemory(store=f"{postgres_dsn} vector_index=hnsw", agent="ann") as memory:
        memory.archival_insert("the lighthouse keeper paints the railings")
        assert memory.store.hnsw is True  # type: ignore[attr-defined]
        assert memory.archival_search("lighthouse").total == 1
        agent = memory.store.agent_id  # type: ignore[attr-defined]
    assert any("tiermem.passages" in d for d in _agent_indexes(postgres_dsn, agent))
