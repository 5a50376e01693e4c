"""A PostgreSQL database an older version of tiermem wrote: a read-only open refuses it as
older (OlderSchemaError), the read-only commands name ``tiermem upgrade --store``, and that
command upgrades it in place. One a newer version wrote is refused by every open
(NewerSchemaError) and left as it was, and a writer open when a newer version upgrades the
database is refused each write after that, a reader each read."""

from __future__ import annotations

import json
import os
import pickle
import shlex
import socket
from pathlib import Path

import psycopg
import pytest
from psycopg.pq import TransactionStatus

from tiermem.cli import main
from tiermem.memory.embed.embeddings import HashingEmbedder
from tiermem.memory.errors import NewerSchemaError, OlderSchemaError, StoreError
from tiermem.memory.hierarchy import HierarchicalMemory
from tiermem.memory.store.opening import open_postgres
from tiermem.memory.store.postgres.schema import MIGRATIONS, SCHEMA_VERSION, applied_version
from tiermem.memory.store.postgres.schema_search import WORDS_ACROSS_MARKS
from tiermem.memory.store.postgres.writer_lock import changes_channel


def _older_agent(dsn: str) -> None:
    """Agent ada, in a database set back to the schema before the newest migration."""
    with HierarchicalMemory(store=dsn, agent="ada", embedder=HashingEmbedder()) as memory:
        memory.add_fact("User likes green tea", "durable")
    _set_back(dsn)


def _set_back(dsn: str) -> None:
    # The newest migration indexes the words a mark of no width splits as they look too,
    # and changes no table: its record gone undoes it (run again, it finds nothing to do).
    assert MIGRATIONS[-1][1] == WORDS_ACROSS_MARKS, "set back what the newest one does"
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("DELETE FROM tiermem.migrations WHERE version = %s", (SCHEMA_VERSION,))


def _schema(dsn: str) -> int:
    with psycopg.connect(dsn, autocommit=True) as conn:
        return applied_version(conn)


def test_a_read_only_open_of_an_older_schema_raises_older_schema_error(
        postgres_dsn: str) -> None:
    _older_agent(postgres_dsn)
    with pytest.raises(OlderSchemaError, match="older version of tiermem") as info:
        open_postgres(postgres_dsn, "ada", read_only=True)
    older = info.value
    assert (older.found, older.current) == (SCHEMA_VERSION - 1, SCHEMA_VERSION)
    copy = pickle.loads(pickle.dumps(older))
    assert (type(copy), str(copy), copy.found) == (OlderSchemaError, str(older), older.found)
    assert _schema(postgres_dsn) == SCHEMA_VERSION - 1
    with HierarchicalMemory(store=postgres_dsn, agent="ada",
                            embedder=HashingEmbedder()) as memory:  # a writer upgrades it
        assert [f.text for f in memory.facts()] == ["User likes green tea"]
    open_postgres(postgres_dsn, "ada", read_only=True).close()


def test_a_database_without_tiermem_is_not_reported_as_older(postgres_dsn: str) -> None:
    with pytest.raises(StoreError, match="has no tiermem memory yet") as info:
        open_postgres(postgres_dsn, "ada", read_only=True)
    assert not isinstance(info.value, OlderSchemaError)
    assert "older" not in str(info.value)


def test_diagnostics_names_upgrade_with_the_store_and_upgrade_upgrades(
        postgres_dsn: str, capsys: pytest.CaptureFixture[str]) -> None:
    _older_agent(postgres_dsn)
    assert main(["diagnostics", "--agent", "ada", "--store", postgres_dsn]) == 1
    err = capsys.readouterr().err
    assert (f"(schema {SCHEMA_VERSION - 1}; this version reads {SCHEMA_VERSION}); run "
            f"`tiermem upgrade --agent ada --store {shlex.quote(postgres_dsn)}`") in err
    assert _schema(postgres_dsn) == SCHEMA_VERSION - 1

    assert main(["upgrade", "--agent", "ada", "--store", postgres_dsn]) == 0
    assert capsys.readouterr().out.strip() == (
        f"upgraded agent ada's memory from schema {SCHEMA_VERSION - 1} to {SCHEMA_VERSION}")
    assert main(["diagnostics", "--agent", "ada", "--store", postgres_dsn, "--json"]) == 0
    capsys.readouterr()
    assert main(["upgrade", "--agent", "ada", "--store", postgres_dsn]) == 0
    assert "nothing to do" in capsys.readouterr().out
    assert main(["upgrade", "--agent", "bob", "--store", postgres_dsn]) == 2
    assert "no agent named 'bob'" in capsys.readouterr().err


def test_upgrade_of_an_agent_open_elsewhere_says_the_database_was_upgraded(
        postgres_dsn: str, capsys: pytest.CaptureFixture[str]) -> None:
    # The database's migrations come before the agent's lock, so they are done regardless.
    with HierarchicalMemory(store=postgres_dsn, agent="ada", embedder=HashingEmbedder()):
        _set_back(postgres_dsn)  # as a chat an older tiermem started would have it
        assert main(["upgrade", "--agent", "ada", "--store", postgres_dsn]) == 0
        done = capsys.readouterr()
        assert _schema(postgres_dsn) == SCHEMA_VERSION
    said = " ".join(done.out.split())  # as the console wrapped it
    assert said.startswith(
        f"upgraded the schema of agent ada's database from {SCHEMA_VERSION - 1} to "
        f"{SCHEMA_VERSION}, for every agent in it; agent 'ada' in ")
    assert f"is open for writing by process {os.getpid()} on host " in said
    assert said.endswith("which the upgrade did not have to wait for")
    assert done.err == ""
    # --json says who held it, so a script can tell this case from a plain upgrade.
    with HierarchicalMemory(store=postgres_dsn, agent="ada", embedder=HashingEmbedder()):
        _set_back(postgres_dsn)
        assert main(["upgrade", "--agent", "ada", "--store", postgres_dsn, "--json"]) == 0
        report = json.loads(capsys.readouterr().out)
    assert (report["from"], report["to"], report["upgraded"]) == (
        SCHEMA_VERSION - 1, SCHEMA_VERSION, True)
    assert f"is open for writing by process {os.getpid()} on host " in report["held_by"]


def _contents(dsn: str) -> list[tuple[object, ...]]:
    """Every row of tiermem's tables, table by table."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        tables = [row[0] for row in conn.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'tiermem' ORDER BY tablename")]
        return [(table, *row) for table in tables for row in conn.execute(
            f"SELECT * FROM tiermem.{table} ORDER BY 1").fetchall()]


def _upgrade_by_a_newer_version(dsn: str) -> None:
    """What a newer tiermem's upgrade records: a migration this version does not know."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("INSERT INTO tiermem.migrations (version, name) VALUES (%s, 'newer')",
                     (SCHEMA_VERSION + 1,))


@pytest.mark.parametrize("read_only", [False, True])
def test_an_open_of_a_newer_schema_is_refused_and_changes_nothing(
        postgres_dsn: str, read_only: bool) -> None:
    with HierarchicalMemory(store=postgres_dsn, agent="ada",
                            embedder=HashingEmbedder()) as memory:
        memory.add_fact("User likes green tea", "durable")
    _upgrade_by_a_newer_version(postgres_dsn)
    before = _contents(postgres_dsn)
    for agent in ("ada", "bob"):  # a writer would create bob
        with pytest.raises(NewerSchemaError, match="newer version of tiermem") as info:
            open_postgres(postgres_dsn, agent, read_only=read_only)
        assert (info.value.found, info.value.current) == (SCHEMA_VERSION + 1, SCHEMA_VERSION)
    assert _contents(postgres_dsn) == before
    assert main(["chat", "--agent", "ada", "--store", postgres_dsn, "--offline",
                 "--embedder", "hashing"]) == 1
    assert main(["diagnostics", "--agent", "ada", "--store", postgres_dsn]) == 1
    assert main(["drop-agent", "--agent", "ada", "--store", postgres_dsn, "--yes"]) == 1
    assert _contents(postgres_dsn) == before


def test_a_writer_open_when_a_newer_version_upgrades_the_database_writes_no_more(
        postgres_dsn: str) -> None:
    # The schema is the database's: a newer tiermem opening any agent there upgrades it
    # while this writer goes on with its own, whose writes could break what it added.
    with HierarchicalMemory(store=postgres_dsn, agent="ada",
                            embedder=HashingEmbedder()) as memory:
        memory.add_fact("User likes green tea", "durable")
        _upgrade_by_a_newer_version(postgres_dsn)
        before = _contents(postgres_dsn)
        for write in (lambda: memory.add_fact("User lives in Lyon", "durable"),
                      lambda: memory.archival_insert("the billing runbook"),
                      lambda: memory.process_interaction("hello", "hi")):
            with pytest.raises(NewerSchemaError, match="install a newer tiermem") as info:
                write()
            assert (info.value.found, info.value.current) == (SCHEMA_VERSION + 1,
                                                              SCHEMA_VERSION)
            # Rolled back: the connection is left out of any transaction.
            assert memory.store.conn.info.transaction_status == TransactionStatus.IDLE
        assert _contents(postgres_dsn) == before
        assert [f.text for f in memory.core] == ["User likes green tea"]


@pytest.mark.parametrize("listening", [True, False])
def test_a_reader_open_when_a_newer_version_upgrades_the_database_reads_no_more(
        postgres_dsn: str, listening: bool) -> None:
    """A read-only session (a dashboard, a long diagnostics run) open as a newer tiermem
    upgrades the database: what it read after that could leave out what the newer schema
    withholds (a column it added), or fail with a raw driver error (one it changed). Each
    read after the upgrade raises NewerSchemaError instead, with or without the writer's
    announcements (a hot standby takes no LISTEN)."""
    with HierarchicalMemory(store=postgres_dsn, agent="ada",
                            embedder=HashingEmbedder()) as memory:
        memory.add_fact("User likes green tea", "durable")
        memory.archival_insert("the billing runbook")
    with HierarchicalMemory(store=postgres_dsn, agent="ada", embedder=HashingEmbedder(),
                            read_only=True) as reader:
        reader.store._listening = listening and reader.store._listening
        assert [f.text for f in reader.core] == ["User likes green tea"]
        _upgrade_by_a_newer_version(postgres_dsn)
        with psycopg.connect(postgres_dsn, autocommit=True) as conn:
            # What that version might change: a column the old reader knows, renamed.
            conn.execute("ALTER TABLE tiermem.facts RENAME COLUMN text TO body")
            conn.execute(f"NOTIFY {changes_channel(reader.store.agent_id)}")
        for read in (lambda: len(reader.core), lambda: reader.facts(),
                     lambda: reader.archival_search("billing runbook")):
            with pytest.raises(NewerSchemaError, match="install a newer tiermem") as info:
                read()
            assert (info.value.found, info.value.current) == (SCHEMA_VERSION + 1,
                                                              SCHEMA_VERSION)
            assert reader.store.conn.info.transaction_status == TransactionStatus.IDLE


def _two_turns(dsn: str) -> None:
    with HierarchicalMemory(store=dsn, agent="ada", embedder=HashingEmbedder()) as memory:
        memory.process_interaction("I live in Lyon.", "Noted.")
        memory.process_interaction("I work at Globex.", "Noted.")


def test_upgrade_of_an_agent_open_elsewhere_names_the_counters_it_left_below(
        postgres_dsn: str, capsys: pytest.CaptureFixture[str]) -> None:
    _two_turns(postgres_dsn)
    with HierarchicalMemory(store=postgres_dsn, agent="ada", embedder=HashingEmbedder()):
        _set_back(postgres_dsn)
        with psycopg.connect(postgres_dsn, autocommit=True) as conn:
            conn.execute("UPDATE tiermem.settings SET value = '0' WHERE key = 'tick'")
        assert main(["upgrade", "--agent", "ada", "--store", postgres_dsn, "--json"]) == 0
        report = json.loads(capsys.readouterr().out)
        assert report["not_raised"] == [{"counter": "tick", "from": 0, "to": 2}]
        assert report["raised"] == []
        _set_back(postgres_dsn)
        assert main(["upgrade", "--agent", "ada", "--store", postgres_dsn]) == 0
        said = " ".join(capsys.readouterr().out.split())
    assert said.endswith(
        f"its counters left below what its rows hold (tick holds 0, its rows 2) were not "
        f"raised, as that process writes them: once it ends, run `tiermem upgrade --agent "
        f"ada --store {shlex.quote(postgres_dsn)}` again to raise them")
    assert main(["upgrade", "--agent", "ada", "--store", postgres_dsn, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert (report["raised"], report["not_raised"]) == (
        [{"counter": "tick", "from": 0, "to": 2}], [])


def test_upgrade_of_a_current_agent_open_elsewhere_names_the_counters_left_below(
        postgres_dsn: str, capsys: pytest.CaptureFixture[str]) -> None:
    _two_turns(postgres_dsn)
    with psycopg.connect(postgres_dsn, autocommit=True) as conn:
        conn.execute("UPDATE tiermem.settings SET value = '0' WHERE key = 'tick'")
    with HierarchicalMemory(store=postgres_dsn, agent="ada", embedder=HashingEmbedder()):
        assert main(["upgrade", "--agent", "ada", "--store", postgres_dsn, "--json"]) == 1
        done = capsys.readouterr()
    report = json.loads(done.out)
    assert report["not_raised"] == [{"counter": "tick", "from": 0, "to": 2}]
    assert (report["from"], report["upgraded"]) == (SCHEMA_VERSION, False)
    assert report["error"].endswith(
        "and try again, which raises its counters left below what its rows hold (tick "
        "holds 0, its rows 2)")
    assert done.err == f"tiermem: {report['error']}\n"


def test_upgrade_json_of_a_server_it_cannot_reach_still_prints_its_object(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    # A script asking for JSON was left with nothing to parse when the server was down.
    monkeypatch.setenv("TIERMEM_HOME", str(tmp_path))
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))  # bound, never listening: every connect is refused
        dsn = f"postgresql://tiermem@127.0.0.1:{closed.getsockname()[1]}/memories"
        assert main(["upgrade", "--agent", "ada", "--store", dsn, "--json"]) == 1
    done = capsys.readouterr()
    report = json.loads(done.out)
    # No schema could be read: none is guessed.
    assert report == {"agent": "ada", "from": None, "to": None, "upgraded": False,
                      "finished_creating": False, "held_by": None,
                      "error": report["error"], "raised": [], "not_raised": []}
    assert report["error"].startswith("cannot connect to PostgreSQL at ")
    assert done.err == f"tiermem: {report['error']}\n"


def test_upgrade_of_a_server_gone_after_the_agent_was_found_connects_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    # A server dropping packets holds each connection attempt for its whole timeout: the
    # refusal must not read the schema with one more.
    from tiermem.agent import place as places
    monkeypatch.setenv("TIERMEM_HOME", str(tmp_path))
    attempts: list[str] = []
    connect = psycopg.connect

    def counted(*args: object, **kwargs: object) -> psycopg.Connection:
        attempts.append("connect")
        return connect(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(psycopg, "connect", counted)
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))  # bound, never listening: every connect is refused
        dsn = f"postgresql://tiermem@127.0.0.1:{closed.getsockname()[1]}/memories"
        # The lookup found the agent; the server went away right after.
        monkeypatch.setattr(places, "agent_place", lambda name, store, existing=False:
                            places.AgentPlace(name, tmp_path / name, dsn))
        assert main(["upgrade", "--agent", "ada", "--store", dsn, "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["from"] is None
    assert report["error"].startswith("cannot connect to PostgreSQL at ")
    assert attempts == ["connect"]
