"""An erasure takes no message of the user's it was not asked to: a later statement that
repeats the words erased is named, with the command that erases it too, in the chat and
from `tiermem forget --erase` (memory/ops/erased_copies.py, agent/forget_sources.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_forget_turn import _chat

from tiermem.agent.loop import Agent
from tiermem.agent.offline import OfflinePolicy
from tiermem.cli import run
from tiermem.memory import HashingEmbedder, HierarchicalMemory

SAID = "I live in Berlin."
MOVED = "I moved to Munich. Tom still thinks I live in Berlin."


def _users(m: HierarchicalMemory) -> list[str]:
    return [r["content"] for r in m.recall.iter_rows() if r["role"] == "user"]


def test_the_chats_erasure_keeps_the_users_later_statement_and_names_it(
        tmp_path: Path) -> None:
    with HierarchicalMemory(tmp_path / "agent", embedder=HashingEmbedder()) as m:
        agent = Agent(m, OfflinePolicy())
        _chat(agent, SAID, MOVED, "What is my name?", "I don't know that.")
        out = _chat(agent, f"/forget --erase {SAID}")
        assert _users(m) == [MOVED, "What is my name?", "I don't know that."]
        assert "User moved to Munich" in {f.text for f in m.core.held()}
        assert "your message saying it as well is kept" in out
        assert f"/forget --erase {MOVED}" in out
        out = _chat(agent, f"/forget --erase {MOVED}")
        assert _users(m) == ["What is my name?", "I don't know that."]


def test_the_commands_erasure_names_the_users_later_statement(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("TIERMEM_HOME", str(tmp_path))
    home = tmp_path / "agents" / "ada"
    with HierarchicalMemory(home, embedder=HashingEmbedder()) as m:
        _chat(Agent(m, OfflinePolicy()), SAID, MOVED)
    args = ["forget", "--agent", "ada", "--embedder", "hashing", "--erase"]
    assert run([*args, SAID]) == 0
    err = capsys.readouterr().err
    assert "your message saying it as well is kept" in err
    assert f"tiermem forget --agent ada --erase '{MOVED}'" in err
    with HierarchicalMemory(home, embedder=HashingEmbedder()) as m:
        assert _users(m) == [MOVED]
