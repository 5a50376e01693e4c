"""A TIERMEM_HOME, or an agent home in it, that this user may not read: every command
names the directory and what to do, exit 2, rather than a traceback from a file inside.
One it may read but not write can still be inspected, and a write refused there says what
to do at a shell."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from network_guard import guarded_env

ROOT = Path(__file__).resolve().parent.parent

#: Root reads any directory whatever its mode; without these capabilities it is refused
#: as any other user would be.
_AS_A_USER = ["setpriv", "--bounding-set=-dac_override,-dac_read_search",
              "--inh-caps=-dac_override,-dac_read_search", "--"]


def _as_a_user() -> list[str]:
    """What runs a command as a user who may not read every file (none if this is one)."""
    if os.geteuid() != 0:
        return []
    if shutil.which("setpriv") is None:
        pytest.skip("running as root, and no setpriv to drop the right to read any file")
    return _AS_A_USER


def _tiermem(home: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    prefix = _as_a_user()
    env = {k: v for k, v in os.environ.items()
           if k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "TIERMEM_MODEL")}
    env.update(TIERMEM_HOME=str(home), HF_HUB_OFFLINE="1", COLUMNS="200")
    return subprocess.run([*prefix, sys.executable, "cli.py", *args], cwd=ROOT,
                          env=guarded_env(env), input=stdin, capture_output=True, text=True,
                          check=False)


def _advice(directory: Path) -> str:
    return (f"tiermem: this user may not read {directory} (permission denied); give it read "
            f"and search access to that directory (chmod), or set TIERMEM_HOME to a "
            f"directory of its own\n")


_COMMANDS = [
    ["chat", "--offline", "--embedder", "hashing"],
    ["diagnostics"],
    ["forget", "User likes tea"],
]


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    made = _tiermem(home, "chat", "--offline", "--embedder", "hashing", stdin="I like tea.\n")
    assert made.returncode == 0, made.stderr
    return home


def _run_closed(home: Path, directory: Path, args: list[str]) -> subprocess.CompletedProcess[str]:
    """``tiermem ARGS`` while ``directory`` is closed to this user."""
    directory.chmod(0)
    try:
        return _tiermem(home, *args, stdin="What do I like?\n")
    finally:
        directory.chmod(0o700)


@pytest.mark.parametrize("args", _COMMANDS, ids=lambda args: args[0])
def test_an_unreadable_home_is_named_with_what_to_do(home: Path, args: list[str]) -> None:
    done = _run_closed(home, home, args)
    assert (done.returncode, done.stderr) == (2, _advice(home))
    assert "Traceback" not in done.stdout


@pytest.mark.parametrize("args", _COMMANDS, ids=lambda args: args[0])
def test_an_unreadable_agent_home_is_named_and_keeps_its_memory(
        home: Path, args: list[str]) -> None:
    agent = home / "agents" / "default"
    done = _run_closed(home, agent, args)
    assert (done.returncode, done.stderr) == (2, _advice(agent))
    kept = _tiermem(home, "chat", "--offline", "--embedder", "hashing", stdin="/core\n")
    assert kept.returncode == 0, kept.stderr
    assert "User likes tea" in kept.stdout


@pytest.mark.parametrize("command", ["diagnostics", "upgrade"])
def test_an_unknown_agent_names_the_agent_homes_this_user_may_not_read(
        home: Path, command: str) -> None:
    agent = home / "agents" / "default"
    done = _run_closed(home, agent, [command, "--agent", "bob"])
    assert done.returncode == 2
    assert done.stderr == (
        f"tiermem: no agent named 'bob' in {home} (this user may not read the agent home "
        f"{agent}, which may hold agents; give it read and search access (chmod) to use "
        f"it)\n")
    readme = " ".join((ROOT / "README.md").read_text("utf-8").split())
    assert ("names the agent homes this user may not read (whose agents it cannot tell) with "
            "what to do, rather than saying there are none") in readme


def test_two_unreadable_agent_homes_are_named_as_many() -> None:
    from tiermem.agent.home import no_such_agent

    said = str(no_such_agent("bob", "/h", [], unreadable=["/h/agents/a", "/h/agents/b"]))
    assert said == ("no agent named 'bob' in /h (this user may not read the agent homes "
                    "/h/agents/a, /h/agents/b, which may hold agents; give them read and "
                    "search access (chmod) to use them)")


@pytest.mark.parametrize("args", _COMMANDS, ids=lambda args: args[0])
def test_an_unreadable_database_file_is_named_not_taken_for_an_upgrade(
        home: Path, args: list[str]) -> None:
    database = home / "agents" / "default" / "memory.sqlite3"
    done = _run_closed(home, database, args)
    assert done.returncode == 1
    assert done.stderr == (
        f"tiermem: cannot open the memory database {database}: this user may not read it "
        f"(permission denied); nothing was changed. Give it read and write access to the "
        f"agent home's files (chmod, or chown to this user), then try again\n")
    kept = _tiermem(home, "chat", "--offline", "--embedder", "hashing", stdin="/core\n")
    assert "User likes tea" in kept.stdout


def test_upgrade_json_of_an_unreadable_database_file_still_prints_its_object(
        home: Path) -> None:
    database = home / "agents" / "default" / "memory.sqlite3"
    done = _run_closed(home, database, ["upgrade", "--json"])
    assert done.returncode == 1
    report = json.loads(done.stdout)
    assert (report["from"], report["to"], report["upgraded"]) == (None, None, False)
    assert report["error"].startswith(f"cannot open the memory database {database}: this "
                                      f"user may not read it (permission denied)")
    assert done.stderr == f"tiermem: {report['error']}\n"


def test_an_agent_home_this_user_may_not_write_can_be_inspected(home: Path) -> None:
    agent = home / "agents" / "default"
    agent.chmod(0o500)  # SQLite cannot create the -shm file a WAL reader wants here
    try:
        assert not (agent / "memory.sqlite3-shm").exists()
        done = _tiermem(home, "diagnostics", "--format", "json")
    finally:
        agent.chmod(0o700)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["core"]["facts"] == 1


@pytest.mark.parametrize("args", [["chat", "--offline", "--embedder", "hashing"],
                                  ["forget", "User likes tea"]], ids=lambda args: args[0])
def test_a_write_refused_in_an_agent_home_this_user_may_not_write_says_what_to_do(
        home: Path, args: list[str]) -> None:
    # The library's advice (read_only=True) is a Python call no one at a shell can make.
    agent = home / "agents" / "default"
    agent.chmod(0o500)
    try:
        done = _tiermem(home, *args, stdin="I live in Porto.\n")
    finally:
        agent.chmod(0o700)
    assert done.returncode == 1
    assert "read_only" not in done.stderr
    assert done.stderr.endswith(
        f"nothing was changed. Make {agent} and its files writable by this user (chmod u+w, "
        f"or chown them to this user) to write; to read the memory without writing, use "
        f"`tiermem diagnostics --agent default`\n")
    kept = _tiermem(home, "chat", "--offline", "--embedder", "hashing", stdin="/core\n")
    assert "User likes tea" in kept.stdout


def _leave_wal_and_shm(database: Path) -> None:
    """What a writer that stopped without closing leaves: its -wal (empty) and -shm."""
    subprocess.run([sys.executable, "-c", "import os, sqlite3, sys\n"
                    "c = sqlite3.connect(sys.argv[1]); c.execute('PRAGMA journal_mode=WAL')\n"
                    "c.execute('SELECT count(*) FROM facts').fetchone(); os._exit(0)",
                    str(database)], check=True)


def test_a_write_refused_for_a_read_only_wal_names_it_and_loses_nothing(home: Path) -> None:
    agent = home / "agents" / "default"
    database = agent / "memory.sqlite3"
    _leave_wal_and_shm(database)
    companions = [agent / "memory.sqlite3-wal", agent / "memory.sqlite3-shm"]
    for path in companions:
        path.chmod(0o400)
    try:
        done = _tiermem(home, "chat", "--offline", "--embedder", "hashing",
                        stdin="I live in Porto.\n")
        read = _tiermem(home, "diagnostics", "--format", "json")
    finally:
        for path in companions:
            path.chmod(0o600)
    assert done.returncode == 1
    # The database file itself is writable: without the names, the advice pointed at it.
    named = done.stderr.split("this user may not write ", 1)[1].split(")", 1)[0].split(", ")
    assert "memory.sqlite3-shm" in named and "memory.sqlite3" not in named
    assert read.returncode == 0, read.stderr
    assert json.loads(read.stdout)["core"]["facts"] == 1
    kept = _tiermem(home, "chat", "--offline", "--embedder", "hashing", stdin="/core\n")
    assert "User likes tea" in kept.stdout


def test_an_empty_read_only_wal_does_not_refuse_the_first_write(home: Path) -> None:
    agent = home / "agents" / "default"
    database = agent / "memory.sqlite3"
    _leave_wal_and_shm(database)
    wal = agent / "memory.sqlite3-wal"
    assert wal.stat().st_size == 0
    wal.chmod(0o400)
    # Before: refused naming no file (SQLite had given the empty file its mode back by
    # then), and the same command again succeeded.
    done = _tiermem(home, "chat", "--offline", "--embedder", "hashing",
                    stdin="I live in Porto.\n")
    assert done.returncode == 0, done.stderr
    kept = _tiermem(home, "chat", "--offline", "--embedder", "hashing", stdin="/core\n")
    assert "User lives in Porto" in kept.stdout and "User likes tea" in kept.stdout


def test_a_read_only_wal_that_is_a_link_leaves_its_target_alone(
        home: Path, tmp_path: Path) -> None:
    agent = home / "agents" / "default"
    _leave_wal_and_shm(agent / "memory.sqlite3")
    wal = agent / "memory.sqlite3-wal"
    elsewhere = tmp_path / "kept-read-only"
    elsewhere.touch(mode=0o400)
    wal.unlink()
    wal.symlink_to(elsewhere)
    _tiermem(home, "chat", "--offline", "--embedder", "hashing", stdin="I live in Porto.\n")
    # Before: the file outside the home was made 0600 on the way to the database.
    assert elsewhere.stat().st_mode & 0o777 == 0o400


def test_the_files_named_as_unwritable_skip_one_this_user_may_not_look_at(
        tmp_path: Path) -> None:
    closed = tmp_path / "closed"
    closed.mkdir()
    closed.chmod(0)
    try:
        done = subprocess.run(
            [*_as_a_user(), sys.executable, "-c", "import sys; from pathlib import Path\n"
             "from tiermem.memory.store.sqlite.errors import _unwritable_files\n"
             "print(repr(_unwritable_files(Path(sys.argv[1]))))",
             str(closed / "memory.sqlite3")], cwd=ROOT, capture_output=True, text=True,
            check=False)
    finally:
        closed.chmod(0o700)
    # Before: a PermissionError from looking, in place of the error being explained.
    assert (done.returncode, done.stdout) == (0, "('', ())\n"), done.stderr


def test_a_wal_linked_to_a_file_this_user_may_not_write_is_named_at_open(
        home: Path, tmp_path: Path) -> None:
    wal = home / "agents" / "default" / "memory.sqlite3-wal"
    elsewhere = tmp_path / "kept-read-only"
    elsewhere.touch(mode=0o400)
    wal.symlink_to(elsewhere)
    done = _tiermem(home, "chat", "--offline", "--embedder", "hashing", stdin="I run.\n")
    # Before: "...; an upgrade of its schema stops at the last step that completed, ...".
    assert done.returncode == 1 and "upgrade" not in done.stderr
    assert done.stderr.endswith(
        f": {wal} (a link to {elsewhere}): SQLite opens no -wal or -shm file through a link, "
        f"and the file it leads to is empty; nothing was changed. It holds nothing: remove the "
        f"link (`rm {wal}`), then try again\n")
    wal.unlink()
    kept = _tiermem(home, "chat", "--offline", "--embedder", "hashing", stdin="/core\n")
    assert "User likes tea" in kept.stdout
