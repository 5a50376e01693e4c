"""``eval locomo --resume``: a report is continued only by a run that asks what it asked."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fake_openai import FakeOpenAIServer, FakeResponse
from locomo_helpers import two_turns, write_conversation

from tiermem.cli import run


def _three_turns() -> dict[str, Any]:
    conversation = two_turns()
    conversation["session_1"].append(
        {"speaker": "Ann", "dia_id": "D1:3", "text": "My beagle loves the park."})
    conversation["qa"].append({"question": "Where does the beagle like to go?",
                               "answer": "the park", "evidence": ["D1:3"], "category": 4})
    return conversation


@pytest.fixture
def data_file(tmp_path: Path) -> Path:
    return write_conversation(tmp_path / "locomo" / "7.json", _three_turns())


@pytest.fixture
def answering(server: FakeOpenAIServer) -> FakeOpenAIServer:
    server.responder = lambda body: FakeResponse(
        message={"role": "assistant", "content": "Rex"})
    return server


def _qa(data_file: Path, server: FakeOpenAIServer, report: Path, *extra: str) -> list[str]:
    return ["eval", "locomo", "--data", str(data_file), "--mode", "qa", "--config", "bm25",
            "--embedder", "hashing", "--model", server.model, "--base-url", server.base_url,
            "--context-window", "8192", "--json", str(report), *extra]


def _cut_short(report: Path, unit: str = "bm25", keep: int = 1) -> None:
    """The report as a run killed after ``keep`` answers of ``unit`` leaves it."""
    saved = json.loads(report.read_text())
    stored = saved["units"][unit]["7"]
    stored["done"] = False
    del stored["questions"][keep:]
    report.write_text(json.dumps(saved))


def test_a_resume_with_another_reply_budget_is_refused_and_the_budget_recorded(
        data_file: Path, tmp_path: Path, answering: FakeOpenAIServer,
        capsys: pytest.CaptureFixture[str]) -> None:
    report = tmp_path / "qa.json"
    assert run(_qa(data_file, answering, report, "--max-tokens", "100")) == 0
    saved = json.loads(report.read_text())
    assert (saved["max_tokens"], saved["context_window"], saved["text_tool_calls"]) == (
        100, 8192, "auto")
    for name in ("bm25", "no-memory", "full-context"):
        assert saved["units"][name]["7"]["fingerprint"]["max_tokens"] == 100
    _cut_short(report)
    before = report.read_text()
    capsys.readouterr()
    asked = len(answering.requests)
    for other in (["--max-tokens", "200"], ["--max-tokens", "100", "--text-tool-calls", "off"]):
        assert run(_qa(data_file, answering, report, "--resume", *other)) == 2
        error = " ".join(capsys.readouterr().err.split())
        assert "was run with" in error and "drop --resume to replace it" in error
        assert ("--max-tokens 100 (this run: 200)" in error if "200" in other
                else "--text-tool-calls auto (this run: off)" in error)
        assert report.read_text() == before and len(answering.requests) == asked
    assert run(_qa(data_file, answering, report, "--resume", "--max-tokens", "100")) == 0
    # only the two answers the cut left out were asked (the baselines were finished)
    assert all(r["max_tokens"] == 100 for r in answering.requests[asked:])
    assert len(answering.requests) == asked + 2


def test_a_report_from_before_the_settings_were_recorded_resumes_only_with_the_defaults(
        data_file: Path, tmp_path: Path, answering: FakeOpenAIServer,
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    report = tmp_path / "qa.json"
    args = _qa(data_file, answering, report, "--no-baselines")
    at = args.index("--context-window")
    del args[at:at + 2]  # the window the server gives, as a run of the defaults has it
    assert run(args) == 0
    saved = json.loads(report.read_text())
    for key in ("context_window", "max_tokens", "text_tool_calls", "encoding"):
        del saved[key]
        del saved["units"]["bm25"]["7"]["fingerprint"][key]
    report.write_text(json.dumps(saved))
    _cut_short(report)
    before = report.read_text()
    monkeypatch.setenv("TIERMEM_MAX_TOKENS", "200")
    capsys.readouterr()
    assert run([*args, "--resume"]) == 2
    error = " ".join(capsys.readouterr().err.split())
    assert ("--max-tokens at its default (the report predates its recording; this run: 200)"
            in error)
    assert report.read_text() == before
    monkeypatch.delenv("TIERMEM_MAX_TOKENS")
    asked = len(answering.requests)
    assert run([*args, "--resume"]) == 0
    assert len(answering.requests) == asked + 2  # the first answer was kept
    resumed = json.loads(report.read_text())
    assert resumed["max_tokens"] == answering.requests[-1]["max_tokens"]
    assert len(resumed["units"]["bm25"]["7"]["questions"]) == 3


def _retrieval(data_file: Path, report: Path, *extra: str) -> list[str]:
    return ["eval", "locomo", "--data", str(data_file), "--config", "bm25", "dense",
            "--embedder", "hashing", "--json", str(report), *extra]


@pytest.mark.parametrize("change", ["a question's text", "another question", "evidence",
                                    "a record cut", "a finished unit emptied",
                                    "a record of another question"])
def test_a_unit_of_other_questions_is_refused_before_any_work(
        data_file: Path, tmp_path: Path, change: str,
        capsys: pytest.CaptureFixture[str]) -> None:
    report = tmp_path / "r.json"
    assert run(_retrieval(data_file, report)) == 0
    saved = json.loads(report.read_text())
    del saved["units"]["bm25"]["7"]  # left to run: it must not run, and rewrite the report
    records = saved["units"]["dense"]["7"]["questions"]
    data = json.loads(data_file.read_text())
    if change == "a question's text":
        data["qa"][1]["question"] = "Which instrument did Ann start learning?"
    elif change == "another question":
        data["qa"].append({"question": "Who has a beagle?", "answer": "Ann",
                           "evidence": ["D1:3"], "category": 4})
    elif change == "evidence":
        data["qa"][0]["evidence"] = ["D1:3"]
    elif change == "a record cut":
        del records[1:]
    elif change == "a finished unit emptied":
        records.clear()
    else:
        records[0]["qid"] = "7:9"
    data_file.write_text(json.dumps(data))
    report.write_text(json.dumps(saved))
    before = report.read_text()
    capsys.readouterr()
    assert run(_retrieval(data_file, report, "--resume")) == 2
    error = " ".join(capsys.readouterr().err.split())
    assert "dense on conversation 7" in error, error
    assert "give --json another PATH, or drop --resume to replace it" in error
    if change in ("a question's text", "another question", "evidence"):
        assert "asked of other questions than --data holds now (the data changed" in error
    else:
        assert "is damaged or stale (" + {
            "a record cut": "it is marked finished with 1 of the 3 questions",
            "a finished unit emptied": "it is marked finished with 0 of the 3 questions",
            "a record of another question": "it holds question 7:9, which this run does not",
        }[change] in error
    assert report.read_text() == before


def test_a_report_from_before_the_questions_were_fingerprinted_is_checked_by_its_qids(
        data_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = tmp_path / "r.json"
    assert run(_retrieval(data_file, report)) == 0
    saved = json.loads(report.read_text())
    for by_conv in saved["units"].values():
        del by_conv["7"]["fingerprint"]["questions_digest"]
    report.write_text(json.dumps(saved))
    assert run(_retrieval(data_file, report, "--resume")) == 0
    assert json.loads(report.read_text())["units"] == saved["units"]  # reused, not run again
    del saved["units"]["dense"]["7"]["questions"][2]
    report.write_text(json.dumps(saved))
    assert run(_retrieval(data_file, report, "--resume")) == 2
    assert "marked finished with 2 of the 3 questions" in capsys.readouterr().err


def test_a_unit_of_one_question_emptied_counts_it_as_one(
        data_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # It read "marked finished with 0 of the 1 questions this run asks".
    report = tmp_path / "r.json"
    assert run(_retrieval(data_file, report, "--limit", "1")) == 0
    saved = json.loads(report.read_text())
    saved["units"]["dense"]["7"]["questions"].clear()
    report.write_text(json.dumps(saved))
    capsys.readouterr()
    assert run(_retrieval(data_file, report, "--limit", "1", "--resume")) == 2
    assert "marked finished with 0 of the 1 question this run asks" in " ".join(
        capsys.readouterr().err.split())


def test_a_qa_unit_holding_an_answer_to_another_question_is_refused(
        data_file: Path, tmp_path: Path, answering: FakeOpenAIServer,
        capsys: pytest.CaptureFixture[str]) -> None:
    report = tmp_path / "qa.json"
    assert run(_qa(data_file, answering, report, "--no-baselines")) == 0
    _cut_short(report, keep=2)
    saved = json.loads(report.read_text())
    saved["units"]["bm25"]["7"]["questions"][1]["qid"] = "7:0"
    report.write_text(json.dumps(saved))
    asked = len(answering.requests)
    capsys.readouterr()
    assert run(_qa(data_file, answering, report, "--no-baselines", "--resume")) == 2
    assert "it holds a question twice" in capsys.readouterr().err
    assert len(answering.requests) == asked


@pytest.mark.parametrize(("units", "named"), [({"bm25": {"7": "x"}}, "bm25 on conversation 7"),
                                              ({"bm25": [1]}, "bm25's parts")])
def test_a_part_that_is_not_an_object_is_refused_as_damaged(
        data_file: Path, tmp_path: Path, units: dict[str, Any], named: str,
        capsys: pytest.CaptureFixture[str]) -> None:
    report = tmp_path / "r.json"
    assert run(_retrieval(data_file, report)) == 0
    saved = json.loads(report.read_text())
    report.write_text(json.dumps({**saved, "units": units}))
    before = report.read_text()
    capsys.readouterr()
    assert run(_retrieval(data_file, report, "--resume")) == 2
    error = " ".join(capsys.readouterr().err.split())
    assert f"the record of {named} in {report} is damaged (not an object)" in error, error
    assert report.read_text() == before


def test_resuming_a_cv_report_says_cv_reports_cannot_be(
        data_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = tmp_path / "cv.json"
    report.write_text(json.dumps({"benchmark": "LoCoMo", "mode": "cv", "configs": []}))
    assert run(_retrieval(data_file, report, "--resume")) == 2
    error = " ".join(capsys.readouterr().err.split())
    assert f"--resume: {report} is a report of --cv, which runs whole and keeps no parts: " \
        "--cv reports cannot be resumed; give --json another PATH" in error


def _judging(server: FakeOpenAIServer, verdict: str) -> None:
    """Answers "Rex"; judges every answer ``verdict``."""
    def respond(body: dict[str, Any]) -> FakeResponse:
        judging = "CORRECT or WRONG" in body["messages"][-1]["content"]
        return FakeResponse(message={"role": "assistant",
                                     "content": verdict if judging else "Rex"})
    server.responder = respond


def _judge_requests(server: FakeOpenAIServer, since: int) -> list[bool]:
    return ["CORRECT or WRONG" in r["messages"][-1]["content"] for r in server.requests[since:]]


def test_a_resume_keeps_answers_and_verdicts_and_judges_only_answers_without_one(
        data_file: Path, tmp_path: Path, server: FakeOpenAIServer) -> None:
    report = tmp_path / "qa.json"
    _judging(server, "CORRECT")
    assert run(_qa(data_file, server, report, "--no-baselines", "--judge")) == 0
    _cut_short(report)
    asked = len(server.requests)
    # Without --judge: the kept answer and its verdict stay; the two missing are answered.
    assert run(_qa(data_file, server, report, "--no-baselines", "--resume")) == 0
    assert _judge_requests(server, asked) == [False, False]
    saved = json.loads(report.read_text())
    records = saved["units"]["bm25"]["7"]["questions"]
    assert [r["judge"] for r in records] == [1.0, None, None]
    # a mean of one verdict in three would read as the row's
    assert saved["configs"][0]["overall"]["judge"] is None
    # With --judge: only the two answers without a verdict are judged; no answer is asked
    # again, and the kept verdict is not asked again (it would now come out WRONG).
    _judging(server, "WRONG")
    asked = len(server.requests)
    assert run(_qa(data_file, server, report, "--no-baselines", "--judge", "--resume")) == 0
    assert _judge_requests(server, asked) == [True, True]
    saved = json.loads(report.read_text())
    records = saved["units"]["bm25"]["7"]["questions"]
    assert [r["judge"] for r in records] == [1.0, 0.0, 0.0]
    assert all(r["judge_tokens"] >= 0 for r in records)
    assert saved["configs"][0]["overall"]["judge"] == pytest.approx(1 / 3, abs=1e-4)
    # Everything judged: a further resume asks nothing.
    asked = len(server.requests)
    assert run(_qa(data_file, server, report, "--no-baselines", "--judge", "--resume")) == 0
    assert len(server.requests) == asked


def test_a_report_whose_parts_recorded_judging_resumes_with_or_without_judge(
        data_file: Path, tmp_path: Path, server: FakeOpenAIServer) -> None:
    """Reports written before verdicts were reused held ``judge`` in each part's
    fingerprint; their answers are kept, not asked again."""
    report = tmp_path / "qa.json"
    _judging(server, "CORRECT")
    assert run(_qa(data_file, server, report, "--judge")) == 0
    saved = json.loads(report.read_text())
    for by_conv in saved["units"].values():
        by_conv["7"]["fingerprint"]["judge"] = True
    report.write_text(json.dumps(saved))
    asked = len(server.requests)
    assert run(_qa(data_file, server, report, "--resume")) == 0
    assert len(server.requests) == asked
    assert all(r["judge"] == 1.0 for by_conv in json.loads(report.read_text())["units"].values()
               for r in by_conv["7"]["questions"])


def _at(args: list[str], option: str, value: str) -> list[str]:
    """``args`` with ``option``'s value replaced."""
    changed = list(args)
    changed[changed.index(option) + 1] = value
    return changed


def test_a_resume_from_another_address_of_the_same_model_continues(
        data_file: Path, tmp_path: Path, answering: FakeOpenAIServer) -> None:
    """The server restarted on another port, or named localhost: the same model answers."""
    report = tmp_path / "qa.json"
    assert run(_qa(data_file, answering, report, "--no-baselines")) == 0
    saved = json.loads(report.read_text())
    assert saved["model"] == "fake-model" and saved["served_model"] == "fake-model"
    assert "127.0.0.1" not in json.dumps(saved["units"])
    _cut_short(report)
    with FakeOpenAIServer() as restarted:
        restarted.responder = answering.responder
        args = _qa(data_file, restarted, report, "--no-baselines", "--resume")
        assert run(args) == 0
        assert len(restarted.requests) == 2  # only the two answers the cut left out
        _cut_short(report)
        assert run(_at(args, "--base-url", restarted.base_url.replace("127.0.0.1",
                                                                      "localhost"))) == 0
        assert len(restarted.requests) == 4
    assert len(json.loads(report.read_text())["units"]["bm25"]["7"]["questions"]) == 3


def test_a_resume_with_another_model_is_refused_saying_which_to_pass(
        data_file: Path, tmp_path: Path, answering: FakeOpenAIServer,
        capsys: pytest.CaptureFixture[str]) -> None:
    report = tmp_path / "qa.json"
    args = _qa(data_file, answering, report, "--no-baselines")
    assert run(args) == 0
    _cut_short(report)
    before, asked = report.read_text(), len(answering.requests)
    capsys.readouterr()
    assert run([*_at(args, "--model", "other-model"), "--resume"]) == 2
    error = " ".join(capsys.readouterr().err.split())
    assert (f"--resume: {report} holds the answers of the model fake-model and this run asks "
            "other-model: pass --model fake-model (at any --base-url that serves it) to "
            "finish it, or give --json another PATH, or drop --resume to replace it") in error
    assert report.read_text() == before and len(answering.requests) == asked


def test_a_resume_when_a_llama_server_loaded_another_file_is_refused(
        data_file: Path, tmp_path: Path, answering: FakeOpenAIServer,
        capsys: pytest.CaptureFixture[str]) -> None:
    """llama-server answers to any --model with the file it loaded, and lists that file."""
    report = tmp_path / "qa.json"
    answering.model = "/models/qwen2.5-7b-q4.gguf"
    args = _at(_qa(data_file, answering, report, "--no-baselines"), "--model", "local")
    assert run(args) == 0
    assert json.loads(report.read_text())["served_model"] == "/models/qwen2.5-7b-q4.gguf"
    _cut_short(report)
    before, asked = report.read_text(), len(answering.requests)
    answering.model = "/models/llama3.1-8b-q4.gguf"
    capsys.readouterr()
    assert run([*args, "--resume"]) == 2
    error = " ".join(capsys.readouterr().err.split())
    assert ("holds the answers of /models/qwen2.5-7b-q4.gguf, as the server listed the model "
            "local then, and the server now lists /models/llama3.1-8b-q4.gguf: load "
            "/models/qwen2.5-7b-q4.gguf again to finish it") in error
    assert report.read_text() == before and len(answering.requests) == asked
    answering.model = "/models/qwen2.5-7b-q4.gguf"
    assert run([*args, "--resume"]) == 0
    assert len(answering.requests) == asked + 2


def test_a_report_that_recorded_the_model_with_its_address_resumes_at_another(
        data_file: Path, tmp_path: Path, answering: FakeOpenAIServer) -> None:
    """Older reports recorded ``openai:NAME @ URL``, in each part's fingerprint too."""
    report = tmp_path / "qa.json"
    assert run(_qa(data_file, answering, report)) == 0
    saved = json.loads(report.read_text())
    old = "openai:fake-model @ http://127.0.0.1:8091/v1"
    saved["model"] = old
    del saved["served_model"]
    for by_conv in saved["units"].values():
        by_conv["7"]["fingerprint"]["model"] = old
    report.write_text(json.dumps(saved))
    asked = len(answering.requests)
    assert run(_qa(data_file, answering, report, "--resume")) == 0
    assert len(answering.requests) == asked
    resumed = json.loads(report.read_text())
    assert resumed["units"]["bm25"]["7"]["questions"] == saved["units"]["bm25"]["7"][
        "questions"]


def test_a_resume_while_the_server_lists_no_model_keeps_the_one_recorded(
        data_file: Path, tmp_path: Path, answering: FakeOpenAIServer,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A resume that cannot learn the served id continues, and the report keeps the one it
    recorded: else a later resume with another file loaded would be taken for the same."""
    report = tmp_path / "qa.json"
    answering.model = "/models/qwen2.5-7b-q4.gguf"
    args = _at(_qa(data_file, answering, report, "--no-baselines"), "--model", "local")
    assert run(args) == 0
    _cut_short(report)
    answering.routes[("GET", "/v1/models")] = {"object": "list", "data": [
        {"id": "/models/a.gguf", "object": "model"}, {"id": "/models/b.gguf", "object": "model"}]}
    assert run([*args, "--resume"]) == 0
    assert json.loads(report.read_text())["served_model"] == "/models/qwen2.5-7b-q4.gguf"
    del answering.routes[("GET", "/v1/models")]
    _cut_short(report)
    before, asked = report.read_text(), len(answering.requests)
    answering.model = "/models/llama3.1-8b-q4.gguf"
    capsys.readouterr()
    assert run([*args, "--resume"]) == 2
    assert "load /models/qwen2.5-7b-q4.gguf again" in " ".join(capsys.readouterr().err.split())
    assert report.read_text() == before and len(answering.requests) == asked


def test_a_report_of_another_embedder_is_refused_not_replaced(
        data_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Its parts were run again with the other embedder, replacing the report's without a
    # word: a report meant to compare two runs lost one of them.
    import tiermem.evals.embedders as embedders

    class Other(embedders.HashingEmbedder):
        def __init__(self) -> None:
            super().__init__()
            self.id = "other-embedder"

    monkeypatch.setitem(embedders.EMBEDDERS, "local", Other)
    report = tmp_path / "r.json"
    given = ["eval", "locomo", "--data", str(data_file), "--config", "bm25", "--json",
             str(report)]
    assert run([*given, "--embedder", "hashing"]) == 0
    before = report.read_text()
    capsys.readouterr()
    assert run([*given, "--embedder", "local", "--resume"]) == 2
    error = " ".join(capsys.readouterr().err.split())
    # It named them by id: "the embedder hashing-uni-bi-256 (this run: other-embedder)".
    assert (f"--resume: {report} was run with --embedder hashing (this run: local); run with "
            f"its settings to finish it") in error
    assert report.read_text() == before
    assert run([*given, "--embedder", "hashing", "--resume"]) == 0
    capsys.readouterr()
    with pytest.raises(SystemExit):  # its --help named no --embedder among them
        run(["eval", "locomo", "--help"])
    assert "--limit or --embedder, or in QA" in " ".join(capsys.readouterr().out.split())
