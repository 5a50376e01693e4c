"""The performance harness (`tiermem benchmark --perf`) at toy sizes: structure, not speed.

No timing is asserted here; the figures of a real run are in the README.
"""

from __future__ import annotations

import gc
import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import tiermem.cli as cli
import tiermem.memory.store.sqlite.vectors as vector_index
from tiermem.bench import perf, perf_data, perf_method, perf_stores

SECTIONS = ("meta", "archival", "dense_floor", "recall", "eviction", "step", "cold_start",
            "targets")


def numbers(value: Any, path: str = "") -> Iterator[tuple[str, float]]:
    """Every numeric leaf (booleans are verdicts, not figures) with its path."""
    if isinstance(value, bool):
        return
    if isinstance(value, (int, float)):
        yield path, float(value)
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from numbers(item, f"{path}.{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from numbers(item, f"{path}[{index}]")


def test_perf_command_writes_a_complete_report(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    # As on a machine without the bench extra: the chroma side is skipped, with a reason.
    monkeypatch.setattr(perf_stores, "chroma_available", lambda: False)
    # The 8-bit prefilter from 100 rows on, so the exact-search path of large stores runs.
    monkeypatch.setattr(vector_index, "PREFILTER_MIN_ROWS", 100)
    # The HNSW graph from 4,000 vectors on, so the recall store with vectors uses it.
    monkeypatch.setattr(vector_index, "HNSW_MIN_ROWS", 4000)
    out = tmp_path / "perf.json"
    code = cli.main(["benchmark", "--perf", "--sizes", "500", "--quick", "--recall-dense",
                     "--json", str(out)])
    assert code == 0
    report = json.loads(out.read_text())
    assert set(SECTIONS) <= set(report)
    assert report["meta"]["sizes"] == [500]
    assert report["meta"]["recall_sizes"] == [5000]
    assert report["meta"]["core_sizes"] == [5, 50, 500]
    archival = report["archival"][0]
    assert archival["passages"] == 500
    assert "not installed" in archival["chroma"]["skipped"]
    assert {"exact_faiss", "dense_top10", "hybrid_top10", "hybrid_after_write",
            "hybrid_repeated"} <= set(archival["tiermem"])
    assert archival["tiermem"]["prefilter"] is True
    assert archival["tiermem"]["recall_at_10"] == 1.0  # exact: the float scan's top 10
    assert 0 < archival["tiermem"]["hnsw"]["recall_at_10"] <= 1
    assert report["dense_floor"][0]["exact_over_byte_floor"] > 0
    recall = report["recall"][0]
    assert set(recall["search"]) == set(perf_stores.QUERY_CLASSES)
    with_vectors = report["recall_dense"][0]
    assert with_vectors["messages"] == 5000
    assert set(with_vectors["search"]) == set(perf_stores.QUERY_CLASSES)
    graph = with_vectors["hnsw"]
    assert graph["approximate"] is True
    assert 0 < graph["recall_at_10"] <= 1 and 0 < graph["search_page_kept"] <= 1
    assert "approximate" not in report["recall"][0]  # without vectors, nothing to measure
    assert recall["messages"] == 5000
    assert set(report["eviction"]["facts"]) == {"5", "50", "500"}
    assert report["eviction"]["every_add_evicted"] is True
    assert report["step"]["passages"] == 500 and report["step"]["messages"] >= 5000
    # Every timed turn runs the one archival search the scripted model asks for, timed apart.
    assert report["step"]["searches_per_turn"] == 1
    assert any(row[0].startswith("5 of which the archival search") for row in
               perf.table_rows(report))
    assert report["cold_start"]["open_home"]["passages"] == 500
    assert any("HNSW graph" in row[0] for row in perf.table_rows(report))
    names = {t["name"] for t in report["targets"]}
    assert names == set(perf.TARGETS) - {"archival_ingest_vs_chroma",
                                         "archival_search_vs_chroma"}
    for target in report["targets"]:  # each verdict follows from its figure and limit
        measured, limit = target["measured"], perf.TARGETS[target["name"]]
        assert target["limit"] == limit
        expected = measured <= limit if target["kind"] == "at most" else measured >= limit
        assert target["met"] is expected, target
    judged = {t["name"]: t["measured"] for t in report["targets"]}
    assert judged["eviction_ratio"] == report["eviction"]["ratio_p50"]
    assert judged["exact_over_floor"] == report["dense_floor"][-1]["exact_over_floor"]
    figures = dict(numbers(report))
    assert len(figures) > 60
    not_positive = {k: v for k, v in figures.items() if not v > 0 or v != v or v == float("inf")}
    assert not not_positive


def test_perf_rejects_bad_sizes(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["benchmark", "--perf", "--sizes", "ten"]) == 2
    assert "--sizes" in capsys.readouterr().err
    assert cli.main(["benchmark", "--sizes", "500"]) == 2
    assert cli.main(["benchmark", "--recall-dense"]) == 2
    assert "go with --perf" in capsys.readouterr().err


def test_perf_refuses_only_instead_of_ignoring_it(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    runs: list[object] = []
    monkeypatch.setattr(perf, "main", lambda *a, **k: runs.append(a) or 0)
    for only in ("timing", "archival", "no-such-check"):
        assert cli.main(["benchmark", "--perf", "--only", only, "--sizes", "100"]) == 2, only
        err = capsys.readouterr().err
        assert err.startswith("tiermem: --only picks battery checks and --perf runs every "), err
        assert len(err.splitlines()) == 1
    assert runs == []  # refused before any measuring


def test_perf_and_faults_refuse_policy_instead_of_ignoring_it(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from tiermem.bench import faults

    runs: list[object] = []
    monkeypatch.setattr(perf, "main", lambda *a, **k: runs.append(a) or 0)
    monkeypatch.setattr(faults, "main", lambda *a, **k: runs.append(a) or 0)
    for run in ("--perf", "--faults"):
        for policy in ("lru", "freq_recency_durable", "no-such-policy"):
            assert cli.main(["benchmark", run, "--policy", policy, "--quick"]) == 2, policy
            err = capsys.readouterr().err
            assert err == (f"tiermem: --policy picks the eviction policy the battery tests; "
                           f"{run} runs with the default one: drop --policy, or drop {run} to "
                           f"run the battery with that policy\n"), err
    assert runs == []  # refused before any work
    # Without --policy both runs go ahead.
    assert cli.main(["benchmark", "--perf", "--quick"]) == 0
    assert cli.main(["benchmark", "--faults", "--quick"]) == 0
    assert len(runs) == 2


def test_timed_operations_run_with_the_heap_made_before_them_frozen() -> None:
    made_before = [[i] for i in range(1000)]
    frozen: list[int] = []
    samples = perf_method.alternate({"a": lambda i: frozen.append(gc.get_freeze_count()),
                                     "b": lambda i: None}, 3)
    assert [len(s) for s in samples.values()] == [3, 3]
    assert len(frozen) == 3 and min(frozen) >= len(made_before)
    assert gc.get_freeze_count() == 0  # collected as usual after


def test_bag_embedder_is_deterministic_and_text_correlated() -> None:
    bag = perf_data.BagEmbedder()
    indices = perf_data.zipf_indices(50, 25, seed=1)
    texts = perf_data.texts_of(indices)
    bulk = bag.of_indices(indices)
    one_by_one = bag.embed_documents(texts)
    assert np.allclose(bulk, one_by_one, atol=1e-5)
    assert np.allclose(np.linalg.norm(bulk, axis=1), 1.0, atol=1e-5)
    # A text is closer to a query made of its own words than unrelated texts are.
    query = bag.embed_query(" ".join(texts[0].split()[:5]))
    sims = bulk @ query
    assert int(np.argmax(sims)) == 0


def test_chroma_side_runs_with_precomputed_vectors(tmp_path: Path) -> None:
    pytest.importorskip("chromadb", reason="chromadb is the bench extra: pip install -e '.[bench]'")
    opts = perf_method.PerfOptions(sizes=(300,), quick=True)
    bag = perf_data.BagEmbedder()
    corpus = perf_data.make_corpus(300, bag, seed=3)
    result = perf_stores.measure_archival(300, corpus, bag, opts, tmp_path)
    chroma = result["chroma"]
    assert "skipped" not in chroma
    assert 0.5 < chroma["recall_at_10"] <= 1  # ids map between the stores
    assert set(result["ratios"]) == {"ingest", "dense_p50", "hybrid_p50"}
    bad = {k: v for k, v in numbers(result) if not v > 0}
    assert not bad


def test_the_reason_chroma_was_skipped_keeps_its_brackets() -> None:
    from rich.console import Console

    console = Console(file=io.StringIO(), width=200)
    perf.print_skipped(console, {"archival": [{"passages": 500, "chroma": {
        "skipped": perf_stores.CHROMA_MISSING}}]})
    printed = console.file.getvalue()  # type: ignore[attr-defined]
    assert "install the bench extra (pip install -e '.[bench]')" in printed


def test_quick_without_sizes_is_a_smoke_run_of_smaller_stores() -> None:
    assert perf_method.parse_sizes(None, quick=True) == perf_method.QUICK_SIZES
    assert max(perf_method.QUICK_SIZES) < max(perf_method.DEFAULT_SIZES)
    assert perf_method.parse_sizes(None) == perf_method.DEFAULT_SIZES
    assert perf_method.parse_sizes("2000,500", quick=True) == (500, 2000)  # given sizes win
