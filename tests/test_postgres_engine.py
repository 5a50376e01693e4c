"""The engine on PostgreSQL: ``HierarchicalMemory(store=DSN, agent=NAME)``, an agent turn
as one transaction, the command line's ``--store`` and ``TIERMEM_STORE``, and the errors a
user meets on the way (each saying what to do)."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Any

import pytest
from psycopg.conninfo import make_conninfo

from tiermem.agent.errors import ProviderError
from tiermem.agent.loop import Agent
from tiermem.agent.scripted import ScriptedModel, call, reply
from tiermem.cli import main
from tiermem.memory.embed.embeddings import HashingEmbedder
from tiermem.memory.errors import InvalidInputError, StoreError
from tiermem.memory.hierarchy import HierarchicalMemory
from tiermem.memory.store.postgres import connection


def _memory(dsn: str, agent: str, **options: Any) -> HierarchicalMemory:
    return HierarchicalMemory(store=dsn, agent=agent, embedder=HashingEmbedder(), **options)


def test_a_memory_on_a_dsn_keeps_what_it_stored_for_its_agent_only(postgres_dsn: str) -> None:
    with _memory(postgres_dsn, "alice", core_limit=2, core_limit_unit="facts") as m:
        for text in ("the staging cluster is amber", "the api is slow", "the db is fine"):
            m.add_fact(text, "durable")
        m.archival_insert("runbook: restart the billing worker", tags=["ops"])
        m.process_interaction("I'm allergic to peanuts.", "Noted.")
        snap = m.snapshot()
    with _memory(postgres_dsn, "alice") as reopened:
        assert reopened.snapshot() == snap
        assert reopened.archival_search("billing worker").hits[0].text.startswith("runbook")
    with _memory(postgres_dsn, "bob") as other:
        assert other.facts() == [] and len(other.recall) == 0
        assert other.archival_search("billing worker").total == 0


def test_an_agent_turn_that_fails_mid_way_rolls_back_whole(postgres_dsn: str) -> None:
    memory = _memory(postgres_dsn, "alice")
    model = ScriptedModel([call("core_memory_append", content="User likes tea",
                                request_heartbeat=True), reply("Noted.")])
    agent = Agent(memory, model)
    agent.step("I like tea")
    before = memory.snapshot()
    model.add(
        call("core_memory_append", content="User hates coffee", request_heartbeat=True),
        call("archival_memory_insert", content="coffee note", request_heartbeat=True),
        ProviderError("HTTP 500 upstream exploded", kind="server", status_code=500),
    )
    with pytest.raises(ProviderError):
        agent.step("I hate coffee")
    model.assert_finished()
    memory.close()
    # What the database holds, read by another session: only the question, unanswered.
    with _memory(postgres_dsn, "alice", read_only=True) as reader:
        after = reader.snapshot()
    (question,) = [r for r in after["tables"]["messages"] if r["content"] == "I hate coffee"]
    assert question["status"] == "unanswered"
    after["tables"]["messages"].remove(question)
    assert after["tables"] == before["tables"]
    assert "coffee note" not in json.dumps(after)


def test_a_dsn_needs_an_agent_name(postgres_dsn: str) -> None:
    with pytest.raises(InvalidInputError, match="agent='NAME'"):
        HierarchicalMemory(store=postgres_dsn, embedder=HashingEmbedder())
    with pytest.raises(InvalidInputError, match="invalid agent name"):
        HierarchicalMemory(store=postgres_dsn, agent="../x", embedder=HashingEmbedder())


def test_a_store_that_is_not_a_dsn_and_an_agent_without_one_are_refused(tmp_path: Path) -> None:
    with pytest.raises(InvalidInputError, match="not a PostgreSQL DSN"):
        HierarchicalMemory(store=str(tmp_path), agent="alice")
    with pytest.raises(InvalidInputError, match="store='postgresql://"):
        HierarchicalMemory(tmp_path / "home", agent="alice")


def test_a_bad_dsn_and_an_unreachable_server_say_what_to_do(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match=r"not valid.*postgresql://USER@HOST"):
        HierarchicalMemory(store="dbname=x nonsense=1", agent="alice")
    nowhere = f"postgresql://postgres@/postgres?host={tmp_path}"
    with pytest.raises(StoreError, match=r"cannot connect.*tiermem pg status"):
        HierarchicalMemory(store=nowhere, agent="alice")


def test_a_database_the_server_lacks_is_named_with_how_to_create_it(
        postgres_server: str, capsys: pytest.CaptureFixture[str]) -> None:
    missing = make_conninfo(postgres_server, dbname="no_such_db")
    with pytest.raises(StoreError, match=r'"no_such_db" does not exist; create it '
                                         r"\(`createdb no_such_db`, or `CREATE DATABASE "
                                         r"no_such_db` in psql\).*has `postgres`"):
        HierarchicalMemory(store=missing, agent="alice", embedder=HashingEmbedder())
    odd = make_conninfo(postgres_server, dbname="No Db")
    assert main(["config", "--agent", "alice", "--store", odd]) == 1
    assert """`createdb 'No Db'`, or `CREATE DATABASE "No Db"` in psql""" in (
        capsys.readouterr().err)


def test_a_server_without_pgvector_is_refused_with_how_to_get_it(
        postgres_dsn: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # The local server has pgvector; an extension name it lacks stands in for a server
    # without it.
    monkeypatch.setattr(connection, "VECTOR_EXTENSION", "vector_not_installed_here")
    with pytest.raises(StoreError, match=r"no pgvector extension.*tiermem pg start"):
        HierarchicalMemory(store=postgres_dsn, agent="alice", embedder=HashingEmbedder())


def _piped(monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(text.encode())))


def test_the_command_line_keeps_agents_in_the_database_given(
        postgres_dsn: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        _isolated_home: Path) -> None:
    _piped(monkeypatch, "My name is Ada.\n")
    chat = ["chat", "--agent", "ada", "--offline", "--embedder", "hashing", "--json"]
    assert main([*chat, "--store", postgres_dsn]) == 0
    capsys.readouterr()
    assert not (_isolated_home / "agents" / "ada").exists()  # nothing went to a home
    with _memory(postgres_dsn, "ada", read_only=True) as m:
        assert any("Ada" in f.text for f in m.facts())
    # TIERMEM_STORE does what --store does, for every command that opens an agent.
    monkeypatch.setenv("TIERMEM_STORE", postgres_dsn)
    assert main(["config", "--agent", "ada", "core_limit", "123"]) == 0
    assert "stored for agent ada" in capsys.readouterr().out
    assert main(["config", "--agent", "ada", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["settings"]["core_limit"] == 123
    assert main(["diagnostics", "--agent", "ada", "--embedder", "hashing", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["core"]["facts"] >= 1
    assert main(["diagnostics", "--agent", "nobody", "--embedder", "hashing"]) == 2
    assert "no agent named 'nobody' in " in capsys.readouterr().err


def test_an_unknown_agent_in_a_database_is_a_usage_error_and_never_created(
        postgres_dsn: str, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    store = ["--store", postgres_dsn]
    for command in (["config"], ["diagnostics", "--embedder", "hashing"],
                    ["reindex", "--embedder", "hashing"], ["index"],
                    ["forget", "--embedder", "hashing", "x"]):
        assert main([*command, "--agent", "nobody", *store]) == 2, command
        assert capsys.readouterr().err.endswith(  # an empty database: how to make one
            f"(no agents yet; `tiermem chat --store '{postgres_dsn}' --agent nobody` "
            "creates one)\n"), command
    _piped(monkeypatch, "My name is Ada.\n")
    assert main(["chat", "--agent", "ada", "--offline", "--embedder", "hashing",
                 "--core-limit", "100", *store]) == 0
    assert (f"`tiermem config --store '{postgres_dsn}' --agent ada core_limit 100` stores "
            "the limit") in capsys.readouterr().err
    for command in (["config"], ["forget", "--embedder", "hashing", "x"]):
        assert main([*command, "--agent", "nobody", *store]) == 2
        assert "(agents: ada)" in capsys.readouterr().err
    assert main(["config", "--agent", "ada", *store]) == 0
    assert f"`tiermem config --store '{postgres_dsn}' --agent ada SETTING VALUE`" in " ".join(
        capsys.readouterr().out.split())  # the table's width wraps the line
    assert main(["index", "--agent", "ada", *store]) == 0
    assert "nothing to build: PostgreSQL searches the vectors itself" in capsys.readouterr().out
    with _memory(postgres_dsn, "ada", read_only=True) as m:
        assert m.forget_requests() == []  # the refused forget reached no agent


def test_a_database_agent_reads_its_policy_file_from_its_home_directory(
        postgres_dsn: str, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str], _isolated_home: Path) -> None:
    home = _isolated_home / "agents" / "ada"
    chat = ["chat", "--agent", "ada", "--offline", "--embedder", "hashing",
            "--store", postgres_dsn]
    _piped(monkeypatch, "/policy\n")
    assert main(chat) == 0
    assert f"put policy.yaml in {home}\n" in capsys.readouterr().out
    assert not home.exists()  # --store keeps the agent in the database alone
    home.mkdir(parents=True)
    (home / "policy.yaml").write_text("retention:\n  policies: [no health data]\n"
                                      "  policy_rules:\n    no health data: []\n")
    _piped(monkeypatch, "/policy\n")
    assert main(chat) == 0
    out, err = capsys.readouterr()
    assert f"privacy policy {home / 'policy.yaml'}" in err
    assert "retention statements: no health data" in out


def test_a_store_option_that_is_not_a_dsn_is_a_usage_error(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("TIERMEM_STORE", "/some/directory")
    assert main(["config", "--agent", "ada"]) == 2
    assert "TIERMEM_STORE must be a PostgreSQL DSN" in capsys.readouterr().err


@pytest.mark.parametrize("dsn, said", [
    ("postgresql://postgres@/postgres?host=/run/pg&sslmod=off", 'parameter: "sslmod"'),
    ("postgresql://[::1/postgres", "IPv6"),
    ("host=/run/pg dbname=postgres nonsense=1", '"nonsense"'),
    ("postgresql://postgres@/postgres?vector_index=fast", "vector_index='fast'"),
    # libpq reads these only when it connects, and would report a server out of reach.
    ("postgresql://postgres@localhost:notaport/postgres", "port 'notaport' is not a port"),
    ("postgresql://postgres@localhost:5432:1/postgres", "port '5432:1' is not a port"),
    ("postgresql://postgres@/postgres?host=/run/pg&sslmode=bogus", "sslmode 'bogus' is not"),
    ("host=/run/pg dbname=postgres connect_timeout=abc", "connect_timeout 'abc' is not"),
])
def test_a_dsn_that_cannot_be_read_is_a_usage_error(
        dsn: str, said: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    # Refused as written, before any server is asked, by every command that takes one.
    for command in (["config", "--agent", "ada", "--store", dsn],
                    ["diagnostics", "--agent", "ada", "--store", dsn],
                    ["migrate", "--from", str(tmp_path / "ada"), "--to", dsn],
                    ["migrate", "--from", dsn, "--agent", "ada", "--to", str(tmp_path / "a")]):
        assert main(command) == 2, command
        err = capsys.readouterr().err
        assert said in err and err.count("\n") == 1, command
    monkeypatch.setenv("TIERMEM_STORE", dsn)
    assert main(["config", "--agent", "ada"]) == 2
    assert capsys.readouterr().err.startswith("tiermem: TIERMEM_STORE: ")
    assert not (tmp_path / "a").exists()


def test_a_scenario_runs_in_the_database(postgres_dsn: str,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    args = ["scenario", "personal-assistant", "--embedder", "hashing", "--store", postgres_dsn]
    assert main(args) == 0
    assert main(args) == 0  # a second run starts from an empty agent again
    assert "scenario-personal-assistant" in capsys.readouterr().out


def test_a_second_run_of_a_scenario_in_the_database_says_one_is_under_way(
        postgres_dsn: str, capsys: pytest.CaptureFixture[str]) -> None:
    from tiermem.agent.place import store_flag

    args = ["scenario", "personal-assistant", "--embedder", "hashing", "--store", postgres_dsn]
    assert main(args) == 0
    capsys.readouterr()
    # Held as the run under way holds it.
    with HierarchicalMemory(store=postgres_dsn, agent="scenario-personal-assistant",
                            embedder=HashingEmbedder()) as running:
        kept = [fact.text for fact in running.facts()]
        assert main(args) == 1
        assert [fact.text for fact in running.facts()] == kept != []
    out, err = capsys.readouterr()
    reader = f"tiermem diagnostics --scenario personal-assistant{store_flag(postgres_dsn)}"
    assert out == "" and err.startswith("tiermem: agent 'scenario-personal-assistant' in "), err
    assert err.endswith(
        f": scenario personal-assistant is being run there already, and `{reader}` reads it "
        "meanwhile. Wait for that run to end, or give this one a database of its own: "
        "`tiermem scenario personal-assistant --store DSN` with another database's DSN\n"), err


SECRET = "Hunter2Secret"


@pytest.mark.parametrize("dsn", [
    f"postgresq://alice:{SECRET}@127.0.0.1:5432/alicedb",  # a mistyped scheme
    f"postgresql://alice:{SECRET}%zz@127.0.0.1/alicedb",  # a bad percent escape
    f"postgres://alice:{SECRET}@[::1/alicedb",  # an unclosed IPv6 address
    f"host=/run/pg password={SECRET} port=notaport",
    f"mysql://alice:{SECRET}@db.example/app",
    f"postgresq://alice@db.example/app?password={SECRET}",  # in the query string
    f"postgresql://alice@db.example/app?password={SECRET}%zz",
    f"postgresq://alice:{SECRET}/x@db.example/app",  # an unencoded "/" in it
    # The key as libpq decodes it (pass%77ord), and sslpassword (the SSL key's).
    f"postgres://alice@[::1/alicedb?pass%77ord={SECRET}",
    f"postgres://alice@[::1/alicedb?sslpassword={SECRET}",
    f"postgresq://alice@db.example/app sslpassword={SECRET}",
])
def test_no_usage_error_repeats_a_dsn_s_password(
        dsn: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    home = tmp_path / "ada"
    with HierarchicalMemory(home, embedder=HashingEmbedder()) as memory:
        memory.add_fact("User likes tea")
    monkeypatch.chdir(tmp_path)
    for command in (["config", "--agent", "ada", "--store", dsn],
                    ["migrate", "--from", str(home), "--to", dsn],
                    ["migrate", "--from", dsn, "--agent", "ada", "--to", str(tmp_path / "a")]):
        assert main(command) == 2, command
        err = capsys.readouterr().err
        assert SECRET not in err, (command, err)
    monkeypatch.setenv("TIERMEM_STORE", dsn)
    assert main(["config", "--agent", "ada"]) == 2
    assert SECRET not in capsys.readouterr().err
    # A location that is no DSN yet has a scheme is no directory to create either.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ada"]


@pytest.mark.parametrize(("dsn", "secret"), [
    # Not a DSN (a capital key, another scheme): repeated in the error as repr() quotes it.
    ("Host=h password=Hunter2\\Secret", "Secret"),
    ("mysql://alice:Hunter2\\Secret@db.example/app", "Secret"),
    ("Host=h sslpassword='Hunter2\\'Secret'", "Secret"),
    # A key=value password runs to a blank, "&" and all.
    ("Host=h password=ab&Hunter2Secret", "Secret"),
    # ... past a blank or quote escaped, and past a quote after its first character.
    ("Host=h password=Hunter2\\ Secret dbname=d", "Secret"),
    ("Host=h password=it\\'sHunter2Secret", "Secret"),
    ("Host=h password=x'Hunter2Secret", "Secret"),
    # ... and, its quote unclosed (a backslash escaping the end), all that follows it.
    ("Host=h password='Hunter2Secret\\", "Secret"),
    ("Host=h password='Hunter2 Secret", "Secret"),
])
def test_a_dsn_quoted_in_an_error_hides_a_password_holding_a_backslash_or_ampersand(
        dsn: str, secret: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["config", "--agent", "ada", "--store", dsn]) == 2
    err = capsys.readouterr().err
    assert "not a PostgreSQL DSN" in err or "must be a PostgreSQL DSN" in err, err
    assert secret not in err, err


@pytest.mark.parametrize("key", ["pass%77ord", "%70assword", "ssl%70assword"])
def test_a_command_suggested_does_not_repeat_a_password_under_an_escaped_key(
        key: str, postgres_dsn: str, capsys: pytest.CaptureFixture[str]) -> None:
    from urllib.parse import urlencode

    from psycopg.conninfo import conninfo_to_dict

    _memory(postgres_dsn, "ada").close()
    # The same database as a URI, whose query keys libpq decodes.
    parts = {k: str(v) for k, v in conninfo_to_dict(postgres_dsn).items()}
    dsn = f"postgresql:///{parts.pop('dbname')}?{urlencode(parts)}&{key}={SECRET}"
    assert main(["config", "--agent", "ada", "--store", dsn]) == 0
    out = capsys.readouterr().out
    assert "`tiermem config --store DSN --agent ada SETTING VALUE`" in out, out
    assert SECRET not in out


def test_a_piped_chat_stops_once_its_database_connection_is_lost(postgres_dsn: str) -> None:
    import psycopg
    from rich.console import Console

    from tiermem.agent.offline import OfflinePolicy
    from tiermem.agent.repl import STORE_LOST, ChatRepl

    memory = _memory(postgres_dsn, "lost-connection")
    try:
        out, errors = io.StringIO(), io.StringIO()
        repl = ChatRepl(Agent(memory, OfflinePolicy()), console=Console(file=out),
                        errors=errors)
        read: list[str] = []

        def lines() -> Any:
            for line in ["I live in Lisbon.", "I work at Acme.", "I like tea.", "I run."]:
                read.append(line)
                if len(read) == 2:  # the server ends the session (a restart, a network cut)
                    with psycopg.connect(postgres_dsn, autocommit=True) as admin:
                        admin.execute("SELECT pg_terminate_backend(%s)",
                                      (memory.store.conn.info.backend_pid,))  # type: ignore[attr-defined]
                yield line

        assert repl.run_piped(lines()) == 1
        assert memory.store.lost
        # One failed turn, then the run stops rather than failing every line left.
        assert read == ["I live in Lisbon.", "I work at Acme."] and repl.failures == 1
        assert errors.getvalue().endswith(f"tiermem: {STORE_LOST}\n")
    finally:
        with contextlib.suppress(StoreError):
            memory.close()
    with _memory(postgres_dsn, "lost-connection") as memory:
        assert [f.text for f in memory.core] == ["User lives in Lisbon"]


def test_an_interactive_chat_ends_once_its_database_connection_is_lost(
        postgres_dsn: str) -> None:
    import psycopg
    from prompt_toolkit import PromptSession
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput
    from rich.console import Console

    from tiermem.agent.offline import OfflinePolicy
    from tiermem.agent.repl import STORE_LOST_INTERACTIVE, ChatRepl

    memory = _memory(postgres_dsn, "lost-interactive")
    try:
        out, errors = io.StringIO(), io.StringIO()
        repl = ChatRepl(Agent(memory, OfflinePolicy()), console=Console(file=out),
                        errors=errors)
        with psycopg.connect(postgres_dsn, autocommit=True) as admin:  # a server restart
            admin.execute("SELECT pg_terminate_backend(%s)",
                          (memory.store.conn.info.backend_pid,))  # type: ignore[attr-defined]
        with create_pipe_input() as pipe:
            pipe.send_text("I work at Acme.\r/core\rI like tea.\r")
            pipe.close()
            code = repl.run_interactive(
                session=PromptSession(input=pipe, output=DummyOutput()))
        # Not a session going on with /core showing what it last read and every turn failing.
        assert code == 1 and repl.failures == 1
        assert errors.getvalue().endswith(f"tiermem: {STORE_LOST_INTERACTIVE}\n")
        assert "core" not in out.getvalue().split("/exit or Ctrl-D to leave", 1)[1]
    finally:
        with contextlib.suppress(StoreError):
            memory.close()


def test_a_reader_sees_whether_a_writer_holds_the_agent(postgres_dsn: str) -> None:
    import psycopg

    with _memory(postgres_dsn, "held-or-not") as writer:
        writer.add_fact("User likes figs")
        with _memory(postgres_dsn, "held-or-not", read_only=True) as reader:
            assert writer.store.writer_active() and reader.store.writer_active()
    with _memory(postgres_dsn, "held-or-not", read_only=True) as reader:
        assert not reader.store.writer_active()
    # Agent ids start at 1 in every database: a writer of another database's agent 1 is not
    # this one's.
    dsns = []
    with psycopg.connect(postgres_dsn, autocommit=True) as admin:
        for name in ("held_a", "held_b"):
            admin.execute(f"DROP DATABASE IF EXISTS {name}")
            admin.execute(f"CREATE DATABASE {name}")
            dsns.append(make_conninfo(postgres_dsn, dbname=name))
    with _memory(dsns[1], "ag") as other:
        other.add_fact("User likes plums")
    with _memory(dsns[0], "ag") as writer:
        assert writer.store.agent_id == 1  # type: ignore[attr-defined]
        with _memory(dsns[1], "ag", read_only=True) as reader:
            assert reader.store.agent_id == 1  # type: ignore[attr-defined]
            assert not reader.store.writer_active()


def test_a_backend_dropped_unclosed_frees_its_writer_lock_at_once(postgres_dsn: str) -> None:
    """Nothing holds a backend in a cycle: dropped without close (a caller stopped before
    closing it), it is freed with its connection, and its agent can be opened again."""
    import gc

    from tiermem.memory.store.opening import open_backend

    gc.collect()
    gc.disable()  # only reference counting frees it here, as it must
    try:
        backend = open_backend(postgres_dsn, "dropped", read_only=False)
        with backend.transaction():
            backend.settings.set("note", "x")
        del backend
        again = open_backend(postgres_dsn, "dropped", read_only=False)
        again.close()
    finally:
        gc.enable()
