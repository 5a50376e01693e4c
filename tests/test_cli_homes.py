"""Agent homes: never created by inspection, and private to their user."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from test_cli import ROOT, cli_env, tiermem

from tiermem.memory import HashingEmbedder, HierarchicalMemory


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.parametrize("args", [
    ("reindex", "--agent", "typo", "--embedder", "hashing"),
    ("diagnostics", "--agent", "typo", "--embedder", "hashing"),
    ("config", "--agent", "typo"),
    ("config", "--agent", "typo", "core_limit", "100"),
])
def test_inspection_and_maintenance_never_create_an_agent(
        home: Path, args: tuple[str, ...]) -> None:
    for name in ("a", "b"):
        made = tiermem(home, "chat", "--agent", name, "--embedder", "hashing", stdin="hi\n")
        assert made.returncode == 0, made.stderr
    done = tiermem(home, *args)
    assert done.returncode == 2
    assert done.stderr == f"tiermem: no agent named 'typo' in {home} (agents: a, b)\n"
    assert not (home / "agents" / "typo").exists()


def test_with_no_agents_the_error_says_how_to_make_one(home: Path) -> None:
    done = tiermem(home, "reindex", "--agent", "typo", "--embedder", "hashing")
    assert done.returncode == 2
    assert "no agents yet; `tiermem chat --agent typo` creates one" in done.stderr
    assert not (home / "agents" / "typo").exists()


def test_a_home_and_every_file_in_it_are_private_while_a_chat_runs(home: Path) -> None:
    chat = subprocess.Popen(
        [sys.executable, "cli.py", "chat", "--agent", "a", "--embedder", "hashing"], cwd=ROOT,
        env=cli_env(home), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, preexec_fn=lambda: os.umask(0o022))
    try:
        assert chat.stdin is not None and chat.stdout is not None
        chat.stdin.write("I am allergic to peanuts.\n/help\n")
        chat.stdin.flush()
        # /help answers after the turn before it is committed.
        assert "Commands:\n" in iter(chat.stdout.readline, ""), chat.stderr
        agent = home / "agents" / "a"
        names = {p.name for p in agent.iterdir()}
        assert {"memory.sqlite3", "memory.sqlite3-wal", "memory.sqlite3-shm",
                "writer.lock"} <= names
        open_files = {p.name: mode(p) for p in agent.iterdir()}
    finally:
        chat.communicate("/exit\n")
    assert chat.returncode == 0
    assert set(open_files.values()) == {0o600}, open_files
    assert {"archival.faiss", "archival.json", "recall.faiss", "recall.json"} <= {
        p.name for p in agent.iterdir()}
    closed = {p.name: mode(p) for p in agent.iterdir()}
    assert set(closed.values()) == {0o600}, closed
    assert mode(agent) == 0o700


def _umask_022_memory(path: Path) -> None:
    previous = os.umask(0o022)
    try:
        with HierarchicalMemory(path, embedder=HashingEmbedder()) as memory:
            memory.add_fact("User is allergic to peanuts")
    finally:
        os.umask(previous)


def test_a_home_the_library_creates_is_private_whatever_the_umask(tmp_path: Path) -> None:
    agent = tmp_path / "made" / "here"
    _umask_022_memory(agent)
    assert mode(agent) == 0o700
    files = {p.name: mode(p) for p in agent.iterdir()}
    assert {"memory.sqlite3", "archival.faiss", "archival.json", "writer.lock"} <= set(files)
    assert set(files.values()) == {0o600}, files


def test_in_a_directory_that_exists_the_files_are_private_and_the_directory_kept(
        tmp_path: Path) -> None:
    agent = tmp_path / "shared"
    agent.mkdir(mode=0o755)
    agent.chmod(0o755)
    _umask_022_memory(agent)
    assert mode(agent) == 0o755  # the caller's directory, the caller's choice
    files = {p.name: mode(p) for p in agent.iterdir()}
    assert set(files.values()) == {0o600}, files


@pytest.mark.parametrize("command", [["diagnostics", "--embedder", "hashing", "--json"],
                                     ["config"]])
def test_a_home_shared_read_only_keeps_its_modes_when_read(
        home: Path, command: list[str]) -> None:
    agent = home / "agents" / "a"
    _umask_022_memory(agent)
    before = {}
    for path in (agent, *agent.iterdir()):
        path.chmod(0o555 if path.is_dir() else 0o444)  # shared, read-only for everyone
        before[path] = mode(path)
    try:
        done = tiermem(home, *command, "--agent", "a")
        after = {path: mode(path) for path in before}
    finally:
        agent.chmod(0o700)
    assert done.returncode == 0, done.stderr
    assert after == before
    assert "private" not in done.stderr
    readme = " ".join((ROOT / "README.md").read_text("utf-8").split())
    assert ("only read (`diagnostics`, `config` showing) leave alone a home its owner made "
            "read-only for everyone") in readme


def test_a_home_made_readable_is_tightened_with_a_note(home: Path) -> None:
    agent = home / "agents" / "a"
    _umask_022_memory(agent)
    # As an older version left it.
    for path in (agent, *agent.iterdir()):
        path.chmod(0o755 if path.is_dir() else 0o644)
    done = tiermem(home, "diagnostics", "--agent", "a", "--embedder", "hashing", "--json")
    assert done.returncode == 0, done.stderr
    assert f"made {agent} private to this user" in done.stderr
    assert mode(agent) == 0o700
    assert {mode(p) for p in agent.iterdir()} == {0o600}
    again = tiermem(home, "diagnostics", "--agent", "a", "--embedder", "hashing", "--json")
    assert "private" not in again.stderr  # said once, when it changed something


def test_the_note_of_a_home_tightened_says_what_was_done_to_a_read_only_file(
        home: Path) -> None:
    agent = home / "agents" / "a"
    _umask_022_memory(agent)
    agent.chmod(0o755)
    shared = agent / "archival.json"
    shared.chmod(0o444)  # its owner chose read-only: privacy takes no choice back
    done = tiermem(home, "diagnostics", "--agent", "a", "--embedder", "hashing", "--json")
    assert done.returncode == 0, done.stderr
    assert mode(agent) == 0o700 and mode(shared) == 0o400
    # Before: "(directory 0700, files 0600)", which the file is not.
    assert "0600" not in done.stderr
    assert (f"made {agent} private to this user (took group and other access away from it "
            f"and its files; the owner's is as it was)") in done.stderr


def _shared_home_linking(home: Path, elsewhere: Path, name: str) -> tuple[Path, Path]:
    """Agent a's home, made by an older version (0755), with ``name`` a hard link to
    ``elsewhere`` (0644); the home and the link."""
    agent = home / "agents" / "a"
    _umask_022_memory(agent)
    agent.chmod(0o755)
    elsewhere.write_text("shared\n")
    elsewhere.chmod(0o644)
    os.link(elsewhere, agent / name)
    return agent, agent / name


def test_a_hard_link_in_a_home_is_left_as_it_was_with_a_note(
        home: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "notes.txt"
    agent, linked = _shared_home_linking(home, elsewhere, "notes.txt")
    done = tiermem(home, "diagnostics", "--agent", "a", "--embedder", "hashing", "--json")
    assert done.returncode == 0, done.stderr
    # Before: made 0600, and with it the file under its other name, outside the home.
    assert mode(elsewhere) == 0o644 and mode(agent) == 0o700
    assert (f"left the mode of {linked} as it was: it is a hard link (a backup made with "
            f"`cp -al`, say), and its mode is the file's under its other names too; others "
            f"can read it only there. To make it private, give it a file of its own") in done.stderr
    again = tiermem(home, "diagnostics", "--agent", "a", "--embedder", "hashing", "--json")
    assert again.returncode == 0, again.stderr
    # Before: said again on every command, as the link stays as it was.
    assert "hard link" not in again.stderr and mode(elsewhere) == 0o644
    advice = done.stderr.partition("(`")[2].partition("`)")[0]
    subprocess.run(advice, shell=True, check=True)
    again = tiermem(home, "diagnostics", "--agent", "a", "--embedder", "hashing", "--json")
    assert mode(linked) == 0o600 and mode(elsewhere) == 0o644
    assert "hard link" not in again.stderr


def test_a_hard_linked_shm_in_a_home_made_private_is_named_once(
        home: Path, tmp_path: Path) -> None:
    _shared_home_linking(home, tmp_path / "index", "memory.sqlite3-shm")
    done = tiermem(home, "diagnostics", "--agent", "a", "--embedder", "hashing", "--json")
    assert done.returncode == 1, done.stderr
    # Before: the note that it was left as it was, then the refusal, each with cp and mv.
    assert done.stderr.count("memory.sqlite3-shm is a hard link") == 1, done.stderr
    assert done.stderr.count("cp -p") == 1 and "left the mode" not in done.stderr
