"""``tiermem forget`` of a request that targets more items than --max-delete-count."""

from __future__ import annotations

from pathlib import Path

import pytest

from tiermem.cli import run
from tiermem.memory import HashingEmbedder, HierarchicalMemory

SAID = "hello there"
HINT = ("tiermem: a request that targets more items than --max-delete-count forgets nothing: "
        "give --max-delete-count at least that many (up to 1000), or a request that targets "
        "fewer\n")


def test_a_request_over_the_bound_says_how_to_forget_them_all(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # It printed only "ambiguous (3 stored texts equal the request, over max_delete_count
    # 2 ...)", with no next step.
    monkeypatch.setenv("TIERMEM_HOME", str(tmp_path))
    home = tmp_path / "agents" / "ada"
    with HierarchicalMemory(home, embedder=HashingEmbedder()) as m:
        for _ in range(3):
            m.archival_insert(SAID)
    assert run(["forget", "--agent", "ada", "--max-delete-count", "2", SAID]) == 1
    captured = capsys.readouterr()
    assert captured.out.startswith("nothing forgotten: ambiguous (3 stored texts equal the "
                                   "request, over max_delete_count 2; audit #1)")
    assert captured.err == HINT
    assert run(["forget", "--agent", "ada", "--max-delete-count", "3", SAID]) == 0
    assert capsys.readouterr().err == ""
    with HierarchicalMemory(home, embedder=HashingEmbedder(), read_only=True) as m:
        assert [r.outcome for r in m.forget_requests()] == ["ambiguous", "matched"]
        assert m.archival_search(SAID).hits == []


def test_a_request_over_the_most_a_count_may_be_is_not_told_to_raise_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # At --max-delete-count 1000 it was told to give --max-delete-count at least that many
    # (up to 1000), which no count can be.
    monkeypatch.setenv("TIERMEM_HOME", str(tmp_path))
    with HierarchicalMemory(tmp_path / "agents" / "ada", embedder=HashingEmbedder()) as m:
        for _ in range(1001):
            m.archival_insert(SAID)
    assert run(["forget", "--agent", "ada", "--max-delete-count", "1000", SAID]) == 1
    captured = capsys.readouterr()
    assert "1001 stored texts equal the request, over max_delete_count 1000" in captured.out
    assert captured.err == (
        "tiermem: one request forgets at most 1000 items, and this one targets more: forget "
        "them in parts, with narrower requests or with --mode top_k_llm (a model picks among "
        "the closest matches each time)\n")
