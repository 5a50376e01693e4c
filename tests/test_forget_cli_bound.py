"""``tiermem forget`` of a request that targets more items than --max-delete-count."""

from __future__ import annotations

from pathlib import Path

import pytest

from tiermem.cli import run
from tiermem.memory import HashingEmbedder, HierarchicalMemory

SAID = "hello there"
# Every item an exact request targets equals it: it said "or a request that targets fewer",
# which no request is.
HINT = ("tiermem: a request that targets more items than --max-delete-count forgets nothing: "
        "give --max-delete-count 3 or more (up to 1000)\n")


def _equal_texts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, copies: int) -> Path:
    """Agent ada's home under TIERMEM_HOME, holding ``copies`` passages of SAID."""
    monkeypatch.setenv("TIERMEM_HOME", str(tmp_path))
    home = tmp_path / "agents" / "ada"
    with HierarchicalMemory(home, embedder=HashingEmbedder()) as m:
        for _ in range(copies):
            m.archival_insert(SAID)
    return home


def test_a_request_over_the_bound_says_how_to_forget_them_all(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # It printed only "ambiguous (3 stored texts equal the request, over max_delete_count
    # 2 ...)", with no next step.
    home = _equal_texts(tmp_path, monkeypatch, 3)
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


def test_the_json_of_a_request_over_the_bound_says_what_to_do_next(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # --json printed the outcome alone: the step the screen names was in neither stream.
    import json

    _equal_texts(tmp_path, monkeypatch, 3)
    assert run(["forget", "--agent", "ada", "--max-delete-count", "2", "--json", SAID]) == 1
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    assert out["advice"] == HINT.removeprefix("tiermem: ").rstrip("\n")
    assert (out["outcome"], out["audit_id"], out["already_forgotten_by"]) == ("ambiguous", 1,
                                                                            None)
    assert captured.err == ""
    assert run(["forget", "--agent", "ada", "--json", "nothing stored says this"]) == 1
    assert "/recall TEXT" in json.loads(capsys.readouterr().out)["advice"]
    assert run(["forget", "--agent", "ada", "--max-delete-count", "3", "--json", SAID]) == 0
    assert json.loads(capsys.readouterr().out)["advice"] is None


def test_a_judge_that_chose_too_many_is_still_told_of_a_narrower_request() -> None:
    from tiermem.agent.forget_command import over_the_bound_note

    assert over_the_bound_note(5, "the judge chose 7 items, over max_delete_count 5").endswith(
        "give --max-delete-count 7 or more (up to 1000), or a request that targets fewer")


def test_a_request_of_the_most_a_count_may_be_is_told_that_count_alone(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # 1000 equal texts were told to give --max-delete-count "1000 or more (up to 1000)".
    _equal_texts(tmp_path, monkeypatch, 1000)
    assert run(["forget", "--agent", "ada", SAID]) == 1
    assert capsys.readouterr().err == (
        "tiermem: a request that targets more items than --max-delete-count forgets nothing: "
        "give --max-delete-count 1000\n")
    assert run(["forget", "--agent", "ada", "--max-delete-count", "1000", SAID]) == 0


PARTS = ("tiermem: one request forgets at most 1000 items, and this one targets more: forget "
         "them in parts, with --mode top_k_llm (a model picks among the closest matches each "
         "time)\n")


@pytest.mark.parametrize("bound", [1000, None])
def test_a_request_over_the_most_a_count_may_be_is_not_told_to_raise_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        bound: int | None) -> None:
    # At --max-delete-count 1000 it was told to give --max-delete-count at least that many
    # (up to 1000), which no count can be; then to make narrower requests, which no request
    # can be: over 1000 items only an exact request targets (a model picks at most
    # candidate_k, 50), and each of them equals it. At the default bound, 5, it was told
    # the same first step.
    _equal_texts(tmp_path, monkeypatch, 1001)
    given = [] if bound is None else ["--max-delete-count", str(bound)]
    assert run(["forget", "--agent", "ada", *given, SAID]) == 1
    captured = capsys.readouterr()
    assert (f"1001 stored texts equal the request, over max_delete_count {bound or 5}"
            in captured.out)
    assert captured.err == PARTS


def _chat_forget(home: Path, copies: int, bound: int | None) -> list[str]:
    import io

    from rich.console import Console

    from tiermem.agent.loop import Agent
    from tiermem.agent.offline import OfflinePolicy
    from tiermem.agent.repl import ChatRepl
    from tiermem.memory.ops.forget_config import ForgetConfig

    forget = None if bound is None else ForgetConfig(max_delete_count=bound)
    with HierarchicalMemory(home, embedder=HashingEmbedder(), forget=forget) as m:
        for _ in range(copies):
            m.archival_insert(SAID)
        out = io.StringIO()
        repl = ChatRepl(Agent(m, OfflinePolicy()), console=Console(file=out, width=400),
                        errors=io.StringIO())
        assert repl.run_piped([f"/forget {SAID}"]) == 1
        return out.getvalue().splitlines()


CHAT_HINT = ("a request that targets more items than max_delete_count forgets nothing: set it "
             "to 6 or more (up to 1000) under forget: in the policy file and start the chat "
             "again, or leave the chat and run tiermem forget --max-delete-count 6 with the "
             "text")


@pytest.mark.parametrize(("bound", "shown"), [(None, 5), (3, 3)])
def test_the_chat_says_how_to_forget_more_than_its_bound(
        tmp_path: Path, bound: int | None, shown: int) -> None:
    # The chat's /forget printed only "nothing forgotten (ambiguous: 6 stored texts equal
    # the request, over max_delete_count 5)", and has no --max-delete-count to give; its
    # hint then said "(default 5)" under a policy file of another bound, and to run
    # tiermem forget, which cannot open the agent while the chat holds it.
    lines = _chat_forget(tmp_path, 6, bound)
    assert lines[-2] == ("nothing forgotten (ambiguous: 6 stored texts equal the request, "
                         f"over max_delete_count {shown})")
    assert lines[-1] == CHAT_HINT


def test_the_chat_names_the_most_a_count_may_be_alone(tmp_path: Path) -> None:
    # It said "set it to 1000 or more (up to 1000)".
    lines = _chat_forget(tmp_path, 1000, None)
    assert lines[-1] == CHAT_HINT.replace("6 or more (up to 1000)", "1000").replace(
        "--max-delete-count 6", "--max-delete-count 1000")


@pytest.mark.parametrize("bound", [1000, None])
def test_the_chat_at_the_most_a_count_may_be_is_not_told_to_raise_it(
        tmp_path: Path, bound: int | None) -> None:
    # Under max_delete_count 1000 it was told to set a larger one (up to 1000), and under
    # the default 5, with 1001 equal texts, the same, which no bound lets one request forget.
    lines = _chat_forget(tmp_path, 1001, bound)
    assert lines[-2].endswith(f"over max_delete_count {bound or 5})")
    assert lines[-1] == (
        "one request forgets at most 1000 items, and this one targets more: forget them in "
        "parts, with mode: top_k_llm under forget: in the policy file and a model (it picks "
        "among the closest matches each time)")
