"""The command line, run as a separate process the way a user runs it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from fake_openai import FakeOpenAIServer

from tiermem.memory import HashingEmbedder, HierarchicalMemory

ROOT = Path(__file__).resolve().parent.parent


def cli_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "TIERMEM_MODEL")}
    env.update(TIERMEM_HOME=str(home), HF_HUB_OFFLINE="1", PYTHONIOENCODING="utf-8",
               COLUMNS="200")
    return env


def tiermem(home: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "cli.py", *args], cwd=ROOT, env=cli_env(home), input=stdin,
        capture_output=True, text=True, check=False,
    )


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


def test_help_prints_the_skill_card(home: Path) -> None:
    skill = (ROOT / "SKILL.md").read_text(encoding="utf-8")
    heading = next(line for line in skill.splitlines() if line.startswith("# "))
    for flag in ("--help", "-h"):
        done = tiermem(home, flag)
        assert done.returncode == 0, done.stderr
        assert heading in done.stdout.splitlines()
        assert "chat" in done.stdout and "diagnostics" in done.stdout


def test_memory_persists_across_chat_sessions(home: Path) -> None:
    first = tiermem(home, "chat", "--agent", "a", "--embedder", "hashing",
                    stdin="I am allergic to peanuts.\nMy name is Ada.\n")
    assert first.returncode == 0, first.stderr
    assert "core + User is allergic to peanuts" in first.stdout
    assert (home / "agents" / "a" / "memory.sqlite3").exists()

    second = tiermem(home, "chat", "--agent", "a", "--embedder", "hashing",
                     stdin="What am I allergic to?\n/exit\n")
    assert second.returncode == 0, second.stderr
    assert "(offline, quoting memory)" in second.stdout
    assert "From core memory: User is allergic to peanuts" in second.stdout

    other = tiermem(home, "chat", "--agent", "b", "--embedder", "hashing",
                    stdin="What am I allergic to?\n")
    assert other.returncode == 0, other.stderr
    assert "peanuts" not in other.stdout  # agents do not share memory


@pytest.mark.parametrize("name", ["../x", "a/b", ".hidden", ""])
def test_invalid_agent_names_are_refused(home: Path, name: str) -> None:
    done = tiermem(home, "chat", "--agent", name, "--embedder", "hashing", stdin="hello\n")
    assert done.returncode != 0
    assert "invalid agent name" in done.stderr
    assert "Traceback" not in done.stderr
    assert not home.exists() or not any(home.rglob("memory.sqlite3"))


def test_diagnostics_as_json(home: Path) -> None:
    assert tiermem(home, "chat", "--agent", "a", "--embedder", "hashing",
                   stdin="I am allergic to peanuts.\n").returncode == 0
    done = tiermem(home, "diagnostics", "--agent", "a", "--format", "json",
                   "--embedder", "hashing")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    with HierarchicalMemory(home / "agents" / "a", embedder=HashingEmbedder()) as memory:
        assert report == json.loads(json.dumps(memory.diagnostics(), default=str))
    assert report["core"]["facts"] == 1
    assert report["interactions"] == 1
    assert report["red_flags"] == []  # one durable fact in a roomy core: nothing to flag


def test_diagnostics_of_a_missing_agent_says_how_to_create_it(home: Path) -> None:
    done = tiermem(home, "diagnostics", "--agent", "nobody", "--embedder", "hashing")
    assert done.returncode == 2
    assert "tiermem chat --agent nobody" in done.stderr


def test_a_second_writer_is_refused_with_the_holders_pid(home: Path) -> None:
    args = [sys.executable, "cli.py", "chat", "--agent", "a", "--embedder", "hashing"]
    holder = subprocess.Popen(args, cwd=ROOT, env=cli_env(home), stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        # The chat answers /help only after its memory is open, so by then it holds the lock.
        assert holder.stdin is not None and holder.stdout is not None
        holder.stdin.write("/help\n")
        holder.stdin.flush()
        assert holder.stdout.readline() == "Commands:\n", holder.communicate()
        lock = home / "agents" / "a" / "writer.lock"
        assert lock.read_text().strip() == str(holder.pid)
        second = tiermem(home, "chat", "--agent", "a", "--embedder", "hashing", stdin="hi\n")
        assert second.returncode != 0
        assert f"process {holder.pid}" in second.stderr
        assert "Traceback" not in second.stderr
    finally:
        _, err = holder.communicate("/exit\n")
    assert holder.returncode == 0, err
    # Once the holder has gone, the agent can be opened again.
    assert tiermem(home, "chat", "--agent", "a", "--embedder", "hashing",
                   stdin="hello\n").returncode == 0


def test_chat_against_an_openai_compatible_server(home: Path) -> None:
    with FakeOpenAIServer() as server:
        server.enqueue_tool_calls([("core_memory_append",
                                    json.dumps({"content": "User likes tea",
                                                "request_heartbeat": True}))],
                                  usage=(120, 8))
        server.enqueue_reply("I will remember that you like tea.", usage=(150, 9))
        done = tiermem(home, "chat", "--agent", "a", "--embedder", "hashing", "--model",
                       "fake-model", "--base-url", server.base_url, stdin="I like tea\n")
        assert done.returncode == 0, done.stderr
        assert len(server.requests) == 2 and server.requests[0]["model"] == "fake-model"
    assert "core + User likes tea" in done.stdout
    assert "I will remember that you like tea." in done.stdout
    assert "tokens: 270 in, 17 out" in done.stdout


def test_a_base_url_without_a_model_is_a_clear_error(home: Path) -> None:
    done = tiermem(home, "chat", "--agent", "a", "--embedder", "hashing", "--base-url",
                   "http://127.0.0.1:9/v1", stdin="hello\n")
    assert done.returncode == 2  # a usage error, as the README's exit code table says
    assert "no model" in done.stderr and "--model" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize(("args", "env", "said"), [
    (("chat", "--model", "m", "--base-url", "ftp://x"), {}, "not an http(s) URL"),
    (("chat", "--model", "m", "--base-url", "http://127.0.0.1:9/v1", "--context-window",
      "4096", "--max-tokens", "3000"), {}, "less than half"),
    (("chat", "--model", "m", "--base-url", "http://127.0.0.1:9/v1"),
     {"TIERMEM_MAX_TOKENS": "lots"}, "TIERMEM_MAX_TOKENS='lots'"),
    (("chat", "--model", "gpt-4o-mini"), {}, "OPENAI_API_KEY"),
    (("forget", "--agent", "a", "--mode", "top_k_llm", "--base-url", "ftp://x", "card"), {},
     "not an http(s) URL"),
    (("scenario", "changing-facts", "--base-url", "ftp://x"), {}, "not an http(s) URL"),
    (("chat", "--model", "m", "--base-url", "http://localhost:port/v1"), {}, "not a valid URL"),
    (("chat",), {"OPENAI_BASE_URL": "http://[::1", "TIERMEM_MODEL": "m"}, "not a valid URL"),
    (("scenario", "changing-facts", "--base-url", "http://[::1", "--model", "m"), {},
     "not a valid URL"),
    (("doctor", "--base-url", "http://[zz]/v1"), {}, "not a valid URL"),
])
def test_a_model_configuration_that_cannot_work_is_a_usage_error(
        home: Path, args: tuple[str, ...], env: dict[str, str], said: str) -> None:
    # Refused before any request is sent (port 9 is never asked) and before a turn runs.
    seeded = tiermem(home, "chat", "--agent", "a", "--embedder", "hashing", stdin="hi\n")
    assert seeded.returncode == 0, seeded.stderr
    done = subprocess.run([sys.executable, "cli.py", *args], cwd=ROOT,
                          env={**cli_env(home), **env}, input="hello\n", capture_output=True,
                          text=True, check=False)
    assert done.returncode == 2, done.stderr
    assert said in done.stderr and "Traceback" not in done.stderr


@pytest.mark.slow
def test_chat_with_the_default_local_embedder(home: Path) -> None:
    first = tiermem(home, "chat", "--agent", "local", stdin="My dog is called Rex.\n")
    assert first.returncode == 0, first.stderr
    second = tiermem(home, "chat", "--agent", "local", stdin="What is my dog called?\n")
    assert second.returncode == 0, second.stderr
    assert "Rex" in second.stdout
    assert "(offline" in second.stdout


@pytest.mark.parametrize("value", ["0", "-5", "lots"])
def test_a_bad_core_limit_is_a_usage_error(home: Path, value: str) -> None:
    done = tiermem(home, "chat", "--agent", "a", "--embedder", "hashing", "--core-limit", value,
                   stdin="hello\n")
    assert done.returncode == 2
    assert "--core-limit" in done.stderr and "Traceback" not in done.stderr


def test_a_full_disk_behind_standard_output_is_reported_not_a_traceback(home: Path) -> None:
    seeded = tiermem(home, "chat", "--agent", "a", "--embedder", "hashing", stdin="hi\n")
    assert seeded.returncode == 0, seeded.stderr
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "cli.py", "diagnostics", "--agent", "a"],
                              cwd=ROOT, env=cli_env(home), stdout=full, stderr=subprocess.PIPE,
                              text=True, check=False)
    assert done.returncode == 74
    assert "cannot write standard output: No space left on device" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("lines", ["I own a car.\nWhat do I own?\n", "/core\nI own a car.\n"])
def test_a_chat_whose_output_cannot_be_written_stops_saying_so(home: Path, lines: str) -> None:
    # A turn's or a slash command's output lost is no defect of the turn, and the session
    # cannot go on without its output.
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "cli.py", "chat", "--agent", "a", "--embedder",
                               "hashing"], cwd=ROOT, env=cli_env(home), input=lines,
                              stdout=full, stderr=subprocess.PIPE, text=True, check=False)
    assert done.returncode == 74, done.stderr
    assert done.stderr.count("cannot write standard output: No space left on device") == 1
    assert "internal error" not in done.stderr and "Traceback" not in done.stderr


def test_only_the_failed_write_is_reported_as_one(monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    import contextlib
    import errno

    import tiermem.cli as cli

    class FullStream:
        def write(self, text: str) -> int:
            raise OSError(errno.ENOSPC, "No space left on device")

        def flush(self) -> None:
            pass

    def swallowed_then_other(argv: list[str]) -> int:
        with contextlib.suppress(OSError):
            print("a note")  # a write the command chose to lose
        raise OSError(errno.EIO, "the database file went away")

    monkeypatch.setattr(cli, "run", swallowed_then_other)
    monkeypatch.setattr(sys, "stdout", FullStream())
    with pytest.raises(OSError, match="database file went away"):
        cli.main(["diagnostics"])
    monkeypatch.setattr(cli, "run", lambda argv: print("the report") or 0)
    assert cli.main(["diagnostics"]) == 74
    assert "cannot write standard output: No space left on device" in capsys.readouterr().err

