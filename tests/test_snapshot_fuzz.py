"""Fuzzing restore: random edits of a valid snapshot either restore into a sound memory
or raise SnapshotError, and a refused restore writes nothing."""

from __future__ import annotations

import copy
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from snapshot_helpers import check_restored, leftovers, small_snapshot

from tiermem.memory.embed.embeddings import HashingEmbedder
from tiermem.memory.errors import SnapshotError
from tiermem.memory.hierarchy import HierarchicalMemory
from tiermem.memory.validation import MAX_TEXT_CHARS

Path_ = tuple[Any, ...]

SPECIAL_TEXT = ["", " ", "\x00", "\ud800", "core", "archival",
                "durable", "short-lived", "user", "tool", "NaN", "1e999", "[", "{}", "[1]",
                '["ops"]', "AAAA", "'); DROP TABLE facts; --", "id) SELECT sqlite_version() --",
                "tiermem-snapshot/1", "tiermem-snapshot/2", "hashing-uni-bi-256", "lru"]
SPECIAL_NUMBERS = [0, -1, 1, 2, 3, 2**31, 2**63 - 1, 2**63, -(2**63) - 1, 10**9, 0.5,
                   float("nan"), float("inf"), -float("inf"), 1e308]
leaves = st.one_of(
    st.none(), st.booleans(), st.sampled_from(SPECIAL_NUMBERS), st.sampled_from(SPECIAL_TEXT),
    st.builds(lambda: "x" * (MAX_TEXT_CHARS + 1)),  # one over the size limit
    st.integers(-(2**70), 2**70), st.floats(), st.text(max_size=12),
)
json_values = st.recursive(
    leaves,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
        st.one_of(st.text(max_size=8), st.sampled_from(SPECIAL_TEXT[4:])), inner, max_size=3),
    max_leaves=5,
)


def _paths(value: Any, prefix: Path_ = ()) -> list[Path_]:
    """Every place in a JSON value, the value itself first."""
    out = [prefix]
    if isinstance(value, dict):
        for key, child in value.items():
            out += _paths(child, (*prefix, key))
    elif isinstance(value, list):
        for i, child in enumerate(value):
            out += _paths(child, (*prefix, i))
    return out


def _at(value: Any, path: Path_) -> Any:
    for part in path:
        value = value[part]
    return value


@st.composite
def mutated_snapshots(draw: st.DrawFn) -> dict[str, Any]:
    """A valid snapshot with one to three edits: of any value anywhere, or of rows
    (a duplicated row, a field copied from another row) to break invariants across rows."""
    snap = small_snapshot()
    tables = snap["tables"]
    for _ in range(draw(st.integers(1, 3))):
        op = draw(st.sampled_from(["set", "set", "delete", "add", "nudge", "duplicate_row",
                                   "copy_field"]))
        if op in ("duplicate_row", "copy_field"):
            rows = tables.get(draw(st.sampled_from(sorted(tables))))
            if not isinstance(rows, list) or not rows or not isinstance(rows[0], dict):
                continue
            source = rows[draw(st.integers(0, len(rows) - 1))]
            if op == "duplicate_row":
                row = copy.deepcopy(source)
                key = "tick" if "tick" in row and "id" not in row else "id"
                if draw(st.booleans()) and isinstance(row.get(key), int):
                    row[key] = max(r.get(key, 0) for r in rows if isinstance(r, dict)
                                   and isinstance(r.get(key), int)) + 1  # a new row, same data
                rows.append(row)
            else:
                target = rows[draw(st.integers(0, len(rows) - 1))]
                if isinstance(target, dict) and source:
                    field = draw(st.sampled_from(sorted(source)))
                    target[field] = copy.deepcopy(source[field])
            continue
        path = draw(st.sampled_from(_paths(snap)[1:]))
        parent, key = _at(snap, path[:-1]), path[-1]
        target = parent[key]
        if op == "set":
            parent[key] = draw(json_values)
        elif op == "delete":
            del parent[key]
        elif op == "add" and isinstance(target, dict):
            target[draw(st.sampled_from(SPECIAL_TEXT) | st.text(max_size=8))] = draw(json_values)
        elif op == "nudge" and isinstance(target, int | float) and not isinstance(target, bool):
            parent[key] = target + draw(st.sampled_from([-1, 1, 2, -2**40]))
    return snap


def _check_round_trip(m: HierarchicalMemory) -> None:
    check_restored(m)
    again = m.snapshot()
    with HierarchicalMemory.restore(again, embedder=HashingEmbedder(256)) as copy_:
        assert copy_.snapshot() == again


@settings(max_examples=150, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(snap=mutated_snapshots(), on_disk=st.booleans())
def test_a_mutated_snapshot_restores_soundly_or_raises_snapshot_error(
    snap: dict[str, Any], on_disk: bool
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        try:
            restored = HierarchicalMemory.restore(snap, home if on_disk else None,
                                                  embedder=HashingEmbedder(256))
        except SnapshotError as exc:
            assert exc.fields, str(exc)
            assert not (home / "memory.sqlite3").exists()
            assert not home.exists() or leftovers(home) == []
            return
        with restored:
            _check_round_trip(restored)


def test_a_snapshot_blocking_one_norm_twice_is_refused_by_name() -> None:
    snap = small_snapshot()
    rows = snap["tables"]["forgotten_norms"]
    assert rows, "the small snapshot blocks a forgotten norm"
    rows.append({**rows[0], "id": max(r["id"] for r in rows) + 1})
    with HierarchicalMemory(embedder=HashingEmbedder()) as memory, pytest.raises(
            SnapshotError, match=r"forgotten_norms\[1\]\.norm_hash"):
        memory.restore(snap)
