"""`tiermem forget` with a model's option where no model is asked: in mode exact, or in a
mode that asks one with none configured. Either is a usage error (exit 2) that changes
nothing and says which flags to drop; the option would else be ignored without a word,
as it would be with ``--offline`` in chat (tests/test_cli_offline_model.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fake_openai import FakeOpenAIServer

from tiermem.cli import run
from tiermem.memory import HashingEmbedder, HierarchicalMemory

SECRET = "my card number is 4111 1111"
_DROP_OR_JUDGE = ("or give --mode exact_then_top_k_llm to have the model judge a request "
                  "that no stored text equals")


def _agent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, policy: str | None) -> Path:
    monkeypatch.setenv("TIERMEM_HOME", str(tmp_path))
    for name in ("TIERMEM_MODEL", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    home = tmp_path / "agents" / "ada"
    with HierarchicalMemory(home, embedder=HashingEmbedder()) as memory:
        memory.add_fact(SECRET)
    if policy is not None:
        (home / "policy.yaml").write_text(f"forget:\n  mode: {policy}\n")
    return home


_NAME_ONE = ("--model NAME (or TIERMEM_MODEL) and, for a local server, --base-url URL (or "
             "OPENAI_BASE_URL)")
_NAME_ONE_TO_JUDGE = (f"or name a model with {_NAME_ONE}, and give --mode exact_then_top_k_llm "
                      f"to have the model judge a request that no stored text equals")


@pytest.mark.parametrize(("policy", "flags", "said"), [
    (None, ["--max-tokens", "100"],
     f"mode 'exact' (the default) matches the request's whole text and asks no model, so "
     f"--max-tokens would have no effect: drop it, {_NAME_ONE_TO_JUDGE}"),
    ("top_k_llm", ["--mode", "exact", "--model", "llama3", "--base-url",
                   "http://127.0.0.1:9/v1"],
     f"mode 'exact' (from --mode) matches the request's whole text and asks no model, so "
     f"--model and --base-url would have no effect: drop them, {_DROP_OR_JUDGE}"),
    ("exact", ["--context-window", "8000", "--timeout", "5"],
     f"mode 'exact' (from the policy) matches the request's whole text and asks no model, "
     f"so --context-window and --timeout would have no effect: drop them, "
     f"{_NAME_ONE_TO_JUDGE}"),
    ("top_k_llm", ["--timeout", "5"],
     f"mode 'top_k_llm' (from the policy) asks a model which stored items the request "
     f"targets, and none is set: name one with {_NAME_ONE}, or give --mode exact and drop "
     f"--timeout to forget by exact text only"),
    (None, ["--mode", "top_k_llm", "--timeout", "5"],
     f"mode 'top_k_llm' (from --mode) asks a model which stored items the request targets, "
     f"and none is set: name one with {_NAME_ONE}, or give --mode exact and drop --timeout "
     f"to forget by exact text only"),
    ("exact_then_top_k_llm", ["--max-tokens", "100", "--context-window", "8000"],
     f"mode 'exact_then_top_k_llm' (from the policy) asks a model when no stored text equals "
     f"the request, and none is set: name one with {_NAME_ONE}, or give --mode exact and "
     f"drop --context-window and --max-tokens to forget by exact text only"),
    ("exact", ["--mode", "exact_then_top_k_llm", "--max-tokens", "100"],
     f"mode 'exact_then_top_k_llm' (from --mode) asks a model when no stored text equals the "
     f"request, and none is set: name one with {_NAME_ONE}, or give --mode exact and drop "
     f"--max-tokens to forget by exact text only"),
])
def test_a_models_option_where_no_model_is_asked_is_refused_and_nothing_changes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        policy: str | None, flags: list[str], said: str) -> None:
    home = _agent(tmp_path, monkeypatch, policy)
    assert run(["forget", "--agent", "ada", "--embedder", "hashing", *flags, SECRET]) == 2
    assert capsys.readouterr().err == f"tiermem: {said}\n"
    with HierarchicalMemory(home, embedder=HashingEmbedder(), read_only=True) as memory:
        # Neither forgotten nor audited: the request was never made.
        assert [f.text for f in memory.facts()] == [SECRET]
        assert memory.forget_requests() == []


def _environment_model_picks_the_card(server: FakeOpenAIServer,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The environment names ``server``'s model, which answers that the card's fact is meant."""
    monkeypatch.setenv("TIERMEM_MODEL", "fake-model")
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    server.enqueue_reply('{"ids": ["F1"]}')


def test_a_models_options_beside_the_environments_model_reach_it_in_a_judged_mode(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    home = _agent(tmp_path, monkeypatch, "top_k_llm")
    with FakeOpenAIServer() as server:
        _environment_model_picks_the_card(server, monkeypatch)
        assert run(["forget", "--agent", "ada", "--embedder", "hashing", "--context-window",
                    "8000", "--max-tokens", "123", "--json", "the card"]) == 0
        assert json.loads(capsys.readouterr().out)["facts"] == [1]
        assert [request["max_tokens"] for request in server.requests] == [123]
    with HierarchicalMemory(home, embedder=HashingEmbedder(), read_only=True) as memory:
        assert memory.facts() == []


@pytest.mark.parametrize("policy", ["top_k_llm", "exact_then_top_k_llm"])
def test_what_the_no_model_error_offers_works_and_dropping_the_flag_alone_does_not(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        policy: str) -> None:
    home = _agent(tmp_path, monkeypatch, policy)
    forget = ["forget", "--agent", "ada", "--embedder", "hashing"]
    # Dropped alone, the flag leaves a judged mode with no model: the request fails, audited.
    assert run([*forget, "the card"]) == 1
    assert "none is configured" in capsys.readouterr().err
    assert run([*forget, "--mode", "exact", SECRET]) == 0
    with HierarchicalMemory(home, embedder=HashingEmbedder(), read_only=True) as memory:
        assert memory.facts() == []
        assert [r.outcome for r in memory.forget_requests()] == ["failed", "matched"]


@pytest.mark.parametrize(("policy", "flags", "said"), [
    ("exact_then_top_k_llm", [],
     "mode 'exact_then_top_k_llm' (from the policy) asks a model when no stored text equals "
     "the request"),
    (None, ["--mode", "exact_then_top_k_llm"],
     "mode 'exact_then_top_k_llm' (from --mode) asks a model when no stored text equals the "
     "request"),
    ("top_k_llm", [],
     "mode 'top_k_llm' (from the policy) asks a model which stored items the request targets"),
])
def test_a_judged_mode_with_no_model_says_when_it_asks_one_and_how_to_name_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        policy: str | None, flags: list[str], said: str) -> None:
    _agent(tmp_path, monkeypatch, policy)
    assert run(["forget", "--agent", "ada", "--embedder", "hashing", *flags, "the card"]) == 1
    # The last line: a home made private first is said before it.
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"tiermem: {said}, and none is configured: name one with {_NAME_ONE}, or give "
        f"--mode exact, which needs none")


def test_a_judged_forget_reads_no_text_tool_calls_setting_of_the_chat(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The judge is offered no tools, so a value the chat would refuse stops no forget.
    home = _agent(tmp_path, monkeypatch, "top_k_llm")
    monkeypatch.setenv("TIERMEM_TEXT_TOOL_CALLS", "sometimes")
    with FakeOpenAIServer() as server:
        _environment_model_picks_the_card(server, monkeypatch)
        assert run(["forget", "--agent", "ada", "--embedder", "hashing", "the card"]) == 0, (
            capsys.readouterr().err)
    with HierarchicalMemory(home, embedder=HashingEmbedder(), read_only=True) as memory:
        assert memory.facts() == []


@pytest.mark.parametrize("flags", [
    ["--text-tool-calls", "off", SECRET],
    ["--model", "llama3", "--base-url", "http://127.0.0.1:9/v1", "--mode",
     "exact_then_top_k_llm", "--text-tool-calls=auto", SECRET],
    ["--erase-forgotten", "--text-tool-calls", "off"],
])
def test_text_tool_calls_is_not_offered_and_given_is_refused_saying_why(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        flags: list[str]) -> None:
    home = _agent(tmp_path, monkeypatch, None)
    with pytest.raises(SystemExit) as stopped:
        run(["forget", "--agent", "ada", "--embedder", "hashing", *flags])
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    # Why, and what to do; not "unrecognized arguments" beside the request itself.
    assert err.endswith(
        "tiermem forget: error: forget takes no --text-tool-calls: the model judging a "
        "request is offered no tools, so no text of its answer is read as a call to one; "
        "drop it\n")
    assert SECRET not in err
    with HierarchicalMemory(home, embedder=HashingEmbedder(), read_only=True) as memory:
        assert [f.text for f in memory.facts()] == [SECRET]
        assert memory.forget_requests() == []


def test_forget_help_offers_no_text_tool_calls_while_chat_still_does(
        capsys: pytest.CaptureFixture[str]) -> None:
    for command, offered in (("forget", False), ("chat", True)):
        with pytest.raises(SystemExit):
            run([command, "--help"])
        assert ("--text-tool-calls" in capsys.readouterr().out) is offered
