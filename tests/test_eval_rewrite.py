"""Query rewriting with a model (memory/search/rewrite.py, ``eval locomo --rewrite``)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from fake_openai import FakeOpenAIServer
from test_eval_locomo import CONVERSATION
from test_eval_locomo import server as server  # the loopback model (a fixture)

from tiermem.agent.openai_client import OpenAIClient
from tiermem.evals.configs import resolve_configs, with_rewrite
from tiermem.evals.locomo import load_conversations
from tiermem.evals.retrieval import run_retrieval
from tiermem.memory import HashingEmbedder
from tiermem.memory.search.rewrite import QueryRewriter, fuse_queries, parse_queries
from tiermem.memory.types import Hit

ROOT = Path(__file__).resolve().parents[1]
QUESTION = "Which instrument did Bob start learning?"


@pytest.fixture
def data_file(tmp_path: Path) -> Path:
    path = tmp_path / "locomo" / "7.json"
    path.parent.mkdir()
    # one scored question: what Ann's dog loves, worded so that no stored word matches
    path.write_text(json.dumps({**CONVERSATION, "qa": [
        {"question": "Where does the dog like to go?", "answer": "the park",
         "evidence": ["D1:3"], "category": 1}]}))
    return path


def _rewriter(server: FakeOpenAIServer, model: str = "fake-model") -> QueryRewriter:
    llm = OpenAIClient(model, base_url=server.base_url, max_retries=0)
    return QueryRewriter(lambda prompt: llm.complete(
        [{"role": "user", "content": prompt}], []).content or "", model=model)


def test_replies_are_read_one_query_a_line() -> None:
    reply = '1. violin lessons\n- "music class"\n\n* Query 3: violin lessons\nWhich instrument ' \
            'did Bob start learning?\nguitar\nextra'
    assert parse_queries(reply, QUESTION) == ["violin lessons", "music class", "guitar"]
    assert parse_queries("", QUESTION) == []


def test_rankings_are_summed_so_what_several_queries_find_rises() -> None:
    def hit(row: int, score: float) -> Hit:
        return Hit(text=str(row), tier="archival", score=score, created_at=0.0, id=row)

    fused = fuse_queries([[hit(1, 1.0), hit(2, 0.6)], [hit(2, 0.6), hit(3, 0.9)]], k=2)
    assert [(h.id, h.score) for h in fused] == [(2, pytest.approx(1.2)), (1, 1.0)]


def test_rewrites_are_searched_and_fused_with_the_question(
        data_file: Path, server: FakeOpenAIServer) -> None:
    server.enqueue_reply("beagle park walks\nfavourite places of the beagle")
    hybrid = resolve_configs(["bm25"])[0]
    report = run_retrieval(load_conversations([data_file]), [hybrid, with_rewrite(hybrid)],
                           HashingEmbedder(), ks=(1, 10), rewriter=_rewriter(server))
    plain, rewritten = (report["units"][name]["7"]["questions"][0]
                        for name in ("bm25", "bm25+rewrite"))
    # the question's words match nothing; the model's queries find the evidence
    assert plain["recall@10"] == 0.0 and rewritten["recall@10"] == 1.0
    assert rewritten["retrieved"][0] == ["D1:3"]
    assert rewritten["queries"] == ["beagle park walks", "favourite places of the beagle"]
    assert not rewritten["rewrite_failed"]
    assert "Where does the dog like to go?" in server.requests[0]["messages"][0]["content"]
    rows = {c["name"]: c for c in report["configs"]}
    assert rows["bm25+rewrite"]["rewrites_failed"] == 0 and "rewrites_failed" not in rows["bm25"]
    assert rows["bm25+rewrite"]["by_category"]["1"]["recall@10"] == 1.0


def test_resume_runs_rewrites_again_for_another_model(
        data_file: Path, tmp_path: Path, server: FakeOpenAIServer) -> None:
    out, bm25 = tmp_path / "report.json", with_rewrite(resolve_configs(["bm25"])[0])
    conversations = load_conversations([data_file])
    server.enqueue_reply("beagle park walks")
    run_retrieval(conversations, [bm25], HashingEmbedder(), ks=(1, 10), json_path=out,
                  rewriter=_rewriter(server, "model-a"))
    asked = len(server.requests)
    # The same model: the finished unit is reused and the model is not asked again.
    run_retrieval(conversations, [bm25], HashingEmbedder(), ks=(1, 10), json_path=out,
                  resume=True, rewriter=_rewriter(server, "model-a"))
    assert len(server.requests) == asked
    # Another model: its own queries, so the unit runs again.
    server.enqueue_reply("a kitchen")
    report = run_retrieval(conversations, [bm25], HashingEmbedder(), ks=(1, 10), json_path=out,
                           resume=True, rewriter=_rewriter(server, "model-b"))
    assert len(server.requests) == asked + 1
    assert report["units"]["bm25+rewrite"]["7"]["questions"][0]["queries"] == ["a kitchen"]
    assert report["units"]["bm25+rewrite"]["7"]["fingerprint"]["rewriter"]["model"] == "model-b"


def test_a_failed_rewrite_falls_back_to_the_question_and_is_counted(
        data_file: Path, server: FakeOpenAIServer) -> None:
    server.enqueue_error(500)
    hybrid = resolve_configs(["hybrid"])[0]
    rewriter = _rewriter(server)
    report = run_retrieval(load_conversations([data_file]), [hybrid, with_rewrite(hybrid)],
                           HashingEmbedder(), ks=(1, 10), rewriter=rewriter)
    plain, rewritten = (report["units"][name]["7"]["questions"][0]
                        for name in ("hybrid", "hybrid+rewrite"))
    assert rewritten["rewrite_failed"] and rewritten["queries"] == []
    assert rewritten["retrieved"] == plain["retrieved"]
    assert report["configs"][1]["rewrites_failed"] == 1
    assert rewriter.failures == 1 and rewriter.last_error
    # a rewrite configuration without a model is refused up front
    with pytest.raises(ValueError, match="--model"):
        run_retrieval(load_conversations([data_file]), [with_rewrite(hybrid)], HashingEmbedder())


def test_the_cli_rewrites_with_the_configured_model(
        data_file: Path, tmp_path: Path, server: FakeOpenAIServer) -> None:
    server.enqueue_reply("beagle park")
    out = tmp_path / "report.json"
    run = subprocess.run(
        [sys.executable, str(ROOT / "cli.py"), "eval", "locomo", "--data", str(data_file),
         "--embedder", "hashing", "--config", "bm25", "--rewrite", "--model", "fake-model",
         "--base-url", server.base_url, "--json", str(out)],
        capture_output=True, text=True, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "the model's rewrite failed for 0 of 1 question (searched" in run.stdout  # "1 questions"
    names = [c["name"] for c in json.loads(out.read_text())["configs"]]
    assert names == ["bm25", "bm25+rewrite"]
    refused = subprocess.run(
        [sys.executable, str(ROOT / "cli.py"), "eval", "locomo", "--data", str(data_file),
         "--rewrite", "--cv"], capture_output=True, text=True, cwd=tmp_path)
    assert refused.returncode == 2 and "--rewrite" in refused.stderr


def test_a_rewritten_part_is_known_by_its_model_not_the_server_address(
        data_file: Path, tmp_path: Path, server: FakeOpenAIServer,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The model named by TIERMEM_MODEL is recorded by name (not as None), and a server
    reached at another address resumes the rewritten part rather than asking again."""
    from tiermem.cli import run

    monkeypatch.setenv("TIERMEM_MODEL", "fake-model")
    out = tmp_path / "report.json"
    args = ["eval", "locomo", "--data", str(data_file), "--embedder", "hashing", "--config",
            "bm25", "--rewrite", "--base-url", server.base_url, "--json", str(out)]
    server.enqueue_reply("beagle park")
    assert run(args) == 0
    fingerprint = json.loads(out.read_text())["units"]["bm25+rewrite"]["7"]["fingerprint"]
    assert fingerprint["rewriter"]["model"] == "fake-model"
    asked = len(server.requests)
    args[args.index("--base-url") + 1] = server.base_url.replace("127.0.0.1", "localhost")
    assert run([*args, "--resume"]) == 0
    assert len(server.requests) == asked
