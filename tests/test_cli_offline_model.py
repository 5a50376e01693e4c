"""``--offline`` with ``--model`` or ``--base-url`` (chat, scenario): a usage error that says
which flag to drop, before anything is opened; one of the two would else be ignored without a
word. A model configured in the environment is what ``--offline`` is for."""

from __future__ import annotations

from pathlib import Path

import pytest

from tiermem.cli import main
from tiermem.memory import HashingEmbedder, HierarchicalMemory

_SERVER = "http://127.0.0.1:9/v1"


@pytest.mark.parametrize("command", [["chat", "--agent", "ada"], ["scenario", "personal"]])
@pytest.mark.parametrize(("flags", "named"), [
    (["--model", "llama3"], "--model names"),
    (["--base-url", _SERVER], "--base-url names"),
    (["--model", "llama3", "--base-url", _SERVER], "--model and --base-url name"),
])
def test_offline_with_a_model_flag_is_refused_saying_which_to_drop(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        command: list[str], flags: list[str], named: str) -> None:
    home = tmp_path / "home"
    monkeypatch.setenv("TIERMEM_HOME", str(home))
    assert main([*command, "--offline", *flags, "--embedder", "hashing"]) == 2
    dropped = named.rsplit(" ", 1)[0]
    assert capsys.readouterr().err == (
        f"tiermem: --offline runs the rule-based policy with no model, and {named} one: drop "
        f"{dropped} to run offline, or drop --offline to use the model\n")
    assert not home.exists()  # refused before any agent or scenario memory was made


def test_offline_beats_a_model_the_environment_configures(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    import io
    import sys

    monkeypatch.setenv("TIERMEM_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("TIERMEM_MODEL", "llama3")
    monkeypatch.setenv("OPENAI_BASE_URL", _SERVER)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"I live in Lisbon.\n")))
    assert main(["chat", "--agent", "ada", "--offline", "--embedder", "hashing"]) == 0
    assert "--offline" not in capsys.readouterr().err
    # The offline policy stored what it read; the server named was never asked.
    with HierarchicalMemory(tmp_path / "home" / "agents" / "ada", embedder=HashingEmbedder(),
                            read_only=True) as memory:
        assert any("Lisbon" in fact.text for fact in memory.core)
