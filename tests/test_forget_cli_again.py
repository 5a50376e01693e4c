"""`tiermem forget`, or the chat's /forget, run again with the text of a request that forgot
something: it says the text is forgotten already, not that nothing matches, and exits 1 as
nothing more went."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from rich.console import Console

from tiermem.agent.loop import Agent
from tiermem.agent.offline import OfflinePolicy
from tiermem.agent.repl import ChatRepl
from tiermem.cli import run
from tiermem.memory import HashingEmbedder, HierarchicalMemory

FACT = "User's locker code is 5678"
FORGET = ["forget", "--agent", "ada", "--embedder", "hashing"]


@pytest.fixture
def agent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("TIERMEM_HOME", str(tmp_path))
    home = tmp_path / "agents" / "ada"
    with HierarchicalMemory(home, embedder=HashingEmbedder()) as m:
        m.add_fact(FACT)
        m.add_fact("User's gym is FitCo")
    return home


def test_a_second_run_says_already_forgotten(agent: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    assert run([*FORGET, FACT]) == 0
    capsys.readouterr()
    assert run([*FORGET, FACT]) == 1
    out, err = capsys.readouterr()
    assert out.startswith("nothing forgotten: already forgotten (request #1 ")
    assert "audit #2" in out
    assert "/recall" not in err  # no hint to look up a wording that was right


def test_a_text_never_forgotten_is_still_unmatched(agent: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    assert run([*FORGET, FACT]) == 0
    capsys.readouterr()
    assert run([*FORGET, "User's gym is Ironworks"]) == 1
    out, err = capsys.readouterr()
    assert out.startswith("nothing forgotten: unmatched (")
    assert "/recall" in err


def test_json_names_the_request_that_forgot_it(agent: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    assert run([*FORGET, "--json", FACT]) == 0
    assert json.loads(capsys.readouterr().out)["already_forgotten_by"] is None
    assert run([*FORGET, "--json", FACT]) == 1
    again = json.loads(capsys.readouterr().out)
    assert (again["outcome"], again["already_forgotten_by"]) == ("unmatched", 1)
    assert run([*FORGET, "--json", "User's gym is Ironworks"]) == 1
    assert json.loads(capsys.readouterr().out)["already_forgotten_by"] is None


def _chat(commands: list[str]) -> tuple[int, list[str]]:
    """The chat's exit status for ``commands`` piped in, and the lines it printed."""
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        m.add_fact(FACT)
        out = io.StringIO()
        repl = ChatRepl(Agent(m, OfflinePolicy()), console=Console(file=out, width=400),
                        errors=io.StringIO())
        status = repl.run_piped(commands)
    return status, out.getvalue().splitlines()


def test_the_chat_says_already_forgotten_too() -> None:
    status, lines = _chat([f"/forget {FACT}", f"/forget {FACT}",
                           "/forget User's gym is Ironworks"])
    assert status == 1  # nothing more went the second time: still a failed command
    assert lines[1] == ("nothing forgotten: already forgotten (request #1 with this text "
                        "forgot what it matched, and nothing stored matches it now)")
    assert lines[2].startswith("nothing forgotten (unmatched: ")  # never forgotten
    assert lines[3].startswith("/recall TEXT")


@pytest.mark.parametrize(("first", "again"), [
    (FACT, FACT + "."),
    (FACT + ".", FACT),
    (FACT, "user's locker code is 5678!"),
    (FACT + "!", FACT.upper() + "..."),
])
def test_the_same_request_with_other_punctuation_or_case_is_already_forgotten(
        agent: Path, capsys: pytest.CaptureFixture[str], first: str, again: str) -> None:
    assert run([*FORGET, first]) == 0
    capsys.readouterr()
    assert run([*FORGET, "--json", again]) == 1
    assert json.loads(capsys.readouterr().out)["already_forgotten_by"] == 1


@pytest.mark.parametrize(("again", "done_by"), [
    ("user's dog is Rex", 1), ("USER'S DOG IS REX", None), ("user's dog is rex", None)])
def test_a_request_of_mixed_case_is_known_again_in_its_first_letter_only(
        agent: Path, capsys: pytest.CaptureFixture[str], again: str, done_by: int | None
) -> None:
    # As the README says: the audit holds a hash of "User's dog is Rex" as typed, and no
    # form of the text typed again in one case recovers its capital R.
    with HierarchicalMemory(agent, embedder=HashingEmbedder()) as m:
        m.add_fact("User's dog is Rex")
    assert run([*FORGET, "User's dog is Rex"]) == 0
    capsys.readouterr()
    assert run([*FORGET, "--json", again]) == 1
    assert json.loads(capsys.readouterr().out)["already_forgotten_by"] == done_by


def test_the_chat_sees_a_full_stop_added_as_the_same_request() -> None:
    _, lines = _chat([f"/forget {FACT}", f"/forget {FACT}. "])
    assert lines[1].startswith("nothing forgotten: already forgotten (request #1 ")


@pytest.mark.parametrize(("first", "again"), [
    ("user's locker code is abcd", "User's locker code is ABCD"),
    ("User's locker code is abcd", "User's locker code is abcd?"),
])
def test_a_text_exact_matching_tells_apart_is_no_repeat(
        agent: Path, capsys: pytest.CaptureFixture[str], first: str, again: str) -> None:
    # Under this policy the two are different texts: the first forgot nothing the second
    # names, so the second is unmatched, with the hint to look up how it was stored.
    (agent / "policy.yaml").write_text("forget:\n  mode: exact\n  exact: {case_sensitive: "
                                       "true, ignore_final_punctuation: false}\n")
    with HierarchicalMemory(agent, embedder=HashingEmbedder()) as m:
        m.add_fact(first)
    assert run([*FORGET, first]) == 0
    capsys.readouterr()
    assert run([*FORGET, "--json", again]) == 1
    report = json.loads(capsys.readouterr().out)
    assert (report["outcome"], report["already_forgotten_by"]) == ("unmatched", None)
