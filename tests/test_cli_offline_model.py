"""``--offline`` with ``--model``, ``--base-url`` or a flag only a model reads (chat,
scenario): a usage error that says which flags to drop, before anything is opened; one of the
two would else be ignored without a word. A model configured in the environment, and its
settings, are what ``--offline`` is for. With no model configured at all, a model's setting
given as a flag is refused the same way, saying how to name a model; given in the environment,
it waits for one."""

from __future__ import annotations

from pathlib import Path

import pytest

from tiermem.cli import main
from tiermem.memory import HashingEmbedder, HierarchicalMemory

_SERVER = "http://127.0.0.1:9/v1"


@pytest.mark.parametrize(("model", "offline"), [
    ({"TIERMEM_MODEL": "llama3", "OPENAI_BASE_URL": _SERVER}, ["--offline"]),
    ({}, []),  # no model at all: the settings wait for one
])
def test_a_models_settings_the_environment_gives_run_offline_without_a_word(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        model: dict[str, str], offline: list[str]) -> None:
    import io
    import sys

    monkeypatch.setenv("TIERMEM_HOME", str(tmp_path / "home"))
    # With --offline, the model's settings the environment gives are overridden with it.
    for name, value in (*model.items(), ("TIERMEM_CONTEXT_WINDOW", "8000"),
                        ("TIERMEM_TIMEOUT", "5"), ("TIERMEM_MAX_TOKENS", "100"),
                        ("TIERMEM_TEXT_TOOL_CALLS", "off")):
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"I live in Lisbon.\n")))
    assert main(["chat", "--agent", "ada", *offline, "--embedder", "hashing"]) == 0
    err = capsys.readouterr().err
    assert "--offline" not in err and "no model" not in err
    # The offline policy stored what it read; the server named was never asked.
    with HierarchicalMemory(tmp_path / "home" / "agents" / "ada", embedder=HashingEmbedder(),
                            read_only=True) as memory:
        assert any("Lisbon" in fact.text for fact in memory.core)


@pytest.mark.parametrize("command", [["chat", "--agent", "ada"], ["scenario", "personal"]])
@pytest.mark.parametrize(("flags", "message"), [
    (["--model", "llama3"], "--model names one: drop --model to run offline, or drop --offline "
                            "to use the model"),
    (["--base-url", _SERVER], "--base-url names one: drop --base-url to run offline, or drop "
                              "--offline to use the model"),
    (["--model", "llama3", "--base-url", _SERVER],
     "--model and --base-url name one: drop --model and --base-url to run offline, or drop "
     "--offline to use the model"),
    (["--context-window", "8000"], "--context-window matters only to a model: drop "
                                   "--context-window to run offline, or drop --offline to use "
                                   "a model"),
    (["--max-tokens", "100", "--timeout", "5", "--text-tool-calls", "off"],
     "--timeout, --max-tokens and --text-tool-calls matter only to a model: drop --timeout, "
     "--max-tokens and --text-tool-calls to run offline, or drop --offline to use a model"),
    (["--model", "llama3", "--max-tokens", "100"],
     "--model names one: drop --model and --max-tokens to run offline, or drop --offline to "
     "use the model"),
])
def test_offline_with_a_flag_only_a_model_reads_is_refused_listing_all_to_drop(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: list[str],
        flags: list[str], message: str) -> None:
    assert _usage_error(tmp_path, monkeypatch, [*command, "--offline", *flags]) == (
        f"tiermem: --offline runs the rule-based policy with no model, and {message}\n")


def _usage_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, argv: list[str]) -> str:
    """What ``argv`` writes on standard error, having been refused as a usage error
    before any agent or scenario memory was made."""
    import contextlib
    import io

    home = tmp_path / "home"
    monkeypatch.setenv("TIERMEM_HOME", str(home))
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        assert main([*argv, "--embedder", "hashing"]) == 2
    assert not home.exists()
    return err.getvalue()


@pytest.mark.parametrize("command", [["chat", "--agent", "ada"], ["scenario", "personal"]])
@pytest.mark.parametrize(("flags", "named"), [
    (["--max-tokens", "100"], "--max-tokens matters"),
    (["--context-window", "8000", "--timeout", "5", "--text-tool-calls", "off"],
     "--context-window, --timeout and --text-tool-calls matter"),
])
def test_a_models_setting_with_no_model_configured_is_refused_saying_how_to_name_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: list[str],
        flags: list[str], named: str) -> None:
    monkeypatch.setenv("TIERMEM_MODEL", "  ")  # exported but blank: no model, as unset
    err = _usage_error(tmp_path, monkeypatch, [*command, *flags])
    dropped = named.rsplit(" ", 1)[0]
    how = ("name one with --model NAME (or TIERMEM_MODEL) and, for a local server, "
           "--base-url URL (or OPENAI_BASE_URL)")
    assert err == (f"tiermem: no model is set, and {named} only to a model: {how}, or drop "
                   f"{dropped} to run offline\n")


@pytest.mark.parametrize("environment", [{"TIERMEM_MODEL": "llama3"},
                                         {"OPENAI_BASE_URL": _SERVER}])
def test_a_model_the_environment_names_takes_its_settings_from_flags(
        monkeypatch: pytest.MonkeyPatch, environment: dict[str, str]) -> None:
    from tiermem.agent.cli_parser import build_parser
    from tiermem.agent.server_options import model_flag_conflict

    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    args = build_parser().parse_args(["chat", "--max-tokens", "100", "--timeout", "5"])
    # A server with no model is refused by the configuration, naming what is missing.
    assert model_flag_conflict(args) is None
