"""``--offline`` with ``--model``, ``--base-url`` or a flag only a model reads (chat,
scenario): a usage error that says which flags to drop, before anything is opened; one of the
two would else be ignored without a word. A model configured in the environment, and its
settings, are what ``--offline`` is for."""

from __future__ import annotations

from pathlib import Path

import pytest

from tiermem.cli import main
from tiermem.memory import HashingEmbedder, HierarchicalMemory

_SERVER = "http://127.0.0.1:9/v1"


def test_offline_beats_a_model_and_settings_the_environment_configures(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    import io
    import sys

    monkeypatch.setenv("TIERMEM_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("TIERMEM_MODEL", "llama3")
    monkeypatch.setenv("OPENAI_BASE_URL", _SERVER)
    # The model's settings the environment gives are overridden with it, as silently.
    for name, value in (("TIERMEM_CONTEXT_WINDOW", "8000"), ("TIERMEM_TIMEOUT", "5"),
                        ("TIERMEM_MAX_TOKENS", "100"), ("TIERMEM_TEXT_TOOL_CALLS", "off")):
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"I live in Lisbon.\n")))
    assert main(["chat", "--agent", "ada", "--offline", "--embedder", "hashing"]) == 0
    assert "--offline" not in capsys.readouterr().err
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
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        command: list[str], flags: list[str], message: str) -> None:
    home = tmp_path / "home"
    monkeypatch.setenv("TIERMEM_HOME", str(home))
    assert main([*command, "--offline", *flags, "--embedder", "hashing"]) == 2
    assert capsys.readouterr().err == (
        f"tiermem: --offline runs the rule-based policy with no model, and {message}\n")
    assert not home.exists()  # refused before any agent or scenario memory was made

