"""`tiermem index` builds and saves the search graph a large agent needs, so the next
session loads it instead of building it, and says so when there is nothing to build."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from test_cli import tiermem

import tiermem.cli as cli
from tests.memory_helpers import make_memory
from tiermem.memory.store.sqlite import graph_upkeep
from tiermem.memory.store.sqlite import vectors as vectors_module
from tiermem.memory.store.sqlite.graph import Graph

#: The graph threshold these tests lower HNSW_MIN_ROWS to (200,000 in use).
GRAPH_FROM = 100


@pytest.fixture
def builds(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The size of each graph built from every vector (not loaded from its file)."""
    sizes: list[int] = []
    build = Graph.build

    def counted(ids: np.ndarray, *args: object, **kwargs: object) -> Graph | None:
        sizes.append(len(ids))
        return build(ids, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Graph, "build", staticmethod(counted))
    return sizes


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A tiermem home whose agent ``a`` holds 120 passages and a few messages."""
    monkeypatch.setattr(vectors_module, "HNSW_MIN_ROWS", GRAPH_FROM)
    monkeypatch.setenv("TIERMEM_HOME", str(tmp_path / "root"))
    with make_memory(tmp_path / "root" / "agents" / "a") as memory:
        for i in range(120):
            memory.archival_insert(f"maintenance note {i}: check valve {i % 7} before start")
        memory.process_interaction("Remind me to grease the pump.", "Noted.")
    return tmp_path / "root"


def test_index_builds_and_saves_the_graph_and_the_next_session_loads_it(
        root: Path, builds: list[int], capsys: pytest.CaptureFixture[str]) -> None:
    home = root / "agents" / "a"
    assert not (home / "archival.hnsw").exists()
    assert cli.main(["index", "--agent", "a"]) == 0
    out, err = capsys.readouterr()
    assert builds == [120] and (home / "archival.hnsw").exists()
    assert "archival: 120 vectors; built the search graph in" in out
    assert f"recall: 2 vectors, fewer than {GRAPH_FROM}: searched exactly" in out
    assert "archival: linking 120 vectors" in err
    assert "archival: 120 of 120 vectors linked" in err

    with make_memory(home) as memory:
        index = memory.archival.vectors
        assert index.graph is not None and len(index.graph) == 120
        ids, _ = index.search(memory.embedder.embed_query("valve before start"), 5)
        assert len(ids) == 5 and index.answered_by == "hnsw"
        assert index.graph_upkeep.graphs_built == 0
    assert builds == [120]  # loaded, not built again

    assert cli.main(["index", "--agent", "a", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [(g["tier"], g["outcome"]) for g in report["graphs"]] == [
        ("archival", "saved already"), ("recall", "not needed")]
    assert builds == [120]


def test_a_graph_that_cannot_be_built_exits_1_saying_why(
        root: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    def no_memory(*args: object, **kwargs: object) -> None:
        raise MemoryError("cannot allocate the graph")

    monkeypatch.setattr(Graph, "build", staticmethod(no_memory))
    assert cli.main(["index", "--agent", "a"]) == 1
    out = capsys.readouterr().out
    assert ("could not be built (out of memory (cannot allocate the graph); the build needs "
            "about 0.0 GB free)") in out
    assert "until `tiermem index --agent a` builds it" in out
    assert not (root / "agents" / "a" / "archival.hnsw").exists()


def test_no_memory_for_the_copy_of_the_vectors_exits_1_saying_how_much_is_needed(
        root: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    # The build copies every vector first, on the calling thread: at 1M rows, the likeliest
    # place to run out of memory.
    class Uncopyable:
        def copy(self) -> np.ndarray:
            raise MemoryError()

    monkeypatch.setattr(vectors_module.FaissIndex, "float_vectors", lambda self: Uncopyable())
    monkeypatch.setattr(graph_upkeep, "graph_build_bytes", lambda rows, dim: 3_400_000_000)
    assert cli.main(["index", "--agent", "a"]) == 1
    out = capsys.readouterr().out
    assert ("archival: 120 vectors; the search graph could not be built (out of memory "
            "copying the vectors; the build needs about 3.4 GB free)") in out


def test_below_the_threshold_there_is_nothing_to_build(tmp_path: Path) -> None:
    with make_memory(tmp_path / "agents" / "a") as memory:
        memory.archival_insert("a single passage")
    done = tiermem(tmp_path, "index", "--agent", "a")
    assert done.returncode == 0, done.stderr
    assert "archival: 1 vectors, fewer than 200,000: searched exactly, no graph needed" in (
        done.stdout)
    assert not (tmp_path / "agents" / "a" / "archival.hnsw").exists()
    # On PostgreSQL: tests/test_postgres_engine.py (the agent must exist there too).


@pytest.mark.parametrize(("args", "said"), [
    (("--agent", "typo"), "no agent named 'typo'"),
    (("--agent", "a", "--store", "/tmp/elsewhere"), "--store must be a PostgreSQL DSN"),
    (("--agent", "../a"), "invalid agent name"),
])
def test_bad_input_exits_2_saying_what_to_do(tmp_path: Path, args: tuple[str, ...],
                                             said: str) -> None:
    with make_memory(tmp_path / "agents" / "a"):
        pass
    done = tiermem(tmp_path, "index", *args)
    assert done.returncode == 2 and said in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "agents" / "typo").exists()
