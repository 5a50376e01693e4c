"""``tiermem restore FILE``: a chat's /snapshot brought back as a new agent or over one,
refused without --replace where a memory is, and a file that is no snapshot refused
before anything is written."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from test_cli import tiermem


def test_a_snapshot_comes_back_as_a_new_agent_and_over_one_with_replace(tmp_path: Path) -> None:
    home = tmp_path / "home"
    snapshot = tmp_path / "ada.json"
    made = tiermem(home, "chat", "--agent", "ada", "--embedder", "hashing",
                   stdin=f"I live in Lisbon.\n/snapshot {snapshot}\n")
    assert made.returncode == 0 and snapshot.is_file(), made.stderr
    restored = tiermem(home, "restore", str(snapshot), "--agent", "bea")
    assert restored.returncode == 0, restored.stderr
    assert restored.stdout.startswith(f"restored agent bea from {snapshot}: ")
    shown = tiermem(home, "chat", "--agent", "bea", "--embedder", "hashing", stdin="/core\n")
    assert shown.returncode == 0 and "Lisbon" in shown.stdout

    tiermem(home, "chat", "--agent", "bea", "--embedder", "hashing", stdin="I work nights.\n")
    refused = tiermem(home, "restore", str(snapshot), "--agent", "bea")
    assert refused.returncode == 1
    assert "already holds a memory" in refused.stderr and "add --replace" in refused.stderr
    assert "replace=True" not in refused.stderr
    recall = ("chat", "--agent", "bea", "--embedder", "hashing")
    kept = tiermem(home, *recall, stdin="/recall nights\n")
    assert "I work nights" in kept.stdout

    replaced = tiermem(home, "restore", str(snapshot), "--agent", "bea", "--replace")
    assert replaced.returncode == 0, replaced.stderr
    gone = tiermem(home, *recall, stdin="/recall nights\n")
    assert "I work nights" not in gone.stdout


def test_a_file_that_is_no_snapshot_is_a_usage_error_and_writes_nothing(tmp_path: Path) -> None:
    home = tmp_path / "home"
    cases = {"missing.json": None, "text.json": "not json at all",
             "other.json": json.dumps({"format": "something else"})}
    for name, text in cases.items():
        if text is not None:
            (tmp_path / name).write_text(text)
        done = tiermem(home, "restore", str(tmp_path / name), "--agent", "ada")
        assert done.returncode == 2, (name, done.stderr)
        assert done.stderr.startswith("tiermem: ") and "Traceback" not in done.stderr
        assert str(tmp_path / name) in done.stderr
        if text is not None:  # advice for the command line, not for a caller in Python
            assert done.stderr.rstrip().endswith(
                "give a file that /snapshot or HierarchicalMemory.snapshot() wrote"), done.stderr
            assert "json.load" not in done.stderr
    assert not (home / "agents" / "ada" / "memory.sqlite3").exists()
    later = tmp_path / "later.json"
    later.write_text(json.dumps({"format": "tiermem-snapshot/99", "tables": {}}))
    done = tiermem(home, "restore", str(later), "--agent", "ada")
    assert done.returncode == 2 and "a newer version of tiermem wrote" in done.stderr
    assert "not a tiermem snapshot" not in done.stderr and "/snapshot or" not in done.stderr


def test_a_non_snapshot_for_a_postgres_agent_creates_no_agent(tmp_path: Path,
                                                             postgres_dsn: str) -> None:
    from tiermem.memory.store.postgres.connection import stored_agents

    other = tmp_path / "other.json"
    other.write_text(json.dumps({"format": "something else"}))
    done = tiermem(tmp_path / "home", "restore", str(other), "--agent", "cyd",
                   "--store", postgres_dsn)
    assert done.returncode == 2, done.stderr
    assert "cyd" not in (stored_agents(postgres_dsn) or [])


def _refused_before_reading(snapshot: Path, monkeypatch: pytest.MonkeyPatch,
                            **where: str | None) -> list[str]:
    """What ``tiermem restore SNAPSHOT`` (no --replace) says, failing if the file is read."""
    import argparse

    from tiermem.agent.restore_command import cmd_restore
    from tiermem.memory.ops.snapshot_source import SnapshotFile

    def read(*args: object, **kwargs: object) -> None:
        raise AssertionError("the snapshot was read before the agent was refused")

    notes: list[str] = []
    args = argparse.Namespace(snapshot=str(snapshot), agent="ada", replace=False, **where)
    with monkeypatch.context() as patched:
        patched.setattr(SnapshotFile, "members", read)
        assert cmd_restore(args, notes.append) == 1
    return notes


def test_an_agent_that_holds_a_memory_is_refused_before_the_file_is_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    snapshot = _snapshot_over_an_old_agent(tmp_path, monkeypatch)
    notes = _refused_before_reading(snapshot, monkeypatch, store=None)
    assert len(notes) == 1 and "already holds a memory" in notes[0], notes
    assert "add --replace" in notes[0] and "replace=True" not in notes[0]
    # The library's other way out, an empty directory, is no option of this command.
    assert "as a new agent (--agent NEW_NAME)" in notes[0] and "directory" not in notes[0]
    assert _facts_of_ada(tmp_path) == ["the old memory's fact"]


def test_a_refusal_keeps_a_home_path_that_holds_a_semicolon_whole(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import pickle

    from tiermem.memory import RestoreTargetHoldsMemoryError, SnapshotError
    from tiermem.memory.ops.restore_target import restore_refusal

    base = tmp_path / "ops; notes"
    snapshot = _snapshot_over_an_old_agent(base, monkeypatch)
    ada = base / "home" / "agents" / "ada"
    notes = _refused_before_reading(snapshot, monkeypatch, store=None)
    assert len(notes) == 1 and notes[0].startswith(
        f"{ada} already holds a memory (facts, history, events); restore the snapshot as a "
        f"new agent"), notes
    refusal = restore_refusal(path=ada)
    assert isinstance(refusal, RestoreTargetHoldsMemoryError)
    assert isinstance(refusal, SnapshotError)
    assert (refusal.where, refusal.tables) == (str(ada), ("facts", "history", "events"))
    copied = pickle.loads(pickle.dumps(refusal))
    assert (type(copied), str(copied)) == (type(refusal), str(refusal))
    assert str(refusal).endswith("restore into an empty directory so nothing stored there "
                                 "is overwritten, or pass replace=True to replace it")


def test_a_postgres_agent_that_holds_a_memory_is_refused_before_the_file_is_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, postgres_dsn: str) -> None:
    from tiermem.memory.embed.embeddings import HashingEmbedder
    from tiermem.memory.hierarchy import HierarchicalMemory

    snapshot = _snapshot_over_an_old_agent(tmp_path, monkeypatch)
    with HierarchicalMemory(store=postgres_dsn, agent="ada", embedder=HashingEmbedder()) as old:
        old.add_fact("the old memory's fact")
    notes = _refused_before_reading(snapshot, monkeypatch, store=postgres_dsn)
    assert len(notes) == 1 and "already holds a memory" in notes[0], notes
    assert "add --replace" in notes[0] and "as a new agent (--agent NEW_NAME)" in notes[0]
    assert "an empty one" not in notes[0]
    # An agent with no memory yet is not refused: its restore reads the file and writes it.
    done = tiermem(tmp_path / "home", "restore", str(snapshot), "--agent", "bea",
                   "--store", postgres_dsn)
    assert done.returncode == 0, done.stderr


def test_a_snapshot_holds_no_policy_and_restore_says_which_one_the_agent_runs_under(
        tmp_path: Path) -> None:
    from test_cli_policy import POLICY

    home = tmp_path / "home"
    (home / "agents" / "ada").mkdir(parents=True)
    (home / "agents" / "ada" / "policy.yaml").write_text(POLICY, encoding="utf-8")
    snapshot = tmp_path / "ada.json"
    made = tiermem(home, "chat", "--agent", "ada", "--embedder", "hashing",
                   stdin=f"I live in Lisbon.\n/snapshot {snapshot}\n")
    assert made.returncode == 0 and snapshot.is_file(), made.stderr
    assert "the privacy policy is not in it" in made.stdout
    # Restored as another agent, nothing says the policy came along: the user is told.
    policy = home / "agents" / "bea" / "policy.yaml"
    restored = tiermem(home, "restore", str(snapshot), "--agent", "bea")
    assert restored.returncode == 0, restored.stderr
    assert restored.stderr == (
        f"tiermem: agent bea has no privacy policy: a snapshot holds the memory, not the "
        f"policy file; if the agent it was taken from had one (its policy.yaml), copy it to "
        f"{policy} before the agent is used\n")
    policy.write_text(POLICY, encoding="utf-8")
    policy.chmod(0o600)  # else the home is tightened first, and says so
    replaced = tiermem(home, "restore", str(snapshot), "--agent", "bea", "--replace")
    assert replaced.returncode == 0, replaced.stderr
    assert replaced.stderr == f"tiermem: agent bea runs under the privacy policy {policy}\n"
    # A broken link where the policy goes is no policy the agent runs under.
    policy.unlink()
    policy.symlink_to(tmp_path / "gone.yaml")
    broken = tiermem(home, "restore", str(snapshot), "--agent", "bea", "--replace")
    assert broken.returncode == 0, broken.stderr
    assert "runs under" not in broken.stderr and "is not a file that can be read" in broken.stderr
    # A chat with no policy says nothing about one in its snapshot.
    plain = tiermem(home, "chat", "--agent", "cyd", "--embedder", "hashing",
                    stdin=f"/snapshot {tmp_path / 'cyd.json'}\n")
    assert plain.returncode == 0 and "privacy policy" not in plain.stdout, plain.stderr


def test_ctrl_c_after_the_restored_database_took_its_place_says_so(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C as the restored memory opens (rebuilding its indexes, the long part of a large
    restore): the home already holds the restored memory, the old one is gone, and a restore
    run again without --replace is refused. The note must not say the home is as it was."""
    import argparse

    from tiermem.agent.interrupts import InterruptReported
    from tiermem.agent.restore_command import cmd_restore
    from tiermem.memory.embed.embeddings import HashingEmbedder
    from tiermem.memory.hierarchy import HierarchicalMemory

    monkeypatch.setenv("TIERMEM_HOME", str(tmp_path / "home"))
    snapshot = tmp_path / "snap.json"
    with HierarchicalMemory(tmp_path / "source", embedder=HashingEmbedder()) as source:
        source.add_fact("the new memory's fact")
        source.write_snapshot(snapshot)
    for replace in (False, True):
        if replace:  # an old memory there, to be replaced
            with HierarchicalMemory(tmp_path / "home" / "agents" / "ada",
                                    embedder=HashingEmbedder()) as old:
                old.add_fact("the old memory's fact")
        opened = HierarchicalMemory.__init__

        def interrupted(*args: object, **kwargs: object) -> None:
            raise KeyboardInterrupt  # the restored memory opening, after the rename

        notes: list[str] = []
        monkeypatch.setattr(HierarchicalMemory, "__init__", interrupted)
        args = argparse.Namespace(snapshot=str(snapshot), agent="ada", store=None,
                                  replace=replace)
        with pytest.raises(InterruptReported):
            cmd_restore(args, notes.append)
        monkeypatch.setattr(HierarchicalMemory, "__init__", opened)
        said = notes[-1]
        assert "as it was" not in said and "never moved into place" not in said, said
        assert said == ("restore stopped (Ctrl-C) after agent ada's memory was restored "
                        f"from {snapshot}")
        # The README quotes that line for a Ctrl-C after the restore committed.
        readme = " ".join((Path(__file__).resolve().parents[1] / "README.md").read_text(
            encoding="utf-8").split())
        assert ("Stopped after, as the restored memory opens, the agent holds the restored "
                "memory") in readme
        assert ("(`tiermem: restore stopped (Ctrl-C) after agent NAME's memory was restored "
                "from FILE`)") in readme
        with HierarchicalMemory(tmp_path / "home" / "agents" / "ada",
                                embedder=HashingEmbedder()) as restored:
            assert [f.text for f in restored.core] == ["the new memory's fact"]
        shutil.rmtree(tmp_path / "home" / "agents" / "ada")


def test_ctrl_c_after_the_postgres_restore_committed_says_so(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, postgres_dsn: str) -> None:
    """On PostgreSQL too: Ctrl-C as the restored memory opens, after the restore's one
    transaction committed, is not said to have left the agent as it was."""
    import argparse

    from tiermem.agent.interrupts import InterruptReported
    from tiermem.agent.restore_command import cmd_restore
    from tiermem.memory.embed.embeddings import HashingEmbedder
    from tiermem.memory.hierarchy import HierarchicalMemory

    snapshot = _snapshot_over_an_old_agent(tmp_path, monkeypatch)
    for agent in ("ada", "bea"):  # over an agent's memory, and a new agent
        if agent == "ada":
            with HierarchicalMemory(store=postgres_dsn, agent=agent,
                                    embedder=HashingEmbedder()) as old:
                old.add_fact("the old memory's fact")
        notes: list[str] = []
        args = argparse.Namespace(snapshot=str(snapshot), agent=agent, store=postgres_dsn,
                                  replace=True)
        with monkeypatch.context() as patched, pytest.raises(InterruptReported):
            patched.setattr(HierarchicalMemory, "__init__", _interrupted_opening)
            cmd_restore(args, notes.append)
        assert notes[-1].startswith(f"restore stopped (Ctrl-C) after agent {agent}'s memory "
                                    f"was restored"), notes
        assert "did not commit" not in notes[-1]
        with HierarchicalMemory(store=postgres_dsn, agent=agent,
                                embedder=HashingEmbedder()) as restored:
            assert [f.text for f in restored.core] == ["the new memory's fact"]


def _interrupted_opening(*args: object, **kwargs: object) -> None:
    raise KeyboardInterrupt  # the restored memory opening, after the restore committed


def test_ctrl_c_before_the_rename_says_the_home_is_as_it_was(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import argparse

    import tiermem.memory.store.sqlite.restore as restore_file
    from tiermem.agent.interrupts import InterruptReported
    from tiermem.agent.restore_command import cmd_restore

    snapshot = _snapshot_over_an_old_agent(tmp_path, monkeypatch)

    def interrupted(built: Path, target: Path) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(restore_file, "place", interrupted)
    notes: list[str] = []
    args = argparse.Namespace(snapshot=str(snapshot), agent="ada", store=None, replace=True)
    with pytest.raises(InterruptReported):
        cmd_restore(args, notes.append)
    assert "home is as it was" in notes[-1], notes
    assert _facts_of_ada(tmp_path) == ["the old memory's fact"]


def test_a_file_step_that_fails_is_said_not_a_traceback(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The rename that installs the restored database failing (a failing device, a full
    disk): exit 1, one line saying why and that the old memory is as it was."""
    import argparse
    import errno

    import tiermem.memory.store.sqlite.restore as restore_file
    from tiermem.agent.restore_command import cmd_restore

    snapshot = _snapshot_over_an_old_agent(tmp_path, monkeypatch)

    def failing(built: Path, target: Path) -> None:
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(restore_file, "place", failing)
    notes: list[str] = []
    args = argparse.Namespace(snapshot=str(snapshot), agent="ada", store=None, replace=True)
    assert cmd_restore(args, notes.append) == 1
    assert notes == [f"cannot restore agent ada from {snapshot}: Input/output error; agent "
                     f"ada's memory is as it was; once the cause is fixed, run the same "
                     f"`tiermem restore` again"]
    monkeypatch.undo()
    assert _facts_of_ada(tmp_path) == ["the old memory's fact"]


def _snapshot_over_an_old_agent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A snapshot of one memory, and agent ada holding another in $TIERMEM_HOME."""
    from tiermem.memory.embed.embeddings import HashingEmbedder
    from tiermem.memory.hierarchy import HierarchicalMemory

    monkeypatch.setenv("TIERMEM_HOME", str(tmp_path / "home"))
    snapshot = tmp_path / "snap.json"
    with HierarchicalMemory(tmp_path / "source", embedder=HashingEmbedder()) as source:
        source.add_fact("the new memory's fact")
        source.write_snapshot(snapshot)
    with HierarchicalMemory(tmp_path / "home" / "agents" / "ada",
                            embedder=HashingEmbedder()) as old:
        old.add_fact("the old memory's fact")
    return snapshot


def _facts_of_ada(tmp_path: Path) -> list[str]:
    from tiermem.memory.embed.embeddings import HashingEmbedder
    from tiermem.memory.hierarchy import HierarchicalMemory

    with HierarchicalMemory(tmp_path / "home" / "agents" / "ada",
                            embedder=HashingEmbedder()) as kept:
        return [f.text for f in kept.core]
