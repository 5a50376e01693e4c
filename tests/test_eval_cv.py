"""``eval locomo --cv``: fusion weights are never tuned on the conversation they report."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from test_eval_locomo import CONVERSATION

import tiermem.evals.cv as cv_module
from tiermem.evals.configs import resolve_configs
from tiermem.evals.cv import GRID, cross_validate, run_cv, weights_label
from tiermem.evals.locomo import load_conversations
from tiermem.memory import HashingEmbedder
from tiermem.memory.search.fusion import FusionWeights

KS = (1, 10)


def _records(conv: str, hits: list[float]) -> list[dict[str, Any]]:
    return [{"qid": f"{conv}:{i}", "category": 2, "recall@1": h, "recall@10": h, "rr": h}
            for i, h in enumerate(hits)]


def test_each_conversation_is_reported_with_the_weights_best_on_the_others() -> None:
    # Hits out of 4 questions of each conversation under each weighting.
    hits = {"a": {"0.3:0.7": 4, "0.6:0.4": 0, "0.9:0.1": 0},
            "b": {"0.3:0.7": 1, "0.6:0.4": 0, "0.9:0.1": 4},
            "c": {"0.3:0.7": 1, "0.6:0.4": 4, "0.9:0.1": 2}}
    per_conv = {conv: {label: _records(conv, [1.0] * n + [0.0] * (4 - n))
                       for label, n in by_label.items()} for conv, by_label in hits.items()}
    result = cross_validate(per_conv, KS, FusionWeights())
    for split in result["splits"]:
        assert split["held_out"] not in split["tuned_on"]
        assert sorted([split["held_out"], *split["tuned_on"]]) == ["a", "b", "c"]
    chosen = {s["held_out"]: s["weights"] for s in result["splits"]}
    # b and c together prefer 0.9:0.1 (6 hits), a and c 0.3:0.7 (5), a and b 0.3:0.7 (5)
    assert chosen == {"a": "0.9:0.1", "b": "0.3:0.7", "c": "0.3:0.7"}
    # a scores 0 of 4, b and c 1 each: below what any conversation gets from its own best
    assert result["overall"]["recall@10"] == pytest.approx(2 / 12, abs=1e-4)
    assert result["default_weights"] == "0.6:0.4"
    assert result["default"]["recall@10"] == pytest.approx(4 / 12, abs=1e-4)


def test_each_split_gives_its_held_out_conversation_at_the_default_weights() -> None:
    # Only the pooled default was reported: a split's own default figures were in log lines.
    hits = {"a": {"0.3:0.7": 4, "0.6:0.4": 1}, "b": {"0.3:0.7": 0, "0.6:0.4": 3}}
    per_conv = {conv: {label: _records(conv, [1.0] * n + [0.0] * (4 - n))
                       for label, n in by_label.items()} for conv, by_label in hits.items()}
    result = cross_validate(per_conv, KS, FusionWeights())
    splits = {s["held_out"]: s for s in result["splits"]}
    assert splits["a"]["default"]["recall@10"] == pytest.approx(1 / 4, abs=1e-4)
    assert splits["b"]["default"]["recall@10"] == pytest.approx(3 / 4, abs=1e-4)
    assert splits["a"]["default"]["questions"] == 4
    assert splits["b"]["default_by_category"]["2"]["recall@10"] == pytest.approx(3 / 4,
                                                                                 abs=1e-4)
    # beside the tuned figures, which are unchanged
    assert splits["a"]["weights"] == "0.6:0.4" and splits["b"]["weights"] == "0.3:0.7"
    assert splits["b"]["reported"]["recall@10"] == 0.0
    assert result["default"]["recall@10"] == pytest.approx(4 / 8, abs=1e-4)


def test_the_table_sets_each_split_beside_its_default_weights() -> None:
    # A split's row showed its figures at the tuned weights alone.
    import io

    from rich.console import Console

    from tiermem.evals.cv import render_cv

    hits = {"a": {"0.3:0.7": 4, "0.6:0.4": 1}, "b": {"0.3:0.7": 0, "0.6:0.4": 3}}
    per_conv = {conv: {label: _records(conv, [1.0] * n + [0.0] * (4 - n))
                       for label, n in by_label.items()} for conv, by_label in hits.items()}
    report = {"conversations": ["a", "b"], "tune_metric": "recall@10",
              "configs": [{"name": "hybrid", **cross_validate(per_conv, KS, FusionWeights())}]}
    out = io.StringIO()
    render_cv(Console(file=out, width=200), report)
    rows = {line.split("│")[2].strip(): [cell.strip() for cell in line.split("│")[3:-1]]
            for line in out.getvalue().splitlines() if line.count("│") > 6}
    # held out a: 0.6:0.4 chosen (on b) scores 1 of 4; at the default 0.6:0.4, 1 of 4;
    # held out b: 0.3:0.7 chosen (on a) scores 0 of 4, at the default 3 of 4
    assert rows["held out a (tuned on b: 0.6:0.4)"][1:] == ["0.250", "0.250", "4", "0.250"]
    assert rows["held out b (tuned on a: 0.3:0.7)"][1:] == ["0.000", "0.000", "4", "0.750"]
    assert rows["dev, weights 0.6:0.4"][-1] == ""


def test_the_json_report_holds_each_split_at_the_default_weights(tmp_path: Path) -> None:
    from tiermem.cli import run

    data = tmp_path / "data"
    data.mkdir()
    for conv_id in ("7", "8"):
        (data / f"{conv_id}.json").write_text(json.dumps(CONVERSATION))
    out = tmp_path / "cv.json"
    assert run(["eval", "locomo", "--data", str(data), "--cv", "--config", "hybrid",
                "--embedder", "hashing", "--json", str(out)]) == 0
    (hybrid,) = json.loads(out.read_text())["configs"]
    assert hybrid["default"]["questions"] == 6
    for split in hybrid["splits"]:
        assert {"held_out", "tuned_on", "weights", "tuned", "reported",
                "reported_by_category", "default", "default_by_category"} <= set(split)
        assert split["default"]["questions"] == 3
        assert split["default"]["recall@10"] <= 1.0
        assert set(split["default_by_category"]) == set(split["reported_by_category"])


def test_cross_validation_needs_two_conversations() -> None:
    with pytest.raises(ValueError, match="at least two conversations"):
        cross_validate({"a": {"0.6:0.4": _records("a", [1.0])}}, KS, FusionWeights())


def test_run_cv_records_its_splits_on_real_memories(tmp_path: Path) -> None:
    for conv_id in ("7", "8"):
        (tmp_path / f"{conv_id}.json").write_text(json.dumps(CONVERSATION))
    conversations = load_conversations([tmp_path])
    grid = (FusionWeights(0.3, 0.7), FusionWeights(0.9, 0.1))
    report = run_cv(conversations, resolve_configs(["hybrid"]), HashingEmbedder(), KS,
                    grid=grid)
    (hybrid,) = report["configs"]
    # the engine default is added to the grid, so dev figures come from the same run
    assert report["grid"] == ["0.3:0.7", "0.9:0.1"]
    assert [(s["held_out"], s["tuned_on"]) for s in hybrid["splits"]] == [
        ("7", ["8"]), ("8", ["7"])]
    assert all(s["weights"] in ("0.3:0.7", "0.9:0.1", "0.6:0.4") for s in hybrid["splits"])
    assert hybrid["overall"]["questions"] == 6 and hybrid["default"]["questions"] == 6
    assert hybrid["default_weights"] == weights_label(FusionWeights())
    assert len(GRID) >= 5


def test_a_configuration_of_one_list_keeps_its_weights(tmp_path: Path) -> None:
    # Tuned, "bm25" would mix in the dense list and be reported as cross-validated BM25.
    for conv_id in ("7", "8"):
        (tmp_path / f"{conv_id}.json").write_text(json.dumps(CONVERSATION))
    conversations = load_conversations([tmp_path])
    report = run_cv(conversations, resolve_configs(["bm25", "dense"]), HashingEmbedder(), KS,
                    grid=(FusionWeights(0.3, 0.7), FusionWeights(0.9, 0.1)))
    bm25, dense = report["configs"]
    assert {s["weights"] for s in bm25["splits"]} == {"1:0"}
    assert {s["weights"] for s in dense["splits"]} == {"0:1"}


def test_tuning_varies_the_weights_only(tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    # An RRF configuration tuned over the plain grid would be reported as a weighted one.
    for conv_id in ("7", "8"):
        (tmp_path / f"{conv_id}.json").write_text(json.dumps(CONVERSATION))
    conversations = load_conversations([tmp_path])
    seen: list[FusionWeights] = []
    real = cv_module.grid_records

    def recording(conv: Any, config: Any, embedder: Any, ks: Any, limit: Any,
                  grid: Any, progress: Any = None) -> Any:
        seen.extend(grid)
        return real(conv, config, embedder, ks, limit, grid, progress)

    monkeypatch.setattr(cv_module, "grid_records", recording)
    run_cv(conversations, resolve_configs(["hybrid-rrf60"]), HashingEmbedder(), KS,
           grid=(FusionWeights(0.3, 0.7), FusionWeights(0.9, 0.1)))
    assert seen and all(w.method == "rrf" for w in seen)



def test_one_conversation_is_refused_before_it_is_ingested(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    # It was refused only after the lone conversation was ingested and scored under every
    # weighting of every configuration: minutes of work, then exit 2.
    from tiermem.cli import run

    for conv_id in ("7", "8"):
        (tmp_path / f"{conv_id}.json").write_text(json.dumps(CONVERSATION))
    ingested: list[str] = []
    grid_records = cv_module.grid_records

    def recorded(conv: Any, *args: Any, **kwargs: Any) -> Any:
        ingested.append(conv.id)
        return grid_records(conv, *args, **kwargs)

    monkeypatch.setattr(cv_module, "grid_records", recorded)
    assert run(["eval", "locomo", "--data", str(tmp_path), "--conversations", "7", "--cv",
                "--embedder", "hashing"]) == 2
    assert ingested == []
    error = " ".join(capsys.readouterr().err.split())
    assert ("--cv needs at least two conversations (one to tune on, one to report), and "
            "--conversations chose only 7: name two or more with --conversations, or drop "
            "--cv") in error


def test_data_of_one_conversation_is_told_to_give_more_not_to_name_more(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # It advised naming two with --conversations, which data of one cannot do.
    from tiermem.cli import run

    path = tmp_path / "7.json"
    path.write_text(json.dumps(CONVERSATION))
    assert run(["eval", "locomo", "--data", str(path), "--cv", "--embedder", "hashing"]) == 2
    error = " ".join(capsys.readouterr().err.split())
    assert ("and the data holds only 7: give --data two or more (a folder of them, or the "
            "released locomo10.json), or drop --cv") in error
    assert "--conversations" not in error
