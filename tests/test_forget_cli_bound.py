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


def test_the_chat_says_how_to_forget_more_than_its_bound(tmp_path: Path) -> None:
    # The chat's /forget printed only "nothing forgotten (ambiguous: 6 stored texts equal
    # the request, over max_delete_count 5)", and has no --max-delete-count to give.
    import io

    from rich.console import Console

    from tiermem.agent.loop import Agent
    from tiermem.agent.offline import OfflinePolicy
    from tiermem.agent.repl import ChatRepl

    with HierarchicalMemory(tmp_path, embedder=HashingEmbedder()) as m:
        for _ in range(6):
            m.archival_insert(SAID)
        out = io.StringIO()
        repl = ChatRepl(Agent(m, OfflinePolicy()), console=Console(file=out, width=400),
                        errors=io.StringIO())
        assert repl.run_piped([f"/forget {SAID}"]) == 1
        lines = out.getvalue().splitlines()
        assert lines[-2] == ("nothing forgotten (ambiguous: 6 stored texts equal the request, "
                             "over max_delete_count 5)")
        assert lines[-1] == (
            "a request that targets more items than max_delete_count (default 5) forgets "
            "nothing: set a larger one (up to 1000) under forget: in the policy file and start "
            "the chat again, or run tiermem forget --max-delete-count N with the text")
