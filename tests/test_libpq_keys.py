"""The libpq keys tiermem knows without psycopg are the ones the installed libpq reads."""

from __future__ import annotations

import pytest

from tiermem.memory.store import location_text as opening


def test_the_built_in_libpq_keys_are_those_psycopg_lists() -> None:
    pq = pytest.importorskip("psycopg.pq")
    listed = {option.keyword.decode() for option in pq.Conninfo.get_defaults()}
    built_in = set(opening._LIBPQ_KEYS.split())
    # A key the installed libpq reads but the list lacks would be hidden as a password's
    # words on an install without psycopg: add it to the list.
    assert listed <= built_in, sorted(listed - built_in)
    if pq.version() // 10000 == 18:  # the libpq the list was read from
        assert built_in == listed, sorted(built_in - listed)
    # With psycopg the keys come from libpq itself, with tiermem's own settings.
    opening._known_keys.cache_clear()
    try:
        assert opening._known_keys() == frozenset(listed | {"vector_index", "ef_search"})
    finally:
        opening._known_keys.cache_clear()
