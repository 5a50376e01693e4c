"""``eval locomo`` into a file: a line per part as it runs, and what Ctrl-C leaves kept."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fake_openai import FakeOpenAIServer, FakeResponse
from locomo_helpers import two_turns, write_conversation
from test_cli import tiermem

import tiermem.evals.qa as qa
import tiermem.evals.retrieval as retrieval
from tiermem.cli import main, run


@pytest.fixture
def data_file(tmp_path: Path) -> Path:
    return write_conversation(tmp_path / "locomo" / "7.json", two_turns())


def _retrieval(data_file: Path, *extra: str) -> list[str]:
    return ["eval", "locomo", "--data", str(data_file), "--config", "bm25", "dense",
            "--embedder", "hashing", "--k", "1,5", *extra]


def test_output_to_a_file_gets_a_line_per_part_with_its_figures(
        data_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = tmp_path / "r.json"
    assert run(_retrieval(data_file, "--json", str(report))) == 0
    lines = [line for line in capsys.readouterr().err.splitlines() if line.startswith("[")]
    assert lines[0] == "[1/2] bm25 on conversation 7: started"
    assert lines[1].startswith("[1/2] bm25 on conversation 7: recall@1 ")
    assert ", mrr " in lines[1] and lines[1].endswith("(2 questions)")
    assert lines[2:4] == ["[2/2] dense on conversation 7: started", lines[3]]
    assert run(_retrieval(data_file, "--json", str(report), "--resume")) == 0
    kept = [line for line in capsys.readouterr().err.splitlines() if line.startswith("[")]
    assert kept == [lines[1].replace(": recall", " (kept from the report): recall"),
                    lines[3].replace(": recall", " (kept from the report): recall")]


def test_a_cross_validated_run_into_a_file_gets_a_line_per_conversation(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    first = write_conversation(tmp_path / "locomo" / "7.json", two_turns())
    second = write_conversation(tmp_path / "locomo" / "8.json", two_turns())
    assert run(["eval", "locomo", "--data", str(first), str(second), "--config", "hybrid",
                "--embedder", "hashing", "--cv"]) == 0
    lines = [line for line in capsys.readouterr().err.splitlines() if line.startswith("[")]
    assert [line.split(": ")[0] for line in lines] == [
        "[1/2] hybrid (0.6:0.4) on conversation 7", "[1/2] hybrid (0.6:0.4) on conversation 7",
        "[2/2] hybrid (0.6:0.4) on conversation 8", "[2/2] hybrid (0.6:0.4) on conversation 8"]
    assert lines[0].endswith(": started") and ", recall@10 " in lines[1]
    assert lines[3].endswith("(2 questions)")


@pytest.mark.parametrize("json_given", [True, False])
def test_ctrl_c_says_what_the_report_keeps_and_how_to_go_on(
        data_file: Path, tmp_path: Path, json_given: bool, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    real = retrieval.run_unit

    def second_interrupted(conv: Any, config: Any, *args: Any, **kwargs: Any) -> Any:
        if config.name == "dense":
            raise KeyboardInterrupt
        return real(conv, config, *args, **kwargs)

    monkeypatch.setattr(retrieval, "run_unit", second_interrupted)
    report = tmp_path / "r.json"
    assert main(_retrieval(data_file, *(["--json", str(report)] if json_given else []))) == 130
    captured = capsys.readouterr()
    assert captured.out == ""  # nothing of the progress bar, not even a line break
    error = " ".join(captured.err.split())
    if json_given:
        assert (f"interrupted: the report at {report} keeps 1 finished part; the same command "
                "with --resume continues it") in error
    else:
        assert "interrupted: nothing was kept (with --json PATH each finished part is kept" \
            in error


def test_ctrl_c_mid_qa_part_counts_its_answers(
        data_file: Path, tmp_path: Path, server: FakeOpenAIServer,
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    server.responder = lambda body: FakeResponse(
        message={"role": "assistant", "content": "Rex"})
    real = qa.ask
    asked: list[str] = []

    def second_interrupted(*args: Any) -> Any:
        asked.append("once")
        if len(asked) == 2:
            raise KeyboardInterrupt
        return real(*args)

    monkeypatch.setattr(qa, "ask", second_interrupted)
    report = tmp_path / "qa.json"
    assert main(["eval", "locomo", "--data", str(data_file), "--mode", "qa", "--config", "bm25",
                 "--embedder", "hashing", "--model", server.model, "--base-url",
                 server.base_url, "--context-window", "8192", "--json", str(report)]) == 130
    captured = capsys.readouterr()
    assert captured.out == ""
    error = " ".join(captured.err.split())
    assert "[1/3] bm25 on conversation 7: started" in error
    assert (f"the report at {report} keeps 0 finished parts, and 1 answer of parts not "
            "finished; the same command with --resume continues it") in error


def test_a_run_that_cannot_start_prints_nothing_on_standard_output(
        data_file: Path, tmp_path: Path) -> None:
    # QA with no model configured stops before any work: the error goes to standard
    # error, and standard output (the tables, or the report with --json -) stays empty.
    for extra in ((), ("--json", "-")):
        done = tiermem(tmp_path / "home", "eval", "locomo", "--data", str(data_file),
                       "--mode", "qa", "--embedder", "hashing", *extra)
        assert done.returncode == 2, done.stderr
        assert done.stdout == "", extra
        assert done.stderr.startswith("tiermem: QA mode and --rewrite need a model")


def test_one_question_of_one_conversation_is_counted_as_one(
        data_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The line read "(1 questions)" and the table's title "1 questions, conversations 7".
    assert run(_retrieval(data_file, "--limit", "1", "--json", str(tmp_path / "r.json"))) == 0
    captured = capsys.readouterr()
    lines = [line for line in captured.err.splitlines() if line.startswith("[")]
    assert lines[1].endswith("(1 question)")
    assert "LoCoMo retrieval: 1 question, conversation 7" in " ".join(captured.out.split())
