"""``tiermem migrate`` takes the agent's privacy policy (``policy.yaml``) along with its memory.

The policy lives beside the memory, not in it: in the agent home for an agent kept in
SQLite, in ``$TIERMEM_HOME/agents/NAME`` for one kept in PostgreSQL. A moved agent must
never be left without the policy its owner set, and a policy already at the target must
never be overwritten by the copy (agent/policy_carry.py).
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

import pytest
from postgres_fixtures import fresh_database
from test_cli import tiermem
from test_cli_policy import POLICY, messages

from tiermem.agent import policy_carry
from tiermem.agent.policy_file import session_policy
from tiermem.cli import main
from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.store.sqlite import DB_FILE

#: A weaker policy than POLICY: it withholds nothing medical.
OTHER = """\
rules:
  - rule_id: card
    category: payment
    content_substrings: [card number]
"""


def _agent(home: Path, policy: str | None = POLICY) -> Path:
    with HierarchicalMemory(home, embedder=HashingEmbedder()) as memory:
        memory.add_fact("User's pager rotation starts Monday", "durable")
    if policy is not None:
        (home / "policy.yaml").write_text(policy, encoding="utf-8")
    return home


def _said(capsys: pytest.CaptureFixture[str]) -> str:
    """Standard error without the copy's progress lines."""
    return "".join(line for line in capsys.readouterr().err.splitlines(keepends=True)
                   if not re.fullmatch(r"tiermem: [\d,]+ of [\d,]+ [a-z ]+ copied\n", line))


def _private(path: Path) -> bool:
    return not stat.S_IMODE(path.stat().st_mode) & 0o077


def test_an_agent_moved_to_a_new_home_takes_its_policy(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = _agent(tmp_path / "ada")
    target = tmp_path / "moved" / "ada"
    assert main(["migrate", "--from", str(source), "--to", str(target)]) == 0
    err = _said(capsys)
    assert (target / "policy.yaml").read_bytes() == (source / "policy.yaml").read_bytes()
    assert _private(target / "policy.yaml")
    assert err == (f"tiermem: copied the privacy policy {source / 'policy.yaml'} to "
                   f"{target / 'policy.yaml'}, where agent ada reads it now\n")
    # Where the chat looks for it.
    policy, found = session_policy(target, None)
    assert found == target / "policy.yaml" and policy is not None
    assert [rule.rule_id for rule in policy.rules] == ["diagnosis"]
    assert not list(target.glob(".policy.yaml*"))


def test_a_target_with_another_policy_is_refused_before_anything_is_copied(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = _agent(tmp_path / "ada", OTHER)
    target = tmp_path / "moved" / "ada"
    target.mkdir(parents=True)
    (target / "policy.yaml").write_text(POLICY, encoding="utf-8")
    assert main(["migrate", "--from", str(source), "--to", str(target)]) == 1
    err = _said(capsys)
    assert err.startswith(f"tiermem: {target / 'policy.yaml'} holds a privacy policy other "
                          f"than {source / 'policy.yaml'}, the one agent ada runs under now, "
                          f"and nothing was copied")
    assert f"(copy {source / 'policy.yaml'} over it, or merge the two)" in err
    # Neither policy changed, and no memory was made at the target.
    assert (target / "policy.yaml").read_text(encoding="utf-8") == POLICY
    assert (source / "policy.yaml").read_text(encoding="utf-8") == OTHER
    assert sorted(p.name for p in target.iterdir()) == ["policy.yaml"]
    # Once the user has decided (here: the same policy at both), the move goes through.
    (target / "policy.yaml").write_text(OTHER, encoding="utf-8")
    assert main(["migrate", "--from", str(source), "--to", str(target)]) == 0
    assert _said(capsys) == (
        f"tiermem: the privacy policy {target / 'policy.yaml'} was already there, the same "
        f"as {source / 'policy.yaml'}\n")
    assert (target / DB_FILE).is_file()


def test_a_target_holding_a_memory_is_refused_as_such_before_its_policy_is_compared(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The policy at a target that holds a memory is that memory's: the refusal names the
    memory, not a policy conflict whose advice (copy the source's policy over it) would
    change the other agent's policy."""
    source = _agent(tmp_path / "ada", OTHER)
    target = _agent(tmp_path / "other" / "ada", POLICY)
    before = {p.name: p.read_bytes() for p in target.iterdir()
              if not p.name.endswith(("-shm", "-wal"))}
    assert main(["migrate", "--from", str(source), "--to", str(target)]) == 1
    assert _said(capsys) == (
        f"tiermem: {target} already holds a memory (facts, history, events); migrate into a "
        f"new agent home, or remove {target} first\n")
    assert (target / "policy.yaml").read_text(encoding="utf-8") == POLICY
    # The look at the target wrote nothing (SQLite's shared-memory file aside).
    assert {p.name: p.read_bytes() for p in target.iterdir()
            if not p.name.endswith(("-shm", "-wal"))} == before


def test_a_postgres_target_holding_the_agent_is_refused_as_such_before_its_policy(
        tmp_path: Path, postgres_dsn: str, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from tiermem.agent.place import store_flag

    monkeypatch.setenv("TIERMEM_HOME", str(tmp_path / "tiermem"))
    source = _agent(tmp_path / "ada", OTHER)
    with HierarchicalMemory(store=postgres_dsn, agent="ada", embedder=HashingEmbedder()) as held:
        held.add_fact("User's locker code is 4412", "durable")
    policy = tmp_path / "tiermem" / "agents" / "ada" / "policy.yaml"
    policy.parent.mkdir(parents=True, exist_ok=True)
    policy.write_text(POLICY, encoding="utf-8")
    assert main(["migrate", "--from", str(source), "--to", postgres_dsn]) == 1
    err = _said(capsys)
    assert "already holds a memory (facts, history, events)" in err, err
    assert err.endswith(f"; migrate into a new agent or an empty database, or delete that "
                        f"agent first: `tiermem drop-agent --agent ada"
                        f"{store_flag(postgres_dsn)} --yes`\n")
    assert "privacy policy" not in err
    assert policy.read_text(encoding="utf-8") == POLICY


def test_a_policy_only_the_target_has_is_named_and_kept(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = _agent(tmp_path / "ada", None)
    target = tmp_path / "moved" / "ada"
    target.mkdir(parents=True)
    (target / "policy.yaml").write_text(POLICY, encoding="utf-8")
    assert main(["migrate", "--from", str(source), "--to", str(target)]) == 0
    assert _said(capsys) == (
        f"tiermem: agent ada had no privacy policy ({source / 'policy.yaml'}); where it is "
        f"now it runs under {target / 'policy.yaml'}, which was there before\n")
    assert (target / "policy.yaml").read_text(encoding="utf-8") == POLICY
    assert not (source / "policy.yaml").exists()


def test_no_policy_anywhere_says_nothing(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    source = _agent(tmp_path / "ada", None)
    assert main(["migrate", "--from", str(source), "--to", str(tmp_path / "b" / "ada")]) == 0
    assert _said(capsys) == ""
    assert not (tmp_path / "b" / "ada" / "policy.yaml").exists()


def test_a_policy_that_cannot_be_read_stops_the_move_as_a_usage_error(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = _agent(tmp_path / "ada", None)
    (source / "policy.yaml").mkdir()  # there, but no file: never taken for "no policy"
    target = tmp_path / "moved" / "ada"
    assert main(["migrate", "--from", str(source), "--to", str(target)]) == 2
    err = _said(capsys)
    assert err.startswith(f"tiermem: cannot read the privacy policy {source / 'policy.yaml'}: ")
    assert not target.exists()


def test_ctrl_c_before_the_policy_is_copied_says_how_to_copy_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    source = _agent(tmp_path / "ada")
    target = tmp_path / "moved" / "ada"

    def interrupted(self: policy_carry.PolicyCarry) -> str | None:
        raise KeyboardInterrupt

    monkeypatch.setattr(policy_carry.PolicyCarry, "copy", interrupted)
    assert main(["migrate", "--from", str(source), "--to", str(target)]) == 130
    err = _said(capsys)
    assert (f"committed and matched, before the agent's privacy policy was copied: copy "
            f"{source / 'policy.yaml'} to {target / 'policy.yaml'} before the agent is used"
            in err)


def test_a_postgres_agent_moved_to_a_home_elsewhere_takes_its_policy_and_withholds(
        postgres_dsn: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The PostgreSQL agent's policy is $TIERMEM_HOME/agents/ada/policy.yaml (conftest
    # sets TIERMEM_HOME); the agent moves to another machine's home.
    with HierarchicalMemory(store=postgres_dsn, agent="ada", embedder=HashingEmbedder()):
        pass
    policy_home = Path(os.environ["TIERMEM_HOME"]) / "agents" / "ada"
    policy_home.mkdir(parents=True)
    (policy_home / "policy.yaml").write_text(POLICY, encoding="utf-8")
    elsewhere = tmp_path / "laptop"
    target = elsewhere / "agents" / "ada"
    assert main(["migrate", "--from", postgres_dsn, "--agent", "ada", "--to",
                 str(target)]) == 0
    assert "copied the privacy policy" in _said(capsys)
    assert (target / "policy.yaml").read_text(encoding="utf-8") == POLICY
    done = tiermem(elsewhere, "chat", "--agent", "ada", "--embedder", "hashing",
                   stdin="I was diagnosed with gout. My name is Dana.\n")
    assert done.returncode == 0, done.stderr
    stored = messages(elsewhere, "ada")
    assert "[withheld: medical] My name is Dana." in stored
    assert not any("gout" in text for text in stored)


def test_an_agent_home_moved_into_postgres_under_another_name_takes_its_policy(
        postgres_dsn: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = _agent(tmp_path / "ada")
    assert main(["migrate", "--from", str(source), "--to", postgres_dsn,
                 "--agent", "bob"]) == 0
    placed = Path(os.environ["TIERMEM_HOME"]) / "agents" / "bob"
    assert _said(capsys) == (
        f"tiermem: copied the privacy policy {source / 'policy.yaml'} to "
        f"{placed / 'policy.yaml'}, where agent bob reads it now\n")
    assert (placed / "policy.yaml").read_text(encoding="utf-8") == POLICY
    assert _private(placed) and _private(placed / "policy.yaml")
    assert not (placed / DB_FILE).exists()  # a policy's directory, no SQLite agent
    policy, _ = session_policy(placed, None)
    assert policy is not None


def test_a_postgres_agent_moved_between_databases_keeps_its_one_policy_file(
        postgres_server: str, capsys: pytest.CaptureFixture[str]) -> None:
    placed = Path(os.environ["TIERMEM_HOME"]) / "agents" / "ada"
    placed.mkdir(parents=True)
    (placed / "policy.yaml").write_text(POLICY, encoding="utf-8")
    with fresh_database(postgres_server) as source, fresh_database(postgres_server) as target:
        with HierarchicalMemory(store=source, agent="ada", embedder=HashingEmbedder()) as m:
            m.add_fact("User's pager rotation starts Monday", "durable")
        assert main(["migrate", "--from", source, "--to", target, "--agent", "ada"]) == 0
    assert _said(capsys) == (
        f"tiermem: the privacy policy {placed / 'policy.yaml'} serves agent ada in both "
        f"places\n")
    assert (placed / "policy.yaml").read_text(encoding="utf-8") == POLICY


def test_a_policy_that_cannot_be_written_leaves_the_moved_agent_named_and_the_fix(
        postgres_dsn: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = _agent(tmp_path / "ada")
    root = Path(os.environ["TIERMEM_HOME"])
    root.mkdir(parents=True)
    (root / "agents").write_text("not a directory")
    assert main(["migrate", "--from", str(source), "--to", postgres_dsn]) == 1
    err = _said(capsys)
    assert err.startswith(f"tiermem: moved agent ada to {postgres_dsn}, but its privacy "
                          f"policy could not be copied (")
    assert err.endswith(f"copy {source / 'policy.yaml'} to "
                        f"{root / 'agents' / 'ada' / 'policy.yaml'} before the agent is used: "
                        f"until then agent ada runs with no privacy policy\n")
