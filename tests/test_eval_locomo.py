"""``tiermem eval locomo``: data quirks, metrics, the report, resume, the CLI and QA mode."""

from __future__ import annotations

import datetime as dt
import json
import re
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from fake_openai import FakeOpenAIServer
from locomo_helpers import write_conversation

import tiermem.evals.retrieval as retrieval
from tiermem.agent.openai_client import OpenAIClient
from tiermem.evals.configs import CONFIGS, DEFAULT_CONFIGS, passage_text, resolve_configs
from tiermem.evals.locomo import (
    DataError,
    evidence_recall,
    load_conversations,
    parse_evidence,
    parse_session_date,
    reciprocal_rank,
)
from tiermem.evals.qa import run_qa
from tiermem.evals.qa_scores import locomo_f1, normalize_answer, token_f1
from tiermem.evals.retrieval import run_retrieval
from tiermem.memory import HashingEmbedder

ROOT = Path(__file__).resolve().parents[1]

CONVERSATION: dict[str, Any] = {
    "speaker_a": "Ann",
    "speaker_b": "Bob",
    "session_1_date_time": "1:56 pm on 8 May, 2023",
    "session_1": [
        {"speaker": "Ann", "dia_id": "D1:1", "text": "I adopted a puppy named Rex yesterday."},
        {"speaker": "Bob", "dia_id": "D1:2", "text": "Congrats! What breed is he?"},
        {"speaker": "Ann", "dia_id": "D1:3", "text": "A beagle, and he loves the park."},
    ],
    "session_2_date_time": "10:37 am on 27 June, 2023",
    "session_2": [
        {"speaker": "Bob", "dia_id": "D2:1", "text": "I started learning the violin last week.",
         "img_url": ["https://example.invalid/v.jpg"],
         "blip_caption": "a photo of a violin on a table"},
        {"speaker": "Ann", "dia_id": "D2:2", "text": "That is wonderful, music is relaxing."},
    ],
    "session_3_date_time": "9:00 am on 1 July, 2023",
    "session_3": [],
    "qa": [
        {"question": "What is the name of Ann's puppy?", "answer": "Rex",
         "evidence": ["D1:1"], "category": 4},
        {"question": "Which instrument did Bob start learning?", "answer": "violin",
         "evidence": ["D2:1"], "category": 4},
        {"question": "What about the beagle and the violin?", "answer": "beagle, violin",
         "evidence": ["D1:3; D2:1"], "category": 1},
        {"question": "What did Ann say about her cat?", "adversarial_answer": "nothing",
         "evidence": [], "category": 5},
    ],
}


@pytest.fixture
def data_file(tmp_path: Path) -> Path:
    return write_conversation(tmp_path / "locomo" / "7.json", CONVERSATION)


# -- data ------------------------------------------------------------------------------------
def test_session_dates_parse_as_utc() -> None:
    assert parse_session_date("1:56 pm on 8 May, 2023") == dt.datetime(
        2023, 5, 8, 13, 56, tzinfo=dt.UTC)
    assert parse_session_date("12:09 am on 13 September, 2023") == dt.datetime(
        2023, 9, 13, 0, 9, tzinfo=dt.UTC)
    assert parse_session_date("12:30 pm on 1 Jan 2024").hour == 12
    with pytest.raises(DataError, match="session date"):
        parse_session_date("yesterday")


def test_evidence_splits_joined_ids_and_normalises_malformed_ones() -> None:
    assert parse_evidence(["D8:6; D9:17"]) == ["D8:6", "D9:17"]
    assert parse_evidence(["D:11:26", "D30:05", "D1:3", "D1:3"]) == ["D11:26", "D30:5", "D1:3"]
    assert parse_evidence([]) == []


def test_loading_keeps_speakers_dates_captions_and_drops_unknown_evidence(
    data_file: Path, tmp_path: Path
) -> None:
    (conv,) = load_conversations([data_file.parent])
    assert conv.id == "7" and conv.speakers == ("Ann", "Bob")
    assert [t.dia_id for t in conv.turns] == ["D1:1", "D1:2", "D1:3", "D2:1", "D2:2"]
    assert conv.turns[3].created_at == dt.datetime(2023, 6, 27, 10, 37, tzinfo=dt.UTC).timestamp()
    assert conv.questions[2].evidence == ("D1:3", "D2:1")
    assert len(conv.scored_questions()) == 3
    # the released locomo10.json layout: a list of samples
    sample = {"sample_id": "conv-42", "conversation": CONVERSATION,
              "qa": [{"question": "q?", "answer": "a", "evidence": ["D9:9", "D1:1"],
                      "category": 4}]}
    listed = tmp_path / "locomo10.json"
    listed.write_text(json.dumps([sample]))
    (other,) = load_conversations([listed])
    assert other.id == "42" and other.questions[0].evidence == ("D1:1",)
    assert other.dropped_evidence == 1


def test_a_conversation_named_twice_counts_once_and_two_with_one_id_are_refused(
        data_file: Path, tmp_path: Path) -> None:
    # The file, by itself and in its directory: read once, so scored once.
    assert [c.id for c in load_conversations([data_file.parent, data_file])] == ["7"]
    assert [c.id for c in load_conversations([data_file, data_file.parent])] == ["7"]
    other = tmp_path / "elsewhere" / "7.json"
    other.parent.mkdir()
    other.write_text(json.dumps(CONVERSATION))
    with pytest.raises(DataError, match=r"two conversations have the id 7, in .*7\.json and "
                                        r".*elsewhere.7\.json .*give each conversation once"):
        load_conversations([data_file.parent, other.parent])


def test_passages_keep_the_speaker_the_caption_and_the_previous_turn(data_file: Path) -> None:
    (conv,) = load_conversations([data_file])
    hybrid = CONFIGS["hybrid"]
    assert passage_text(conv, 0, hybrid) == "Ann: I adopted a puppy named Rex yesterday."
    assert passage_text(conv, 1, hybrid).startswith("Bob: Congrats! What breed is he?")
    assert "Ann: I adopted a puppy" in passage_text(conv, 1, hybrid)
    # a new session starts without context; the image's caption is kept
    assert passage_text(conv, 3, hybrid) == (
        "Bob: I started learning the violin last week. "
        "[shares a photo: a photo of a violin on a table]")


# -- metrics ---------------------------------------------------------------------------------
def test_recall_at_k_and_reciprocal_rank_on_a_known_ranking() -> None:
    ranked = [["D1:2"], ["D1:1"], [], ["D2:1", "D1:3"]]
    evidence = ["D1:1", "D1:3"]
    assert [evidence_recall(ranked, evidence, k) for k in (1, 2, 3, 4, 20)] == [
        0.0, 0.5, 0.5, 1.0, 1.0]
    assert reciprocal_rank(ranked, evidence) == 0.5
    assert reciprocal_rank([["D9:9"]], evidence) == 0.0


def test_bm25_scores_the_fixture_exactly(data_file: Path) -> None:
    conversations = load_conversations([data_file])
    report = run_retrieval(conversations, resolve_configs(["bm25"]), HashingEmbedder(),
                           ks=(1, 5))
    (bm25,) = report["configs"]
    # the puppy and the violin rank first; of the beagle+violin pair, one is first, both in 5
    assert bm25["overall"] == {"recall@1": pytest.approx(0.8333, abs=1e-4), "recall@5": 1.0,
                               "mrr": 1.0, "questions": 3}
    assert bm25["by_category"]["4"]["recall@1"] == 1.0
    assert bm25["by_category"]["1"]["recall@1"] == 0.5
    assert "5" not in bm25["by_category"]  # no evidence, not scored


def test_timings_summarise_the_measured_times() -> None:
    records = [{"category": 1, "recall@1": 1.0, "rr": 1.0, "ms": ms}
               for ms in (4.0, 1.0, 100.0, 3.0, 2.0)]
    units = [{"turns": 30, "ingest_seconds": 2.0, "questions": records[:2]},
             {"turns": 10, "ingest_seconds": 3.0, "questions": records[2:]}]
    report = retrieval.aggregate(CONFIGS["bm25"], "hashing-uni-bi-256", units, ks=(1,))
    assert report["timings"] == {"ingest_turns_per_s": 8.0, "ingest_seconds": 5.0,
                                 "query_p50_ms": 3.0, "query_p95_ms": 100.0}
    assert report["overall"]["questions"] == 5


class CachingEmbedder(HashingEmbedder):
    """Keeps query vectors as the local model does, and counts the texts it embeds."""

    def __init__(self) -> None:
        super().__init__()
        self.kept: dict[str, Any] = {}
        self.embedded: list[str] = []

    def embed_query(self, text: str) -> Any:
        if text not in self.kept:
            self.embedded.append(text)
            self.kept[text] = super().embed_query(text)
        return self.kept[text]

    def embed_queries(self, texts: Sequence[str]) -> list[Any]:
        return [self.embed_query(t) for t in texts]

    def forget_queries(self) -> None:
        self.kept.clear()


def test_each_configuration_embeds_its_questions_itself(data_file: Path) -> None:
    # Timed from another configuration's kept vectors, hybrid's searches ran no model.
    embedder = CachingEmbedder()
    run_retrieval(load_conversations([data_file]), resolve_configs(["dense", "hybrid"]),
                  embedder)
    questions = [q.question for c in load_conversations([data_file])
                 for q in c.scored_questions()]
    assert len(embedder.embedded) == 2 * len(questions)


# -- report, resume, CLI ---------------------------------------------------------------------
def _check_schema(report: dict[str, Any]) -> None:
    names = [c["name"] for c in report["configs"]]
    for word in ("bm25", "dense", "hybrid", "hierarchy"):
        assert any(word in name for name in names), names
    for config in report["configs"]:
        assert set(config) >= {"name", "config", "embedder", "overall", "by_category", "timings"}
        assert set(config["overall"]) >= {"recall@1", "recall@5", "recall@10", "recall@20", "mrr"}
        assert config["embedder"] == "hashing-uni-bi-256"
        for metrics in config["by_category"].values():
            assert {"recall@10", "mrr", "questions"} <= set(metrics)
        timings = config["timings"]
        # Every question was timed: an untimed run reports 0.0 from an empty list.
        assert 0 < timings["query_p50_ms"] <= timings["query_p95_ms"]
        assert timings["ingest_turns_per_s"] > 0


def test_the_cli_runs_end_to_end_and_writes_the_report(data_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    run = subprocess.run(
        [sys.executable, str(ROOT / "cli.py"), "eval", "locomo", "--data", str(data_file.parent),
         "--embedder", "hashing", "--json", str(out), "--conversations", "7"],
        capture_output=True, text=True, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "recall@10 by category" in run.stdout and "hierarchy" in run.stdout
    report = json.loads(out.read_text())
    assert [c["name"] for c in report["configs"]] == list(DEFAULT_CONFIGS)
    _check_schema(report)
    bad = subprocess.run(
        [sys.executable, str(ROOT / "cli.py"), "eval", "locomo", "--data", str(data_file),
         "--config", "nope"], capture_output=True, text=True, cwd=tmp_path)
    assert bad.returncode == 2 and "no configuration 'nope'" in bad.stderr


def test_resume_skips_finished_work(data_file: Path, tmp_path: Path,
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    conversations = load_conversations([data_file])
    configs = resolve_configs(["bm25", "dense"])
    out = tmp_path / "r.json"
    first = run_retrieval(conversations, configs, HashingEmbedder(), json_path=out)
    calls: list[str] = []
    real = retrieval.run_unit

    def counting(conv: Any, config: Any, *args: Any, **kwargs: Any) -> dict[str, Any]:
        calls.append(config.name)
        return real(conv, config, *args, **kwargs)

    monkeypatch.setattr(retrieval, "run_unit", counting)
    again = run_retrieval(conversations, configs, HashingEmbedder(), json_path=out, resume=True)
    assert calls == []
    assert [c["overall"] for c in again["configs"]] == [c["overall"] for c in first["configs"]]
    # an interrupted run left one unit unfinished: only that one runs again
    saved = json.loads(out.read_text())
    del saved["units"]["dense"]["7"]
    out.write_text(json.dumps(saved))
    run_retrieval(conversations, configs, HashingEmbedder(), json_path=out, resume=True)
    assert calls == ["dense"]
    # without --resume everything runs
    run_retrieval(conversations, configs, HashingEmbedder(), json_path=out)
    assert calls == ["dense", "bm25", "dense"]


def test_resume_refuses_a_report_it_would_throw_away(data_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    run_retrieval(load_conversations([data_file]), resolve_configs(["bm25"]), HashingEmbedder(),
                  limit=2, json_path=out)
    bad = {"other.json": "[1, 2]", "garbled.json": "{not json", "r.json": out.read_text()}
    for name, text in bad.items():
        (tmp_path / name).write_text(text)
    expected = {"other.json": "is not a report of `tiermem eval locomo`",
                "garbled.json": "cannot read the report .* it is not JSON",
                "r.json": r"was run with --limit 2 \(this run: 1\)"}
    for name, message in expected.items():
        run = subprocess.run(
            [sys.executable, str(ROOT / "cli.py"), "eval", "locomo", "--data", str(data_file),
             "--embedder", "hashing", "--config", "bm25", "--limit", "1", "--json",
             str(tmp_path / name), "--resume"], capture_output=True, text=True, cwd=tmp_path)
        assert run.returncode == 2, run.stderr
        assert re.search(message, run.stderr) and "drop --resume to replace it" in run.stderr
        assert "Traceback" not in run.stderr
        assert (tmp_path / name).read_text() == bad[name]  # its answers are all still there
    with pytest.raises(ValueError, match="--k 1,5,10,20 \\(this run: 1,5\\)"):
        run_retrieval(load_conversations([data_file]), resolve_configs(["bm25"]),
                      HashingEmbedder(), ks=[1, 5], limit=2, json_path=out, resume=True)
    assert out.read_text() == bad["r.json"]



def test_the_list_of_configurations_shows_the_groups_config_takes(
        capsys: pytest.CaptureFixture[str]) -> None:
    from tiermem.cli import run

    assert run(["eval", "locomo", "--list-configs"]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert "* bm25" in listed[0]
    groups = listed[listed.index("--config also takes these groups (* marks the default "
                                 "configurations):") + 1:]
    assert [line.split()[0] for line in groups] == ["all", "ablation"]
    assert resolve_configs(["ablation"]) == [c for c in CONFIGS.values()
                                             if c.name not in DEFAULT_CONFIGS]


@pytest.mark.parametrize("option", [["--conversations", ""], ["--conversations", " , "],
                                    ["--config", ""], ["--config", ","]])
def test_an_option_that_names_nothing_runs_nothing(data_file: Path, option: list[str],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    # An empty shell variable (--conversations "$IDS") must not start the run of everything.
    from tiermem.cli import build_parser
    from tiermem.evals import locomo_command as runner

    started: list[Any] = []
    monkeypatch.setattr(runner, "run_locomo", lambda *args: started.append(args) or {})
    args = build_parser().parse_args(["eval", "locomo", "--data", str(data_file), *option])
    with pytest.raises(ValueError, match=f"^{option[-2]} names nothing; give .*leave it out"):
        runner.run_command(args, None)
    assert started == []
    spaced = build_parser().parse_args(["eval", "locomo", "--data", str(data_file),
                                        "--conversations", " 7, ", "--config", "bm25 , dense"])
    runner.run_command(spaced, None)
    (options, *_), = started
    assert (options.conversations, options.configs) == (["7"], ["bm25", "dense"])
# -- QA --------------------------------------------------------------------------------------
def test_f1_follows_locomo() -> None:
    assert normalize_answer("The Beagle, and a Dog!") == "beagle dog"
    assert token_f1("running dogs", "run dog") == 1.0
    assert token_f1("Bob plays the violin", "violin") == 0.5
    assert locomo_f1("beagle, violin lessons", "beagle, violin", 1) == pytest.approx(5 / 6)
    assert locomo_f1("No information available.", "", 5) == 1.0
    assert locomo_f1("Rex", "", 5) == 0.0
    assert locomo_f1("psychology", "psychology; counseling", 3) == 1.0
    assert locomo_f1("", "violin", 4) == 0.0


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAIServer]:
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)
    with FakeOpenAIServer() as fake:
        yield fake


def test_qa_mode_answers_with_memory_tools_and_scores_f1(
    data_file: Path, tmp_path: Path, server: FakeOpenAIServer
) -> None:
    server.enqueue_tool_calls([("archival_memory_search",
                                '{"query": "puppy name", "request_heartbeat": true}')],
                              usage=(100, 10))
    server.enqueue_reply("Rex", usage=(120, 2))
    server.enqueue_reply("Bob plays the violin", usage=(90, 5))
    llm = OpenAIClient("fake-model", base_url=server.base_url, max_retries=0)
    out = tmp_path / "qa.json"
    report = run_qa(load_conversations([data_file]), resolve_configs(["hybrid"]),
                    HashingEmbedder(), llm, limit=2, json_path=out)
    records = report["units"]["hybrid"]["7"]["questions"]
    assert [(r["answer"], r["f1"], r["tokens"]) for r in records] == [
        ("Rex", 1.0, 232), ("Bob plays the violin", 0.5, 95)]
    (hybrid,) = report["configs"]
    assert hybrid["overall"]["f1"] == 0.75 and hybrid["overall"]["tokens_per_question"] == 163.5
    # the search ran against the ingested conversation
    tool_results = [m["content"] for m in server.requests[1]["messages"] if m["role"] == "tool"]
    assert any("Rex" in text for text in tool_results)
    # each question met the memory as ingested: nothing of the first one is left
    assert not any("puppy" in str(m.get("content")) for m in server.requests[2]["messages"])
    assert server.pending == 0 and json.loads(out.read_text())["configs"][0]["name"] == "hybrid"


def test_answered_counts_the_questions_that_got_an_answer() -> None:
    from tiermem.evals.qa import summarize

    asked = [{"answer": "Rex", "f1": 1.0, "tokens": 10}, {"answer": "", "f1": 0.0, "tokens": 7},
             {"answer": " \n", "f1": 0.0, "tokens": 7}]
    summary = summarize(asked)
    assert (summary["answered"], summary["questions"]) == (1, 3)


def test_full_context_baseline_keeps_the_newest_turns_that_fit(data_file: Path) -> None:
    from tiermem.evals.baselines import baseline_prompt
    from tiermem.memory.text.tokenizer import TokenCounter

    (conv,) = load_conversations([data_file])
    question = conv.questions[0]
    counter = TokenCounter()
    whole = baseline_prompt("full-context", conv, question, none="No information available",
                            window=4096, reserve=256, counter=counter)
    text = whole.messages[0]["content"]
    assert (whole.turns_kept, whole.turns_total) == (5, 5)
    assert "(8 May 2023) Ann: I adopted a puppy named Rex yesterday." in text
    assert "[shares a photo: a photo of a violin on a table]" in text
    assert "left out" not in text and text.endswith(question.question)
    # A window that holds the prompt and about two turns: the oldest turns go, and it says so.
    needed = counter.count(text) + 8 + 100
    cut = baseline_prompt("full-context", conv, question, none="No information available",
                          window=needed - 60, reserve=100, counter=counter)
    cut_text = cut.messages[0]["content"]
    assert 0 < cut.turns_kept < 5
    assert f"the oldest {5 - cut.turns_kept} of its 5 messages are left out" in cut_text
    assert "music is relaxing" in cut_text and "adopted a puppy" not in cut_text
    assert counter.count(cut_text) <= needed - 60 - 100 - 8
    with pytest.raises(ValueError, match="--context-window"):
        baseline_prompt("full-context", conv, question, none="No information available",
                        window=150, reserve=100, counter=counter)
    bare = baseline_prompt("no-memory", conv, question, none="No information available",
                           window=4096, reserve=256, counter=counter)
    assert bare.turns_kept == 0 and "puppy named Rex" not in bare.messages[0]["content"]


def test_qa_reports_no_memory_and_full_context_baselines(
    data_file: Path, tmp_path: Path, server: FakeOpenAIServer
) -> None:
    server.enqueue_reply("No information available")   # hybrid, question 1
    server.enqueue_reply("No information available")   # no-memory, question 1
    server.enqueue_reply("Rex")                        # full-context, question 1
    llm = OpenAIClient("fake-model", base_url=server.base_url, max_retries=0)
    report = run_qa(load_conversations([data_file]), resolve_configs(["hybrid"]),
                    HashingEmbedder(), llm, limit=1, json_path=tmp_path / "qa.json",
                    baselines=("no-memory", "full-context"))
    rows = {c["name"]: c for c in report["configs"]}
    assert list(rows) == ["hybrid", "no-memory", "full-context"]
    assert rows["no-memory"]["overall"]["f1"] == 0.0
    assert rows["full-context"]["overall"]["f1"] == 1.0
    assert rows["full-context"]["overall"]["context_share"] == 1.0
    assert rows["no-memory"]["warning"] is None and rows["hybrid"]["warning"]
    assert rows["full-context"]["by_category"]["4"]["f1"] == 1.0
    no_memory, full = server.requests[1], server.requests[2]
    assert "tools" not in no_memory and "tools" not in full
    assert "puppy named Rex" not in json.dumps(no_memory["messages"])
    assert "Ann: I adopted a puppy named Rex yesterday." in full["messages"][0]["content"]
    assert server.pending == 0


@pytest.mark.parametrize(("ks", "words"), [
    ("1,2000", "--k 2000 is more than a search returns; give each k at most 1000"),
    ("0,5", "--k needs at least one k, each at least 1"),
    ("a,b", "--k takes comma-separated integers")])
def test_a_k_no_search_can_give_is_refused_before_any_work(
        data_file: Path, ks: str, words: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from tiermem.cli import build_parser
    from tiermem.evals import locomo_command as runner

    started: list[Any] = []
    monkeypatch.setattr(runner, "run_locomo", lambda *args: started.append(args) or {})
    args = build_parser().parse_args(["eval", "locomo", "--data", str(data_file), "--k", ks])
    with pytest.raises(ValueError, match=words):
        runner.run_command(args, None)
    assert started == []


@pytest.mark.parametrize("damage", ["session as text", "category null", "qa not a list"])
def test_a_conversation_of_another_shape_is_a_data_error_naming_the_file(
        tmp_path: Path, damage: str) -> None:
    broken = json.loads(json.dumps(CONVERSATION))
    if damage == "session as text":
        broken["session_1"] = "oops"
    elif damage == "category null":
        broken["qa"][0]["category"] = None
    else:
        broken["qa"] = 5
    path = tmp_path / "9.json"
    path.write_text(json.dumps(broken))
    with pytest.raises(DataError, match=rf"^{path}: "):
        load_conversations([path])


@pytest.mark.parametrize(("mode", "kept"), [("retrieval", "category 5 only"),
                                            ("retrieval", "none"), ("qa", "none")])
def test_a_run_with_nothing_to_score_is_a_data_error_not_zeros(
        tmp_path: Path, mode: str, kept: str, capsys: pytest.CaptureFixture[str]) -> None:
    from tiermem.cli import run

    empty = json.loads(json.dumps(CONVERSATION))
    # Adversarial questions have no evidence turns: retrieval cannot score them.
    empty["qa"] = [q for q in empty["qa"] if q["category"] == 5] if kept != "none" else []
    (tmp_path / "9.json").write_text(json.dumps(empty))
    model = ["--no-baselines", "--model", "m", "--base-url", "http://127.0.0.1:9/v1"]
    assert run(["eval", "locomo", "--data", str(tmp_path / "9.json"), "--mode", mode,
                "--config", "bm25", *(model if mode == "qa" else [])]) == 2
    captured = capsys.readouterr()
    assert "conversation 9 holds no question" in captured.err
    assert "nothing to score" in captured.err and "0.000" not in captured.out


@pytest.mark.parametrize(("extra", "named"), [
    (["--judge"], "--judge goes with --mode qa"),
    (["--model", "gpt-4o", "--no-baselines"], "--no-baselines, --model go with --mode qa"),
    (["--timeout", "1"], "--timeout goes with --mode qa"),
    (["--mode", "qa", "--k", "5"], "--k sets the cut-offs of retrieval's recall@k"),
    (["--cv", "--judge"], "retrieval would ignore it: drop it"),  # --cv takes no --mode qa
])
def test_an_option_the_mode_would_ignore_is_refused(
        data_file: Path, extra: list[str], named: str,
        capsys: pytest.CaptureFixture[str]) -> None:
    from tiermem.cli import run

    assert run(["eval", "locomo", "--data", str(data_file), "--config", "bm25", *extra]) == 2
    said = capsys.readouterr()
    assert named in said.err and said.out == ""


def test_cv_refuses_a_conversation_with_nothing_to_score(
        data_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tiermem.cli import run

    empty = dict(CONVERSATION, qa=[])
    (data_file.parent / "9.json").write_text(json.dumps(empty))
    assert run(["eval", "locomo", "--data", str(data_file.parent), "--cv"]) == 2
    assert "--cv reports each conversation held out, and 9 holds no question" in \
        capsys.readouterr().err


def test_a_report_to_a_file_shows_every_name_and_figure_whole(
        data_file: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    # Not a terminal, no COLUMNS: rich would squeeze the table into 80 columns and cut
    # "hybrid-context-embedded" and "hybrid-context-both" to one "hybrid-co…".
    from tiermem.cli import run

    monkeypatch.delenv("COLUMNS", raising=False)
    names = ["hierarchy-recall-only", "hybrid-context-embedded", "hybrid-context-both"]
    assert run(["eval", "locomo", "--data", str(data_file), "--embedder", "hashing",
                "--config", *names]) == 0
    out = capsys.readouterr().out
    assert "…" not in out
    for name in names:
        assert f"│ {name} " in out


@pytest.mark.parametrize("damage", ["a record without its R@1", "questions not a list",
                                    "turns as text"])
def test_resume_refuses_a_damaged_record_and_leaves_the_report(
        data_file: Path, tmp_path: Path, damage: str) -> None:
    conversations = load_conversations([data_file])
    configs = resolve_configs(["bm25"])
    out = tmp_path / "r.json"
    run_retrieval(conversations, configs, HashingEmbedder(), ks=[1, 5], json_path=out)
    saved = json.loads(out.read_text())
    unit = saved["units"]["bm25"]["7"]
    if damage == "a record without its R@1":
        del unit["questions"][0]["recall@1"]
    elif damage == "questions not a list":
        unit["questions"] = "oops"
    else:
        unit["turns"] = "x"
    out.write_text(json.dumps(saved))
    before = out.read_text()
    with pytest.raises(ValueError, match=r"--resume: the record of bm25 on conversation 7 in "
                                         r".* is damaged"):
        run_retrieval(conversations, configs, HashingEmbedder(), ks=[1, 5], json_path=out,
                      resume=True)
    assert out.read_text() == before
