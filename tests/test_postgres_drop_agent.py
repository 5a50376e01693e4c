"""``tiermem drop-agent``: one agent, and all it holds, deleted from a PostgreSQL database,
only when asked with --yes and never while a session writes to it."""

from __future__ import annotations

import shlex
from pathlib import Path

import psycopg
import pytest

from tiermem.cli import main
from tiermem.memory.embed.embeddings import HashingEmbedder
from tiermem.memory.hierarchy import HierarchicalMemory
from tiermem.memory.store.postgres.connection import stored_agents


def _fill(dsn: str, agent: str) -> dict[str, object]:
    with HierarchicalMemory(store=dsn, agent=agent, embedder=HashingEmbedder()) as memory:
        memory.add_fact(f"{agent} likes green tea", "durable")
        memory.archival_insert(f"{agent}'s runbook: restart the billing worker")
        memory.process_interaction("My name is Ada.", "Noted.")
        snapshot: dict[str, object] = memory.snapshot()
        return snapshot


def _left_of(dsn: str, agent: int) -> list[str]:
    """What of agent id ``agent`` the database still holds, by table or index name."""
    with psycopg.connect(dsn) as conn:
        tables = [row[0] for row in conn.execute(
            "SELECT c.relname FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid "
            "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'tiermem' "
            "AND c.relkind = 'r' AND a.attname = 'agent_id'")]
        left = [t for t in tables if conn.execute(
            f"SELECT count(*) FROM tiermem.{t} WHERE agent_id = %s", (agent,)).fetchone() != (0,)]
        left += [row[0] for row in conn.execute(
            "SELECT indexname FROM pg_indexes WHERE schemaname = 'tiermem' "
            "AND indexname LIKE %s", (f"%\\_agent\\_{agent}",))]
    return left


def _vacuum_count(dsn: str) -> int:
    with psycopg.connect(dsn) as conn:
        row = conn.execute("SELECT vacuum_count FROM pg_stat_user_tables "
                           "WHERE schemaname = 'tiermem' AND relname = 'facts'").fetchone()
    assert row is not None
    return int(row[0])


def test_an_agent_is_deleted_whole_only_with_yes_and_others_are_kept(
        postgres_dsn: str, capsys: pytest.CaptureFixture[str]) -> None:
    _fill(postgres_dsn + " vector_index=hnsw", "alice")
    kept = _fill(postgres_dsn, "bob")
    with psycopg.connect(postgres_dsn) as conn:
        row = conn.execute("SELECT id FROM tiermem.agents WHERE name = 'alice'").fetchone()
    assert row is not None
    alice = int(row[0])
    held = _left_of(postgres_dsn, alice)
    assert {"facts", "passages", "messages", "settings", "text_stats"} <= set(held)
    assert any("_hnsw_" in name for name in held)

    drop = ["drop-agent", "--agent", "alice", "--store", postgres_dsn]
    assert main(drop) == 2
    assert "--yes` to do it" in capsys.readouterr().err
    with HierarchicalMemory(store=postgres_dsn, agent="alice", embedder=HashingEmbedder()):
        assert main([*drop, "--yes"]) == 1
        err = capsys.readouterr().err
        assert "is open for writing by process" in err and "read_only" not in err
        assert "wait for that process to end" in err
        assert f"`tiermem diagnostics --agent alice --store {shlex.quote(postgres_dsn)}`" in err
    assert stored_agents(postgres_dsn) == ["alice", "bob"]

    vacuums = _vacuum_count(postgres_dsn)
    assert main([*drop, "--yes"]) == 0
    assert capsys.readouterr().err.startswith("tiermem: deleted agent 'alice' from ")
    # The deleted rows' dead versions, which hold alice's text, are vacuumed away.
    assert _vacuum_count(postgres_dsn) > vacuums
    assert stored_agents(postgres_dsn) == ["bob"]
    assert _left_of(postgres_dsn, alice) == []
    with HierarchicalMemory(store=postgres_dsn, agent="bob", embedder=HashingEmbedder(),
                            read_only=True) as bob:
        assert bob.snapshot() == kept
    assert main([*drop, "--yes"]) == 2
    assert "no agent named 'alice'" in capsys.readouterr().err


def test_drop_agent_needs_a_database(capsys: pytest.CaptureFixture[str],
                                     _isolated_home: Path) -> None:
    assert main(["drop-agent", "--agent", "alice", "--yes"]) == 2
    err = capsys.readouterr().err
    assert "give --store DSN" in err and str(_isolated_home / "agents" / "alice") in err


def test_drop_agent_stopped_during_the_vacuum_after_the_deletion_is_finished_by_running_it_again(
        postgres_dsn: str, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C after the deletion committed, during the vacuum that clears the agent's text
    from dead row versions and pg_stats: the line says the agent is deleted and the clearing
    unfinished, and the same command again finishes it (the agent being gone already)."""
    from tiermem.memory.store.postgres import removal

    _fill(postgres_dsn, "alice")
    _fill(postgres_dsn, "bob")
    with psycopg.connect(postgres_dsn) as conn:
        row = conn.execute("SELECT id FROM tiermem.agents WHERE name = 'alice'").fetchone()
    assert row is not None
    alice = int(row[0])
    vacuum = removal.vacuum_and_analyze

    def ctrl_c(*args: object) -> list[str]:
        raise KeyboardInterrupt

    monkeypatch.setattr(removal, "vacuum_and_analyze", ctrl_c)
    drop = ["drop-agent", "--agent", "alice", "--store", postgres_dsn, "--yes"]
    vacuums = _vacuum_count(postgres_dsn)
    assert main(drop) == 130
    again = f"`tiermem drop-agent --agent alice --store {shlex.quote(postgres_dsn)} --yes`"
    assert capsys.readouterr().err == (
        f"tiermem: drop-agent stopped (Ctrl-C) after agent 'alice' was deleted, before the "
        f"clearing after it finished: its search statistics, and the dead row versions and "
        f"planner statistics (pg_stats) holding its text, may be left; run {again} again to "
        f"clear them\n")
    assert stored_agents(postgres_dsn) == ["bob"]
    assert _left_of(postgres_dsn, alice) == ["text_stats"]  # the mark of what is owed
    assert _vacuum_count(postgres_dsn) == vacuums

    monkeypatch.setattr(removal, "vacuum_and_analyze", vacuum)
    assert main(drop) == 0
    assert capsys.readouterr().err.startswith(
        "tiermem: agent 'alice' is not in ")
    assert _vacuum_count(postgres_dsn) > vacuums
    assert _left_of(postgres_dsn, alice) == []
    # Nothing is owed any more: the same command says the agent is gone.
    assert main(drop) == 2
    assert "no agent named 'alice'" in capsys.readouterr().err
    assert main(["drop-agent", "--agent", "bob", "--store", postgres_dsn]) == 2


def test_drop_agent_stopped_before_its_deletion_committed_says_the_agent_is_as_it_was(
        postgres_dsn: str, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    from tiermem.memory.store.postgres import removal

    _fill(postgres_dsn, "alice")

    def ctrl_c(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(removal, "take_writer_lock", ctrl_c)
    assert main(["drop-agent", "--agent", "alice", "--store", postgres_dsn, "--yes"]) == 130
    assert capsys.readouterr().err == (
        f"tiermem: drop-agent stopped (Ctrl-C) before agent 'alice' was deleted: it is as it "
        f"was, and `tiermem drop-agent --agent alice --store {shlex.quote(postgres_dsn)} "
        f"--yes` deletes it\n")
    assert stored_agents(postgres_dsn) == ["alice"]
