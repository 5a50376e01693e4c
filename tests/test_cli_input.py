"""Standard input that is endless, huge or closed: read bounded, refused in one line."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from memory_helpers import make_memory
from rich.console import Console
from test_cli import ROOT, cli_env, tiermem

from tiermem.agent.line_input import OverlongLine, decoded_lines
from tiermem.agent.loop import Agent
from tiermem.agent.offline import OfflinePolicy
from tiermem.agent.repl import ChatRepl
from tiermem.cli import run
from tiermem.memory import HierarchicalMemory
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


def run_json_chat(memory: HierarchicalMemory, stream: io.RawIOBase
                  ) -> tuple[list[dict[str, Any]], io.StringIO]:
    """The --json records of a piped offline chat reading ``stream``, which must fail, and
    its standard error."""
    out, errors = io.StringIO(), io.StringIO()
    repl = ChatRepl(Agent(memory, OfflinePolicy()), console=Console(file=out, width=200),
                    errors=errors, json_lines=True)
    assert repl.run_piped(decoded_lines(io.BufferedReader(stream), errors)) == 1
    return [json.loads(line) for line in out.getvalue().splitlines()], errors


def test_a_huge_piped_line_is_one_failed_turn_and_the_next_line_is_answered() -> None:
    stream = CountingStream(FIVE_MB, tail=b"\nI am allergic to peanuts.\n")
    with make_memory() as memory:
        records, errors = run_json_chat(memory, stream)
        refused, answered = records
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
    assert ("the request on standard input is over 200,000 characters, longer than any "
            "stored text" in capsys.readouterr().err)
    assert stream.handed < MAX_TEXT_CHARS + 64 * 1024
    for empty in ("", "  "):
        assert run(["forget", "--agent", "ada", "--embedder", "hashing", empty]) == 2
        assert "forget request is empty" in capsys.readouterr().err
    with make_memory(tmp_path / "agents" / "ada") as memory:
        assert [f.text for f in memory.facts()] == ["User's card number is 4111"]


def test_forget_dash_takes_a_message_as_long_as_chat_stores(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    # A chat keeps messages up to 200,000 characters; exact matching compares whole texts,
    # so the whole of such a message must be a request `forget -` takes.
    monkeypatch.setenv("TIERMEM_HOME", str(tmp_path))
    text = " ".join(f"word{i}" for i in range(1600)) + "."
    assert 10_000 < len(text) < MAX_TEXT_CHARS
    for command in (["chat", "--agent", "ada", "--offline"], ["forget", "--agent", "ada", "-"]):
        stdin = io.TextIOWrapper(io.BytesIO(f"{text}\n".encode()))
        monkeypatch.setattr(sys, "stdin", stdin)
        assert run([*command, "--embedder", "hashing"]) == 0, capsys.readouterr().err
    assert capsys.readouterr().out.endswith(" 2 messages (audit #1)\n")
    with make_memory(tmp_path / "agents" / "ada", read_only=True) as memory:
        assert memory.recall_search("word1599", k=5).hits == []
        assert [r.outcome for r in memory.forget_requests()] == ["matched"]

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


# -- descriptors closed for real, in a process of their own ---------------------------------
#: ``tiermem ARGS``, then what descriptor 0 holds once the command is done: what a read and a
#: child process find there, and the descriptor the next file opened takes.
PROBE = """
import os, subprocess, sys
from tiermem.cli import main
code = main(sys.argv[1:])
try:
    read = repr(os.read(0, 16))
except OSError as exc:
    read = exc.strerror
child = subprocess.run([sys.executable, "-c", "import sys; print(sys.stdin.read() == '')"],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
print(f"read {read}; child read nothing: {child.stdout.strip() or child.returncode}")
print(f"next file {os.open(os.devnull, os.O_RDONLY)}")
sys.exit(code)
"""


def closed(home: Path, redirect: str, *args: str,
           program: tuple[str, ...] = ("cli.py",)) -> subprocess.CompletedProcess[str]:
    """``python PROGRAM ARGS`` run with ``redirect`` (e.g. `<&-`): closed, not /dev/null."""
    return subprocess.run(["sh", "-c", f'exec "$@" {redirect}', "sh", sys.executable, *program,
                           *args], cwd=ROOT, env=cli_env(home), capture_output=True, text=True,
                          check=False)


def test_with_stdin_closed_no_file_a_command_opens_becomes_standard_input(
        tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert tiermem(home, "chat", "--offline", "--agent", "a", "--embedder", "hashing",
                   stdin="I am allergic to peanuts.\n").returncode == 0
    probe = ("-c", PROBE)
    # forget opens the agent home's writer lock, which took the free descriptor 0.
    done = closed(home, "<&-", "forget", "--agent", "a", "--embedder", "hashing",
                  "no such text", program=probe)
    assert done.returncode == 1 and "nothing forgotten: unmatched" in done.stdout, done.stderr
    said = done.stdout.splitlines()[-2:]
    assert said[0] == "read b''; child read nothing: True", said
    assert int(said[1].removeprefix("next file ")) > 2, said
    # With standard error closed too, its /dev/null (write-only) must not land on 0.
    done = closed(home, "<&- 2>&-", "config", "--agent", "nope", program=probe)
    assert done.returncode == 2
    assert done.stdout.splitlines()[0] == "read b''; child read nothing: True", done.stdout


def test_with_stdin_or_stdout_closed_the_commands_that_need_them_still_refuse(
        tmp_path: Path) -> None:
    home = tmp_path / "home"
    for redirect in ("<&-", "<&- 2>&-"):
        for args in (("chat", "--offline", "--embedder", "hashing"),
                     ("chat", "--offline", "--embedder", "hashing", "--json"),
                     ("forget", "--embedder", "hashing", "-")):
            done = closed(home, redirect, *args)
            assert done.returncode == 2, (redirect, args, done.stderr)
            assert done.stdout == "" and "Traceback" not in done.stderr, (redirect, args)
            if "2>&-" not in redirect:
                assert done.stderr.startswith("tiermem: standard input is closed; "), args
    for redirect in (">&-", ">&- 2>&-", "<&- >&- 2>&-"):
        done = closed(home, redirect, "config")
        assert done.returncode == 2, (redirect, done.stderr)
        if "2>&-" not in redirect:
            assert done.stderr.startswith("tiermem: standard output is closed; ")
    assert not (home / "agents").exists()  # each was refused before any agent was made


def test_a_huge_piped_slash_command_is_a_failed_command_not_a_message_to_split() -> None:
    # It was refused as a message, "split it into smaller messages", and under --json
    # recorded as a turn: a /forget or /archival split in pieces is another command.
    stream = io.BytesIO(b"/forget " + b"x" * (MAX_TEXT_CHARS + 10) + b"\n/model\n")
    with make_memory() as memory:
        (refused, model), errors = run_json_chat(memory, stream)
        assert memory.forget_requests() == []
    said = ("line 1 of the input is over 200,000 characters, the longest line the chat "
            "reads, and /forget was not run")
    assert refused == {"command": "/forget", "output": "",
                       "error": {"kind": "invalid_input", "message": said}}
    assert model["command"] == "/model" and model["error"] is None
    assert errors.getvalue() == f"error: {said}\n"


def test_an_overlong_lines_bytes_that_are_not_utf8_are_recorded_as_u_fffd() -> None:
    # Its start was kept with the bad byte as a lone surrogate, which the --json record of
    # the command ("/for\udcffget") or message carried: no UTF-8 text holds one.
    stream = io.BytesIO(b"/for\xffget " + b"x" * MAX_TEXT_CHARS + b"\n\xfeI" + b"y" *
                        MAX_TEXT_CHARS + b"\n")
    with make_memory() as memory:
        (command, message), _ = run_json_chat(memory, stream)
    assert command["command"] == "/for\ufffdget"
    assert message["message"].startswith("\ufffdIyyy")
    assert "\\ud" not in json.dumps([command, message])


def test_an_overlong_slash_command_after_leading_spaces_is_a_failed_command() -> None:
    # Its first 80 characters were the spaces: refused as a message "split it into smaller
    # messages", recorded with a blank message, though a short line so indented is a command.
    stream = io.BytesIO(b" " * 100 + b"/forget " + b"x" * MAX_TEXT_CHARS + b"\n/model\n")
    with make_memory() as memory:
        (refused, model), _ = run_json_chat(memory, stream)
    assert refused["command"] == "/forget" and model["command"] == "/model"
    assert refused["error"]["message"].endswith("and /forget was not run")


def test_an_overlong_slash_command_after_a_byte_order_mark_is_a_failed_command() -> None:
    # Refused as a message "split it into smaller messages" and recorded as a turn, though
    # a short line after a byte order mark is a command.
    stream = io.BytesIO(b"\xef\xbb\xbf/forget " + b"x" * MAX_TEXT_CHARS + b"\n/model\n")
    with make_memory() as memory:
        (refused, model), _ = run_json_chat(memory, stream)
    assert refused["command"] == "/forget" and model["command"] == "/model"
    assert refused["error"]["message"].endswith("and /forget was not run")


def test_an_overlong_slash_command_is_named_as_a_short_one_is() -> None:
    # "/FORGET <huge>" was recorded and refused as "/FORGET", while a short "/FORGET X" is
    # recorded as "/forget"; an unknown command stays as typed in both.
    stream = io.BytesIO(b"/FORGET " + b"x" * MAX_TEXT_CHARS + b"\n/Frobnicate "
                        + b"x" * MAX_TEXT_CHARS + b"\n/FORGET x\n")
    with make_memory() as memory:
        records, _ = run_json_chat(memory, stream)
    assert [r["command"] for r in records] == ["/forget", "/Frobnicate", "/forget"]
    assert records[0]["error"]["message"].endswith("and /forget was not run")


def test_a_line_only_blanks_take_past_the_limit_is_read_without_them() -> None:
    # "/exit" and 200,000 spaces was refused, "/exit was not run", and the chat went on,
    # though "/exit   " leaves: the chat reads a line without its blanks.
    blanks = b" \t" * (MAX_TEXT_CHARS // 2 + 5)
    stream = io.BytesIO(b"/exit" + blanks + b"\n" + b"x" + blanks + b"y\nnext\n")
    lines = list(decoded_lines(stream, io.StringIO()))
    assert lines[0] == "/exit" and lines[2] == "next\n"
    assert isinstance(lines[1], OverlongLine) and lines[1].start == "x" + " \t" * 39 + " "
    with make_memory() as memory:
        out, errors = io.StringIO(), io.StringIO()
        repl = ChatRepl(Agent(memory, OfflinePolicy()), console=Console(file=out, width=200),
                        errors=errors, json_lines=True)
        piped = io.BytesIO(b"/exit" + blanks + b"\n/model\n")
        assert repl.run_piped(decoded_lines(io.BufferedReader(piped), errors)) == 0
    assert out.getvalue() == errors.getvalue() == ""  # it left: /model was not run


def test_an_overlong_commands_first_word_cut_short_is_named_with_an_ellipsis() -> None:
    # It was named by its first 80 characters, with no sign that it went on.
    stream = io.BytesIO(b"/" + b"x" * 100 + b" " + b"y" * MAX_TEXT_CHARS + b"\n/" +
                        b"z" * 79 + b" " + b"w" * MAX_TEXT_CHARS + b"\n")
    with make_memory() as memory:
        (cut, whole), errors = run_json_chat(memory, stream)
    assert cut["command"] == "/" + "x" * 79 + "…" and whole["command"] == "/" + "z" * 79
    assert f"and /{'x' * 79}… was not run\n" in errors.getvalue()


def test_blank_and_invisible_lines_are_no_turns_and_a_marked_exit_leaves() -> None:
    # A line of a zero-width space or a byte order mark was sent as a turn, and "/exit"
    # after a byte order mark (a script an editor saved with one) was a message.
    blank = b"\n \t\r\n" * 125_000 + "\u200b\n \ufeff\u2060 \n".encode()
    stream = io.BytesIO(blank + "I am allergic to peanuts.\u200b\n\ufeff/exit\nnot sent\n".encode())
    with make_memory() as memory:
        out, errors = io.StringIO(), io.StringIO()
        agent = Agent(memory, OfflinePolicy())
        steps: list[str] = []
        step = agent.step
        agent.step = lambda text: steps.append(text) or step(text)  # type: ignore[method-assign]
        repl = ChatRepl(agent, console=Console(file=out, width=200), errors=errors,
                        json_lines=True)
        assert repl.run_piped(decoded_lines(io.BufferedReader(stream), errors)) == 0
        users = [r["content"] for r in memory.recall.iter_rows() if r["role"] == "user"]
    assert steps == users == ["I am allergic to peanuts."]  # 250,002 blank lines: no turn
    assert errors.getvalue() == "" and len(out.getvalue().splitlines()) == 1
