"""Command output: report files checked before the work, JSON on demand, closed pipes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from fake_openai import FakeOpenAIServer
from test_cli import ROOT, cli_env, tiermem


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


def make_agent(home: Path, name: str = "a") -> None:
    done = tiermem(home, "chat", "--agent", name, "--embedder", "hashing",
                   stdin="I am allergic to peanuts.\n")
    assert done.returncode == 0, done.stderr


# -- every command, before its work --------------------------------------------------------
def test_an_unwritable_output_fails_before_the_work_in_every_command(
        home: Path, tmp_path: Path) -> None:
    make_agent(home)
    bad = str(tmp_path / "no-such-dir" / "out")
    data = tmp_path / "locomo.json"
    data.write_text("[]")
    runs = {
        "diagnostics text": ("diagnostics", "--agent", "a", "--embedder", "hashing",
                             "--out", bad),
        "diagnostics json": ("diagnostics", "--agent", "a", "--embedder", "hashing",
                             "--format", "json", "--out", bad),
        "diagnostics html": ("diagnostics", "--agent", "a", "--embedder", "hashing",
                             "--format", "html", "--out", bad),
        "diagnostics --json": ("diagnostics", "--agent", "a", "--embedder", "hashing",
                               "--json", bad),
        "scenario": ("scenario", "personal-assistant", "--embedder", "hashing", "--json", bad),
        "benchmark": ("benchmark", "--quick", "--only", "core_limit", "--json", bad),
        "eval": ("eval", "locomo", "--data", str(data), "--embedder", "hashing", "--json", bad),
        "config": ("config", "--agent", "a", "--json", bad),
    }
    for what, args in runs.items():
        done = tiermem(home, *args)
        assert done.returncode == 2, (what, done.stdout, done.stderr)
        assert done.stderr.startswith(f"tiermem: cannot write {bad}: the directory "), what
        assert "Traceback" not in done.stderr, what
        assert done.stdout == "", what  # nothing ran: no day, check or table was printed
    assert not (home / "scenarios").exists()  # the scenario never started


def test_a_snapshot_from_the_chat_is_written_whole(home: Path, tmp_path: Path) -> None:
    target = tmp_path / "snap.json"
    done = tiermem(home, "chat", "--agent", "a", "--embedder", "hashing",
                   stdin=f"I am allergic to peanuts.\n/snapshot {target}\n"
                         f"/snapshot {tmp_path / 'nope' / 's.json'}\n")
    assert done.returncode == 1, done.stderr  # a piped chat with a failed command
    assert json.loads(target.read_text())["tables"]["facts"]
    missing = tmp_path / "nope" / "s.json"
    assert f"cannot write {missing}: the directory" in done.stderr


# -- JSON on standard output ------------------------------------------------------------------
def test_json_without_a_path_goes_to_standard_output(home: Path, tmp_path: Path) -> None:
    make_agent(home)
    diag = tiermem(home, "diagnostics", "--agent", "a", "--embedder", "hashing", "--json")
    assert diag.returncode == 0, diag.stderr
    assert json.loads(diag.stdout)["core"]["facts"] == 1

    scen = tiermem(home, "scenario", "personal-assistant", "--embedder", "hashing", "--json")
    assert scen.returncode == 0, scen.stderr
    assert json.loads(scen.stdout)["scenario"] == "personal-assistant"
    assert "entered core" in scen.stderr  # the people's report moved to standard error
    shorthand = tiermem(home, "scenario", "--json", "personal-assistant", "--embedder", "hashing")
    assert json.loads(shorthand.stdout)["scenario"] == "personal-assistant"
    # Two names: the first would be taken as the file to write, named like a scenario.
    two = tiermem(home, "scenario", "--json", "customer-support", "changing-facts",
                  "--embedder", "hashing")
    assert two.returncode == 2 and "one scenario runs at a time" in two.stderr
    assert not (ROOT / "customer-support").exists()

    bench = tiermem(home, "benchmark", "--quick", "--only", "core_limit", "--json")
    assert bench.returncode == 0, bench.stderr
    assert [c["name"] for c in json.loads(bench.stdout)["checks"]] == ["core_limit"]

    config = tiermem(home, "config", "--agent", "a", "--json")
    assert json.loads(config.stdout)["settings"]["core_limit"] == 2000

    written = tmp_path / "bench.json"
    to_file = tiermem(home, "benchmark", "--quick", "--only", "core_limit", "--json",
                      str(written))
    assert to_file.returncode == 0 and json.loads(written.read_text())["passed"] is True


# -- a closed pipe ---------------------------------------------------------------------------
@pytest.mark.parametrize("args", [("--help",), ("scenario", "--list")])
def test_output_to_a_closed_pipe_ends_quietly(home: Path, args: tuple[str, ...]) -> None:
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader has gone before the first write, as `| head` does
    try:
        done = subprocess.run([sys.executable, "cli.py", *args], cwd=ROOT, env=cli_env(home),
                              stdout=write_end, stderr=subprocess.PIPE, text=True, check=False)
    finally:
        os.close(write_end)
    assert "BrokenPipeError" not in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert "Exception ignored" not in done.stderr
    assert done.returncode == 141


def test_reports_printed_by_rich_to_a_closed_pipe_exit_141(home: Path) -> None:
    make_agent(home)
    runs = [(("config", "--agent", "a"), b""),
            (("diagnostics", "--agent", "a", "--embedder", "hashing"), b""),
            (("chat", "--agent", "a", "--embedder", "hashing"), b"My name is Ada.\n")]
    for args, stdin in runs:
        read_end, write_end = os.pipe()
        os.close(read_end)
        try:
            done = subprocess.run([sys.executable, "cli.py", *args], cwd=ROOT,
                                  env=cli_env(home), input=stdin, stdout=write_end,
                                  stderr=subprocess.PIPE, check=False)
        finally:
            os.close(write_end)
        assert b"Traceback" not in done.stderr, (args, done.stderr)
        assert done.returncode == 141, (args, done.stderr)


# -- standard error closed -------------------------------------------------------------------
def closed_stderr(home: Path, *args: str, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    """The command run as `tiermem ARGS 2>&-`: descriptor 2 is closed, not /dev/null."""
    return subprocess.run(["sh", "-c", 'exec "$@" 2>&-', "sh", sys.executable, "cli.py", *args],
                          cwd=ROOT, env=cli_env(home), input=stdin, stdout=subprocess.PIPE,
                          check=False)


def test_with_stderr_closed_errors_keep_their_exit_code_and_stdout_stays_clean(
        home: Path) -> None:
    for args in (("config", "--agent", "nope"),  # an unknown agent
                 ("scenario",),  # no scenario named
                 ("scenario", "--bogus")):  # argparse's usage error
        done = closed_stderr(home, *args)
        assert done.returncode == 2, args
        # Only what goes to standard output anyway (`scenario` lists the scenarios); the
        # usage message stays off it.
        assert b"usage:" not in done.stdout and b"Traceback" not in done.stdout, args


def test_with_stderr_closed_a_command_that_warns_still_succeeds(home: Path) -> None:
    assert closed_stderr(home, "chat", "--help").returncode == 0
    with FakeOpenAIServer() as server:  # it reports no context window: a notice is written
        server.enqueue_reply("Hello there.")
        done = closed_stderr(home, "chat", "--agent", "a", "--embedder", "hashing", "--model",
                             "fake-model", "--base-url", server.base_url, stdin=b"hi\n")
    assert done.returncode == 0
    assert done.stdout.decode().splitlines()[0] == "Hello there."


# -- the report for people beside the JSON, and output options that conflict ----------------
@pytest.fixture
def agent_a(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    from tiermem.memory import HashingEmbedder, HierarchicalMemory

    monkeypatch.setenv("TIERMEM_HOME", str(tmp_path / "root"))
    monkeypatch.chdir(tmp_path)
    with HierarchicalMemory(tmp_path / "root" / "agents" / "a",
                            embedder=HashingEmbedder()) as memory:
        memory.add_fact("User is allergic to peanuts", "durable")
    return tmp_path


def test_json_on_stdout_puts_the_table_for_people_on_stderr(
        agent_a: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tiermem.cli import main

    assert main(["config", "--agent", "a", "--json"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["settings"]["core_limit"] == 2000
    assert "memory settings of agent a" in err and "core_limit" in err
    assert main(["diagnostics", "--agent", "a", "--embedder", "hashing", "--json"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["core"]["facts"] == 1 and "memory health" in err
    # JSON to a file: the table goes to standard output.
    for args in (["--json", "d.json"], ["--json", "--out", "d.json"],
                 ["--format", "json", "--out", "d.json"]):
        assert main(["diagnostics", "--agent", "a", "--embedder", "hashing", *args]) == 0
        out, err = capsys.readouterr()
        assert "memory health" in out and err == ""
        assert json.loads((agent_a / "d.json").read_text())["core"]["facts"] == 1
        (agent_a / "d.json").unlink()


def test_a_table_or_page_written_to_a_file_is_not_printed_again(
        agent_a: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tiermem.cli import main

    for fmt, name, says in (("text", "d.txt", "memory health"), ("html", "d.html", "<html")):
        assert main(["diagnostics", "--agent", "a", "--embedder", "hashing", "--format", fmt,
                     "--out", name]) == 0
        out, err = capsys.readouterr()
        assert out == f"wrote {name}\n" and err == ""
        assert says in (agent_a / name).read_text()
    # `--out -` is standard output, for the page as for the table.
    for fmt, says in (("text", "memory health"), ("html", "<html")):
        assert main(["diagnostics", "--agent", "a", "--embedder", "hashing", "--format", fmt,
                     "--out", "-"]) == 0
        out, err = capsys.readouterr()
        assert says in out and "wrote" not in out and err == ""
    assert not (agent_a / "-").exists()


def test_output_options_that_conflict_are_a_usage_error_before_any_work(
        agent_a: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tiermem.cli import main

    diagnostics = ["diagnostics", "--agent", "a", "--embedder", "hashing"]
    (agent_a / "locomo").mkdir()
    (agent_a / "locomo" / "conv.json").write_text("[]")
    for args, says in (
            ([*diagnostics, "--json", "j1.json", "--out", "j2.json"], "name two files"),
            ([*diagnostics, "--json", "--format", "html"], "--json and --format html"),
            ([*diagnostics, "--json", "j1.json", "--format", "html"], "ask for two formats"),
            ([*diagnostics, "--json", "-", "--out", "j1.json"],
             "--json - and --out PATH ask for standard output and a file"),
            ([*diagnostics, "--json", "j1.json", "--out", "-"],
             "--json PATH and --out - ask for standard output and a file"),
            (["scenario", "--list", "--json"], "--list prints the scenario names as text"),
            (["scenario", "--list", "--json", "j1.json"], "takes no --json"),
            (["eval", "locomo", "--list-configs", "--json"], "takes no --json"),
            (["eval", "locomo", "--data", "locomo", "--json", "locomo/conv.json"],
             "would be read as LoCoMo data"),
            (["eval", "locomo", "--data", "locomo", "--json", "locomo/report.json"],
             "would be read as LoCoMo data")):
        assert main(args) == 2, args
        out, err = capsys.readouterr()
        assert says in err and len(err.splitlines()) == 1 and out == "", (args, err)
    assert not list(agent_a.glob("*.json")) and not list(agent_a.glob("*.html"))
    assert (agent_a / "locomo" / "conv.json").read_text() == "[]"
    # Standard output named twice is one place: the JSON there, the table on stderr.
    assert main([*diagnostics, "--json", "-", "--out", "-"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["core"]["facts"] == 1 and "memory health" in err


# -- files that quote the memory are as private as the memory ---------------------------------
def _under_umask_022(home: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "cli.py", *args], cwd=ROOT, env=cli_env(home),
                          input=stdin, capture_output=True, text=True, check=False,
                          preexec_fn=lambda: os.umask(0o022))


def _mode(path: Path) -> int:
    return path.stat().st_mode & 0o777


def test_snapshots_and_diagnostics_files_are_readable_by_their_owner_only(
        home: Path, tmp_path: Path) -> None:
    snapshot, replaced = tmp_path / "snap.json", tmp_path / "old.json"
    replaced.write_text("{}")
    replaced.chmod(0o644)  # a file it replaces does not lend the snapshot its mode
    done = _under_umask_022(home, "chat", "--agent", "a", "--embedder", "hashing",
                            stdin=f"I am allergic to peanuts.\n/snapshot {snapshot}\n"
                                  f"/snapshot {replaced}\n")
    assert done.returncode == 0, done.stderr
    assert "peanuts" in snapshot.read_text() and "peanuts" in replaced.read_text()
    assert (_mode(snapshot), _mode(replaced)) == (0o600, 0o600)
    for fmt in ("text", "json", "html"):
        report = tmp_path / f"d.{fmt}"
        done = _under_umask_022(home, "diagnostics", "--agent", "a", "--embedder", "hashing",
                                "--format", fmt, "--out", str(report))
        assert done.returncode == 0, done.stderr
        assert _mode(report) == 0o600, fmt


def test_other_reports_keep_the_mode_a_new_file_gets(tmp_path: Path) -> None:
    from tiermem.memory.output_file import write_atomic

    fresh, kept = tmp_path / "fresh.json", tmp_path / "kept.json"
    kept.write_text("{}")
    kept.chmod(0o640)
    previous = os.umask(0o022)
    try:
        write_atomic(fresh, "{}")
        write_atomic(kept, "[]")
    finally:
        os.umask(previous)
    assert (_mode(fresh), _mode(kept)) == (0o644, 0o640)
    assert kept.read_text() == "[]"


# -- the library's warnings ----------------------------------------------------------------
def test_the_library_s_warnings_are_the_command_s_own_notes_while_it_runs(
        capsys: pytest.CaptureFixture[str]) -> None:
    import logging

    from tiermem.agent.library_notes import library_notes
    from tiermem.cli import _note

    engine = logging.getLogger("tiermem.memory.store.sqlite.graph_upkeep")
    before = list(logging.getLogger("tiermem").handlers)
    engine.setLevel(logging.DEBUG)  # so the handler alone decides what is shown
    try:
        with library_notes(_note):
            engine.warning("the %s graph could not be built", "passages")
            engine.info("building the graph in the background")  # progress: not a note
            logging.getLogger("elsewhere").warning("not ours")  # another library's
    finally:
        engine.setLevel(logging.NOTSET)
    assert capsys.readouterr().err == "tiermem: the passages graph could not be built\n"
    # The handler leaves with the command: the next one does not print each line twice.
    assert logging.getLogger("tiermem").handlers == before
