"""`tiermem chat` with piped input and output, as scripts use it: streams, exit codes, --json."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
from pathlib import Path

from fake_openai import FakeOpenAIServer
from test_cli import ROOT, cli_env

from tiermem.memory import HashingEmbedder, HierarchicalMemory

LONG_REPLY = ("Here is a single reply sentence that runs on well past eighty columns, so a "
              "terminal-width wrap would split it into several lines of output.")


def chat(home: Path, *args: str, stdin: bytes,
         env: dict[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "cli.py", "chat", "--agent", "a", "--embedder", "hashing", *args],
        cwd=ROOT, env=env or cli_env(home), input=stdin, capture_output=True, check=False)


def model_flags(server: FakeOpenAIServer) -> list[str]:
    return ["--model", "fake-model", "--base-url", server.base_url]


def unreachable_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}/v1"


def test_a_failed_turn_goes_to_stderr_and_the_exit_code(tmp_path: Path) -> None:
    done = chat(tmp_path, "--model", "m", "--base-url", unreachable_url(),
                stdin=b"hello\n/model\n")
    assert done.returncode == 1
    err, out = done.stderr.decode(), done.stdout.decode()
    assert "model error: could not reach" in err
    assert "kept in recall as unanswered; send it again when the model is reachable" in err
    assert "could not reach" not in out and "unanswered" not in out
    assert "model: openai:m" in out  # the session went on after the failed turn


def test_ctrl_c_mid_turn_rolls_back_and_says_so_on_stderr(tmp_path: Path) -> None:
    script = tmp_path / "script.txt"
    script.write_bytes(b"hello\nnever sent\n")
    with FakeOpenAIServer() as server, script.open("rb") as stdin:
        server.enqueue_hold()  # the turn waits on the model until the SIGINT
        process = subprocess.Popen(
            [sys.executable, "cli.py", "chat", "--agent", "a", "--embedder", "hashing",
             *model_flags(server)], cwd=ROOT, env=cli_env(tmp_path), stdin=stdin,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            server.wait_for_requests(1, 120)  # the turn has started: SIGINT lands mid-turn
            process.send_signal(signal.SIGINT)
            out, err = process.communicate(timeout=120)  # only bounds a failure
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
    assert process.returncode == 130
    assert "tiermem: cancelled; your message is kept in recall as unanswered\n" in err.decode()
    assert out == b"" and len(server.requests) == 1
    with HierarchicalMemory(tmp_path / "agents" / "a", embedder=HashingEmbedder(),
                            read_only=True) as memory:
        users = [(r["content"], r["status"]) for r in memory.recall.iter_rows()
                 if r["role"] == "user"]
    assert users == [("hello", "unanswered")]


def test_a_message_too_long_for_the_window_fails_the_run(tmp_path: Path) -> None:
    env = {**cli_env(tmp_path), "TIERMEM_CONTEXT_WINDOW": "4096"}
    with FakeOpenAIServer() as server:
        server.enqueue_reply("short is fine")
        done = chat(tmp_path, *model_flags(server), env=env,
                    stdin=("word " * 5000 + "\nshort\n").encode())
    assert done.returncode == 1
    assert "error: " in done.stderr.decode() and "window is 4096" in done.stderr.decode()
    assert done.stdout.decode().splitlines()[0] == "short is fine"


def test_piped_output_is_not_wrapped_at_80_columns(tmp_path: Path) -> None:
    env = {k: v for k, v in cli_env(tmp_path).items() if k not in ("COLUMNS", "LINES")}
    with FakeOpenAIServer() as server:
        server.enqueue_reply(LONG_REPLY)
        done = chat(tmp_path, *model_flags(server), env=env, stdin=b"hi\n")
    assert done.returncode == 0, done.stderr
    assert LONG_REPLY in done.stdout.decode().splitlines()


def test_json_prints_one_object_per_line_and_nothing_else(tmp_path: Path) -> None:
    with FakeOpenAIServer() as server:
        server.enqueue_tool_calls([("core_memory_append",
                                    json.dumps({"content": "User likes tea",
                                                "request_heartbeat": True}))])
        server.enqueue_reply("Noted: tea.")
        server.enqueue_error(400, {"error": {"message": "no such tool"}})
        done = chat(tmp_path, *model_flags(server), "--json",
                    stdin=b"I like tea\n\n/core\nand coffee?\n/exit\nnever sent\n")
    assert done.returncode == 1
    records = [json.loads(line) for line in done.stdout.decode().splitlines()]
    assert len(records) == 3  # the blank line and /exit print nothing
    first, core, failed = records
    assert first["message"] == "I like tea" and first["reply"] == "Noted: tea."
    assert first["error"] is None and first["notice"] is None
    assert first["memory_changes"] == ["core + User likes tea"]
    assert first["tool_calls"] == [{
        "name": "core_memory_append",
        "arguments": {"content": "User likes tea", "request_heartbeat": True},
        "ok": True, "result": first["tool_calls"][0]["result"], "parsed_from_text": False}]
    assert first["tool_calls"][0]["result"].startswith("core + User likes tea")
    assert first["usage"]["prompt_tokens"] > 0
    assert core["command"] == "/core" and "User likes tea" in core["output"]
    assert core["error"] is None
    assert failed["message"] == "and coffee?" and failed["reply"] is None
    assert failed["error"]["kind"] == "bad_request"
    assert "no such tool" in failed["error"]["message"]
    assert "send it again when the model is reachable" not in failed["error"]["hint"]
    assert "model error:" in done.stderr.decode()


def test_input_that_is_not_utf8_is_sent_with_replacements_and_said(tmp_path: Path) -> None:
    done = chat(tmp_path, "--offline", stdin=b"caf\xe9 latte is my order\n")
    assert done.returncode == 0, done.stderr
    assert b"Traceback" not in done.stderr
    assert "line 1 of the input is not valid UTF-8" in done.stderr.decode()
    with HierarchicalMemory(tmp_path / "agents" / "a", embedder=HashingEmbedder(),
                            read_only=True) as memory:
        users = [r["content"] for r in memory.recall.iter_rows() if r["role"] == "user"]
    assert users == ["caf\ufffd latte is my order"]


def test_core_piped_prints_its_title_as_it_is(tmp_path: Path) -> None:
    done = chat(tmp_path, "--offline", stdin=b"I like tea\n/core\n")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.decode().splitlines()
    # Not centred over the table in the spaces of an 80-column line a program must strip.
    title = next(line for line in lines if line.strip().startswith("core ")
                 and line.strip().endswith(" tokens"))
    assert title == title.strip(), lines
