"""``tiermem restore FILE``: a chat's /snapshot brought back as a new agent or over one,
refused without --replace where a memory is, and a file that is no snapshot refused
before anything is written."""

from __future__ import annotations

import json
from pathlib import Path

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
