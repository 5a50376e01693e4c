"""`eval locomo --core-limit`: core's capacity for every configuration, recorded in the report,
and named (with a value that fits) when a QA prompt does not fit the model's window."""

from __future__ import annotations

import dataclasses
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
from fake_openai import FakeOpenAIServer, FakeResponse
from rich.console import Console

import tiermem.cli as cli
from tiermem.cli import build_parser
from tiermem.evals.configs import CONFIGS
from tiermem.evals.locomo_command import run_command

PLACES = ("Lisbon", "Oslo", "Kyoto", "Lima", "Cairo", "Quito", "Hanoi", "Perth", "Tunis", "Riga")
# Every turn is a fact for core: 80 of them fill about 1,300 tokens of it.
CONVERSATION: dict[str, Any] = {
    "speaker_a": "Ann", "speaker_b": "Bob",
    "session_1_date_time": "1:56 pm on 8 May, 2023",
    "session_1": [{"speaker": ("Ann", "Bob")[i % 2], "dia_id": f"D1:{i + 1}",
                   "text": f"I visited {PLACES[i % 10]} in {1950 + i} and I loved the food there."}
                  for i in range(80)],
    "qa": [{"question": "Where did Ann go in 1950?", "answer": "Lisbon", "evidence": ["D1:1"],
            "category": 4},
           {"question": "Where did Bob go in 1951?", "answer": "Oslo", "evidence": ["D1:2"],
            "category": 4}],
}
# The system prompt and tools fit in it, but not with that core as well.
WINDOW = "3600"


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    path = tmp_path / "locomo"
    path.mkdir()
    (path / "9.json").write_text(json.dumps(CONVERSATION))
    return path


def _qa(data_dir: Path, server: FakeOpenAIServer, *extra: str) -> list[str]:
    return ["eval", "locomo", "--data", str(data_dir), "--mode", "qa", "--config", "hierarchy",
            "--embedder", "hashing", "--no-baselines", "--model", server.model, "--base-url",
            server.base_url, "--context-window", WINDOW, *extra]


def test_a_core_too_large_for_the_window_names_evals_options_and_a_limit_that_fits(
        data_dir: Path, server: FakeOpenAIServer, capsys: pytest.CaptureFixture[str]) -> None:
    server.responder = lambda body: FakeResponse(
        message={"role": "assistant", "content": "Lisbon"})
    assert cli.main(_qa(data_dir, server)) == 1  # a failed turn, as in chat
    error = " ".join(capsys.readouterr().err.split())
    assert "the context needs" in error and "send a shorter message" not in error
    assert "--context-window N" in error and "--max-tokens N or TIERMEM_MAX_TOKENS" in error
    found = re.search(r"--core-limit N \(at most (\d+): core holds (\d+) tokens and the "
                      r"context is (\d+) over\)", error)
    assert found is not None, error
    fits, held, over = map(int, found.groups())
    assert fits == held - over > 0
    assert not server.requests  # stopped before asking the model

    assert cli.main(_qa(data_dir, server, "--core-limit", str(fits), "--limit", "2")) == 0
    assert "LoCoMo qa" in capsys.readouterr().out
    assert len(server.requests) == 2


def test_a_window_too_small_for_the_instructions_does_not_send_the_user_to_the_core_limit(
        data_dir: Path, server: FakeOpenAIServer, capsys: pytest.CaptureFixture[str]) -> None:
    args = _qa(data_dir, server, "--core-limit", "50")
    args[args.index("--context-window") + 1] = "600"  # less than the system prompt and tools
    assert cli.main(args) == 1
    error = " ".join(capsys.readouterr().err.split())
    assert "--context-window N" in error and "--max-tokens N or TIERMEM_MAX_TOKENS" in error
    assert "a lower --core-limit would not do (core holds" in error
    assert "--core-limit N" not in error
    assert not server.requests


def test_chat_keeps_its_own_advice() -> None:
    from tiermem.agent.context import OVERFLOW_ADVICE, ContextOverflowError

    error = ContextOverflowError("the context needs 10 tokens but 5", 10, 5)
    assert str(error) == f"the context needs 10 tokens but 5; {OVERFLOW_ADVICE}"
    assert (error.needed, error.budget) == (10, 5)


def test_the_core_limit_is_recorded_only_when_given() -> None:
    hierarchy = CONFIGS["hierarchy"]
    assert "core_limit" not in hierarchy.as_dict()  # reports written before it stay resumable
    assert dataclasses.replace(hierarchy, core_limit=300).as_dict() == {
        **hierarchy.as_dict(), "core_limit": 300}


def _retrieval(data_dir: Path, report: Path, *extra: str) -> dict[str, Any]:
    args = build_parser().parse_args(
        ["eval", "locomo", "--data", str(data_dir), "--config", "hierarchy", "--embedder",
         "hashing", "--json", str(report), "--resume", *extra])
    assert run_command(args, Console(file=io.StringIO(), width=200)) == 0
    loaded: dict[str, Any] = json.loads(report.read_text())
    return loaded


def test_a_resumed_report_never_mixes_core_limits(data_dir: Path, tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    plain = _retrieval(data_dir, report)
    assert "core_limit" not in plain["configs"][0]["config"]
    assert _retrieval(data_dir, report) == plain  # resumed: the finished part is reused

    limited = _retrieval(data_dir, report, "--core-limit", "100")
    assert limited["configs"][0]["config"]["core_limit"] == 100
    unit = limited["units"]["hierarchy"]["9"]
    assert unit["fingerprint"]["config"]["core_limit"] == 100
    assert unit != plain["units"]["hierarchy"]["9"]  # run again, not reused


def test_the_core_limit_must_be_positive(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        build_parser().parse_args(["eval", "locomo", "--core-limit", "0"])
    assert exit_.value.code == 2 and "--core-limit" in capsys.readouterr().err


@pytest.mark.parametrize("command", [["chat", "--offline"], ["eval", "locomo"]])
def test_a_core_limit_past_the_most_names_the_option(
        command: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("TIERMEM_HOME", str(tmp_path))
    with pytest.raises(SystemExit) as exit_:
        cli.run([*command, "--core-limit", "99999999999"])
    assert exit_.value.code == 2
    last = capsys.readouterr().err.splitlines()[-1]
    assert last.endswith("error: argument --core-limit: core holds at most 1,000,000,000 "
                         "tokens or facts, not 99,999,999,999"), last
    assert not (tmp_path / "agents").exists()  # refused before any agent was made
    assert build_parser().parse_args([*command, "--core-limit", "1000000000"]).core_limit \
        == 1_000_000_000
