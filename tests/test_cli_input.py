"""Standard input that is endless, huge or closed: read bounded, refused in one line."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest
from memory_helpers import make_memory
from rich.console import Console

from tiermem.agent.line_input import OverlongLine, decoded_lines
from tiermem.agent.loop import Agent
from tiermem.agent.offline import OfflinePolicy
from tiermem.agent.repl import ChatRepl
from tiermem.cli import run
from tiermem.memory.validation import MAX_TEXT_CHARS

FIVE_MB = 5_000_000


class CountingStream(io.RawIOBase):
    """``size`` bytes of ``fill`` (endless when None) then ``tail``; counts what is read."""

    def __init__(self, size: int | None, fill: bytes = b"x", tail: bytes = b"") -> None:
        self.left, self.fill, self.tail = size, fill, tail
        self.handed = 0
        self.largest_request = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        self.largest_request = max(self.largest_request, len(buffer))
        n = len(buffer) if self.left is None else min(len(buffer), self.left)
        chunk = self.fill * n
        if self.left is not None:
            self.left -= n
            if n == 0:
                chunk, self.tail = self.tail[:len(buffer)], self.tail[len(buffer):]
        buffer[:len(chunk)] = chunk
        self.handed += len(chunk)
        return len(chunk)


def test_a_line_without_end_is_refused_after_reading_about_the_limit() -> None:
    zeros = CountingStream(None, fill=b"\0")  # `< /dev/zero`: no newline, ever
    lines = decoded_lines(io.BufferedReader(zeros), io.StringIO())
    first = next(lines)
    assert isinstance(first, OverlongLine) and first.number == 1
    assert "over 200,000 characters" in first.message and "split it" in first.message
    # Refused once the limit was passed, not once the line ended (it never does).
    assert zeros.handed < MAX_TEXT_CHARS + 64 * 1024
    assert zeros.largest_request <= 64 * 1024


def test_a_huge_piped_line_is_one_failed_turn_and_the_next_line_is_answered() -> None:
    stream = CountingStream(FIVE_MB, tail=b"\nI am allergic to peanuts.\n")
    with make_memory() as memory:
        out, errors = io.StringIO(), io.StringIO()
        repl = ChatRepl(Agent(memory, OfflinePolicy()), console=Console(file=out, width=200),
                        errors=errors, json_lines=True)
        assert repl.run_piped(decoded_lines(io.BufferedReader(stream), errors)) == 1
        refused, answered = (json.loads(line) for line in out.getvalue().splitlines())
        assert [f.text for f in memory.core] == ["User is allergic to peanuts"]
        users = [r["content"] for r in memory.recall.iter_rows() if r["role"] == "user"]
        assert users == ["I am allergic to peanuts."]  # the huge line was never stored
    assert stream.largest_request <= 64 * 1024
    assert refused["error"]["kind"] == "invalid_input" and refused["reply"] is None
    assert refused["message"] == "x" * 80
    assert "line 1 of the input is over 200,000 characters" in errors.getvalue()
    assert answered["error"] is None and "peanuts" in answered["reply"]


def test_a_line_at_the_limit_is_still_a_message() -> None:
    text = "word " * (MAX_TEXT_CHARS // 5)
    lines = list(decoded_lines(io.BytesIO(text.encode() + b"\r\nnext\n"), io.StringIO()))
    assert lines == [text + "\r\n", "next\n"]


def test_forget_dash_reads_standard_input_bounded(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("TIERMEM_HOME", str(tmp_path))
    with make_memory(tmp_path / "agents" / "ada") as memory:
        memory.add_fact("User's card number is 4111")
    stream = CountingStream(None)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BufferedReader(stream)))
    assert run(["forget", "--agent", "ada", "--embedder", "hashing", "-"]) == 2
    assert "over 10,000 characters" in capsys.readouterr().err
    assert stream.handed < 64 * 1024
    for empty in ("", "  "):
        assert run(["forget", "--agent", "ada", "--embedder", "hashing", empty]) == 2
        assert "forget request is empty" in capsys.readouterr().err
    with make_memory(tmp_path / "agents" / "ada") as memory:
        assert [f.text for f in memory.facts()] == ["User's card number is 4111"]


def test_closed_standard_streams_are_one_line_usage_errors(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from tiermem.cli import main

    monkeypatch.setenv("TIERMEM_HOME", str(tmp_path))
    monkeypatch.setattr(sys, "stdin", None)  # `<&-`
    for json_flag in ([], ["--json"]):
        assert main(["chat", "--offline", "--embedder", "hashing", *json_flag]) == 2
        assert capsys.readouterr().err == (
            "tiermem: standard input is closed; pipe the messages to `tiermem chat`, or run "
            "it in a terminal\n")
    assert run(["forget", "--embedder", "hashing", "-"]) == 2
    assert "standard input is closed" in capsys.readouterr().err
    assert not (tmp_path / "agents").exists()  # refused before any agent was made
    monkeypatch.setattr(sys, "stdout", None)  # `>&-`
    assert main(["config"]) == 2
    assert "standard output is closed" in capsys.readouterr().err
