"""The diagnostics report for people, and the evaluation tables: labels, scales, numbers."""

from __future__ import annotations

import re

import pytest
from rich.console import Console

from tiermem.evals.report import format_column, render
from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.ops.report import (
    figure_rows,
    history_series,
    nice_ticks,
    print_text,
    render_html,
)


@pytest.fixture
def report_and_series() -> tuple[dict, dict]:
    with HierarchicalMemory(None, core_limit=3, core_limit_unit="facts",
                            embedder=HashingEmbedder()) as memory:
        for i in range(40):
            memory.process_interaction(f"I ran deploy number {i} today", "ok")
        memory.add_fact("User is allergic to peanuts")
        return memory.diagnostics(), history_series(memory)


def test_the_retirements_figure_is_labelled_as_the_facts_held_retired() -> None:
    # Two retire events of one fact, the first taken back by stating it again: the figure
    # counts the one fact held as retired, and its label must not read as the events.
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        for _ in range(2):
            memory.add_fact("the deploy freeze is on", "durable")
            memory.replace_in_core("the deploy freeze is on", "")
        report = memory.diagnostics()
        retire_events = [e for e in memory.store.history.events_since(0) if e.kind == "retire"]
    assert len(retire_events) == 2
    assert ("evictions", "facts held as retired (no longer true)", "1") in figure_rows(report)


def test_the_table_shows_labels_not_keys(report_and_series: tuple[dict, dict]) -> None:
    report, _ = report_and_series
    console = Console(record=True, width=200)
    print_text(console, report)
    text = console.export_text()
    assert not re.search(r"\b[a-z]+_[a-z_]+\b", text.replace("freq_recency_durable", "")), text
    assert "facts in core" in text and "growth per interaction" in text
    labels = [label for _, label, _ in figure_rows(report)]
    assert "per_interaction" not in labels and "hit rate" in labels


def test_figures_use_one_format_per_kind(report_and_series: tuple[dict, dict]) -> None:
    report, _ = report_and_series
    shown = {(section, label): value for section, label, value in figure_rows(report)}
    assert shown[("core", "fill")] == f"{100 * report['core']['fill']:.1f}%"
    assert shown[("core", "facts in core")] == str(report["core"]["facts"])
    assert re.fullmatch(r"\d+\.\d\d", shown[("evictions", "per interaction")])
    assert shown[("archival", "hit rate")] == "n/a"  # never searched


def test_the_table_shows_a_text_the_user_chose_as_written() -> None:
    embedder = HashingEmbedder()
    embedder.id = "models\\[0-9]\\"  # named by its user: a custom embedder's id
    with HierarchicalMemory(None, embedder=embedder) as memory:
        memory.recall.append("user", "a message stored without its vector", 1, embed=False)
        report = memory.diagnostics()
    console = Console(record=True, width=400)
    print_text(console, report)
    [flag] = [line for line in console.export_text().splitlines() if "red flag" in line]
    assert "no vector from the current embedder (models\\[0-9]\\), so" in flag
    assert flag.endswith("(passages 0, messages 1, embedder models\\[0-9]\\)"), flag


@pytest.mark.parametrize(("top", "expected"), [
    (134, [0, 50, 100, 150]), (9, [0, 2, 4, 6, 8, 10]), (2, [0, 1, 2]), (0, [0, 1]),
    (1000, [0, 200, 400, 600, 800, 1000]),
])
def test_axis_ticks_are_round_numbers(top: float, expected: list[float]) -> None:
    assert nice_ticks(top) == expected


def _y_labels(svg: str) -> list[str]:
    return re.findall(r'text-anchor="end">([0-9.]+)</text>', svg)


def test_series_ten_times_apart_get_their_own_scale(
        report_and_series: tuple[dict, dict]) -> None:
    report, series = report_and_series
    series = {**series, "recall": [10.0 * i for i in range(1, 41)],
              "archival": [float(i // 5) for i in range(40)]}  # 400 vs 7
    page = render_html(report, series, "t")
    charts = page.split("<svg")[1:]
    assert len(charts) == 4
    archival = next(c for c in charts if "archival size (passages)" in c)
    assert _y_labels(archival) == ["0", "2", "4", "6", "8"]
    recall = next(c for c in charts if "recall size (messages)" in c)
    assert _y_labels(recall)[-1] == "400"
    # The charts label more than their ends, on both axes.
    for chart in (archival, recall):
        assert len(_y_labels(chart)) >= 3
        assert len(re.findall(r'text-anchor="middle">', chart)) >= 3


def test_series_of_one_scale_share_a_chart(report_and_series: tuple[dict, dict]) -> None:
    report, series = report_and_series
    series = {**series, "recall": [2.0 * i for i in range(40)],
              "archival": [float(i) for i in range(40)]}
    page = render_html(report, series, "t")
    assert page.count("<svg") == 3 and "recall and archival size" in page


def test_an_empty_history_renders(report_and_series: tuple[dict, dict]) -> None:
    report, _ = report_and_series
    empty = {k: [] for k in ("tick", "durable", "short-lived", "archival", "recall",
                             "evictions")}
    assert render_html(report, empty, "t").count("<svg") == 3


def test_an_evaluation_column_has_one_number_format() -> None:
    assert format_column([90.8, 139.0, None]) == ["90.8", "139.0", "-"]
    assert format_column([0.5, 1.0]) == ["0.500", "1.000"]
    assert format_column([12, 7]) == ["12", "7"]
    report = {"mode": "qa", "conversations": ["1"], "questions_total": 2, "configs": [
        {"name": "a", "overall": {"f1": 0.41, "tokens_per_question": 90.8},
         "timings": {}, "by_category": {}},
        {"name": "b", "overall": {"f1": 0.5, "tokens_per_question": 139.0},
         "timings": {}, "by_category": {}},
    ]}
    console = Console(record=True, width=200)
    render(console, report, ["f1", "tokens_per_question"], "f1", [])
    text = console.export_text()
    assert "90.8 " in text and "139.0" in text and "0.500" in text
    assert "90.800" not in text


def test_an_evaluation_shows_the_ids_its_data_and_its_user_chose_as_written() -> None:
    report = {"mode": "qa", "conversations": ["conv\\[0-9]\\"], "questions_total": 1,
              "configs": [{"name": "hybrid", "description": "fused", "overall": {"f1": 0.5},
                           "timings": {}, "by_category": {"1": {"f1": 0.5, "questions": 1}},
                           "embedder": "models\\[0-9]\\"}]}
    console = Console(record=True, width=200)
    render(console, report, ["f1"], "f1", [])
    lines = [line.strip() for line in console.export_text().splitlines()]
    assert "conv\\[0-9]\\" in lines  # the title, folded to the table's width
    assert lines[-1] == "hybrid: fused; embedder models\\[0-9]\\"
