"""A model server's refusal met by a command run once (eval, forget) rather than by a chat:
the server's hint is shown, worded for running that command again, against the loopback
server."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from fake_openai import FakeOpenAIServer, FakeResponse
from locomo_helpers import two_turns, write_conversation

from tiermem.agent.command_hints import hint_for
from tiermem.cli import run
from tiermem.memory import HashingEmbedder, HierarchicalMemory

JINJA = json.dumps({"error": {"code": 500, "message": "tools param requires --jinja flag",
                              "type": "server_error"}}).encode()


def test_eval_against_a_server_not_started_for_tool_calls_shows_its_hint_for_the_eval(
        tmp_path: Path, server: FakeOpenAIServer, capsys: pytest.CaptureFixture[str]) -> None:
    data = write_conversation(tmp_path / "conv.json", [two_turns()])
    server.responder = lambda request: FakeResponse(
        status=500, body=JINJA, headers={"Content-Type": "application/json"})
    assert run(["eval", "locomo", "--data", str(data), "--mode", "qa", "--model", "m",
                "--base-url", server.base_url, "--config", "hierarchy", "--no-baselines",
                "--embedder", "hashing", "--context-window", "8192"]) == 1
    err = " ".join(capsys.readouterr().err.split())
    assert len(server.requests) == 1  # no second attempt can help
    assert "llama-server runs without --jinja (HTTP 500)" in err
    assert "restart llama-server with --jinja" in err
    assert "then run the eval again" in err and "send it again" not in err


def test_forget_with_a_judge_the_server_has_not_pulled_says_to_pull_it_then_run_forget(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("TIERMEM_HOME", str(tmp_path))
    with HierarchicalMemory(tmp_path / "agents" / "ada", embedder=HashingEmbedder()) as m:
        m.add_fact("User's card number is 4111 1111 1111 1111")
    with FakeOpenAIServer() as server:
        server.enqueue_error(404, {"error": {"message": 'model "nosuch" not found, try '
                                                        'pulling it first'}})
        assert run(["forget", "--agent", "ada", "--embedder", "hashing", "--mode",
                    "top_k_llm", "--base-url", server.base_url, "--model", "nosuch",
                    "--context-window", "4096", "the card"]) == 1
        assert len(server.requests) == 1
    err = " ".join(capsys.readouterr().err.split())
    assert "model error: " in err and "has no model 'nosuch'" in err
    assert "pull model 'nosuch' (`ollama pull nosuch`)" in err
    assert "then run `tiermem forget` again" in err and "send it again" not in err


def test_the_chat_keeps_its_own_words_and_another_command_runs_again_with_its_options() -> None:
    hint = "start the chat with a smaller --context-window, then send it again"
    assert hint_for(hint, None) == hint_for(hint, "chat") == hint
    assert hint_for(hint, "eval") == ("run the eval with a smaller --context-window, then run "
                                      "the eval again")
    assert hint_for("send it again once the GPU is free", "scenario") == (
        "run the scenario again once the GPU is free")


def test_the_doctor_leaves_options_it_does_not_take_to_the_chat() -> None:
    # `tiermem doctor` has no --context-window: "run `tiermem doctor` with a smaller
    # --context-window" asked for an option it refuses
    hint = "start the chat with a smaller --context-window, then send it again"
    assert hint_for(hint, "doctor") == ("start the chat with a smaller --context-window, then "
                                        "run `tiermem doctor` again")


@pytest.mark.parametrize(("message", "said"), [
    ("model requires more system memory (12.0 GiB) than is available (7.5 GiB)",
     "has too little free memory to load model 'm' (HTTP 500)"),
    ("llama runner process has terminated: error: no CUDA-capable device is detected",
     "the server sees no GPU"),
])
def test_a_model_the_server_cannot_start_stops_the_scenario_at_its_first_turn(
        server: FakeOpenAIServer, capsys: pytest.CaptureFixture[str], message: str,
        said: str) -> None:
    # Every turn would fail alike until the server or the model is changed.
    body = json.dumps({"error": {"message": message, "type": "api_error"}}).encode()
    server.responder = lambda request: FakeResponse(
        status=500, body=body, headers={"Content-Type": "application/json"})
    assert run(["scenario", "personal-assistant", "--base-url", server.base_url,
                "--model", "m", "--embedder", "hashing"]) == 1
    err = " ".join(capsys.readouterr().err.split())
    assert len(server.requests) == 1 and said in err
    assert "then run the scenario again" in err and "turns failed" not in err


class _Shortest(random.Random):
    """Backoffs with no jitter: each the shortest the client may choose."""

    def random(self) -> float:
        return 0.0


def test_a_busy_server_costs_the_scenario_its_turns_and_says_what_to_do_once(
        server: FakeOpenAIServer, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from tiermem.agent.openai_client import OpenAIClient

    real = OpenAIClient.from_config.__func__  # type: ignore[attr-defined]
    # The backoffs at their shortest (1.75 s a request, 40 s over the 23 turns) stay inside
    # the minute a client gives a busy server, so every turn is sent again; at random, their
    # sum (40-80 s) would spend it on a late turn or not, by chance.
    monkeypatch.setattr(OpenAIClient, "from_config", classmethod(
        lambda cls, config, **kwargs: real(cls, config, sleep=lambda seconds: None,
                                           rng=_Shortest(), **kwargs)))
    # Ollama's answer once its queue of pending requests is full: that passes as they end.
    body = json.dumps({"error": {"message": "server busy, please try again.  maximum pending "
                                            "requests exceeded"}}).encode()
    server.responder = lambda request: FakeResponse(
        status=503, body=body, headers={"Content-Type": "application/json"})
    report = tmp_path / "report.json"
    assert run(["scenario", "personal-assistant", "--base-url", server.base_url,
                "--model", "m", "--embedder", "hashing", "--json", str(report)]) == 1
    out = " ".join(capsys.readouterr().out.split())
    # The advice once for the whole run in JSON too, as the text gives it.
    said = json.loads(report.read_text())
    assert said["advice"] == [a for d in said["days"] for a in d["advice"]][:1]
    assert said["advice"][0].startswith("the server is busy; run the scenario again later")
    assert len(server.requests) == 23 * 4  # every turn, each sent again as any 5xx is
    assert out.count("is busy: it refuses requests") >= 8 and "having problems" not in out
    assert out.count("the server is busy; run the scenario again later, once fewer requests "
                     "run on it") == 1
    assert "OLLAMA_NUM_PARALLEL" in out and "OLLAMA_MAX_QUEUE" in out
