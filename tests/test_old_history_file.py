"""An older version's history file that a chat with --no-history leaves in place loses what
a forget or an erasure takes out of the prompt history (agent/old_history.py)."""

from __future__ import annotations

import io
import os
import stat
from pathlib import Path

import pytest

from tests.test_chat_history import run_chat
from tiermem.agent.chat_history import chat_history
from tiermem.agent.llm import LLMClient
from tiermem.agent.scripted import ScriptedModel, call
from tiermem.memory import HashingEmbedder, HierarchicalMemory

OLD = (b"\n# 2024-01-01 10:00:00\n+my PIN is 8675309\n"
       b"\n# 2024-01-01 10:01:00\n+/recall PIN 8675309\n"
       b"\n# 2024-01-01 10:02:00\n+caf\xe9 \xff bytes\n+on two lines\n"
       b"\n# 2024-01-01 10:03:00\n+hello there\n")
KEPT = (b"\n# 2024-01-01 10:02:00\n+caf\xe9 \xff bytes\n+on two lines\n"
        b"\n# 2024-01-01 10:03:00\n+hello there\n")


def chat_beside_old_file(tmp_path: Path, keys: str,
                         llm: LLMClient | None = None) -> tuple[Path, str]:
    home = tmp_path / "agent"
    home.mkdir()
    old = home / "history"
    old.write_bytes(OLD)
    old.chmod(0o640)
    with HierarchicalMemory(home, embedder=HashingEmbedder()) as memory:
        history = chat_history(home, memory.prompt_history, False, io.StringIO())
        out = run_chat(memory, history, keys, llm=llm)
        assert memory.prompt_history.lines() == []  # --no-history still keeps nothing
    return old, out


def test_an_erasure_takes_its_lines_out_of_an_old_history_file_left_in_place(
        tmp_path: Path) -> None:
    old, out = chat_beside_old_file(
        tmp_path, "my PIN is 8675309\r/forget --erase my PIN is 8675309\r\x04")
    assert "erased: 1 fact" in out
    assert f"took 2 lines out of {old}" in out
    # The rest of the file is as it was, bytes that are not UTF-8 included, and its mode.
    assert old.read_bytes() == KEPT
    assert stat.S_IMODE(old.stat().st_mode) == 0o640
    assert [p.name for p in old.parent.iterdir() if p.name.startswith(".history")] == []


def test_an_old_history_file_that_cannot_be_written_is_named_to_delete(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object) -> None:
        raise OSError(30, "Read-only file system")

    monkeypatch.setattr(os, "replace", refuse)
    old, out = chat_beside_old_file(
        tmp_path, "my PIN is 8675309\r/forget --erase my PIN is 8675309\r\x04")
    assert "erased: 1 fact" in out
    said = " ".join(out.split())
    assert f"{old}, an older version's plain-text prompt history, may still hold what was " \
           "forgotten: it could not be written again (Read-only file system); delete it" in said
    assert old.read_bytes() == OLD
    assert [p.name for p in old.parent.iterdir() if p.name.startswith(".history")] == []


def test_a_forget_that_matches_no_line_of_the_old_file_leaves_it_and_says_nothing_of_it(
        tmp_path: Path) -> None:
    old, out = chat_beside_old_file(tmp_path, "I like tea\r/forget --erase I like tea\r\x04")
    assert "erased:" in out and "history," not in out and "out of" not in out
    assert old.read_bytes() == OLD


def test_history_clear_empties_an_old_history_file_left_in_place(tmp_path: Path) -> None:
    old, out = chat_beside_old_file(tmp_path, "/core\r/history clear\r\x04")
    said = " ".join(out.split())
    assert "erased 1 line of prompt history" in said
    assert f"took 4 lines out of {old}" in said
    assert old.read_bytes() == b"" and stat.S_IMODE(old.stat().st_mode) == 0o640


def test_the_models_forget_call_says_at_once_what_it_took_out_of_an_old_history_file(
        tmp_path: Path) -> None:
    with ScriptedModel([call("send_message", message="Noted."),
                        call("forget", request="my PIN is 8675309", request_heartbeat=True),
                        call("send_message", message="Forgotten."),
                        call("send_message", message="Hello.")]) as model:
        old, out = chat_beside_old_file(
            tmp_path, "my PIN is 8675309\rForget my PIN\rhello\r\x04", model)
    said = " ".join(out.split())
    # Told after the turn that took them, not after a later /forget or /history clear.
    assert f"Forgotten. took 2 lines out of {old}, an older version's plain-text prompt " \
           "history Hello." in said
    assert said.count("took 2 lines") == 1
    assert old.read_bytes() == KEPT
