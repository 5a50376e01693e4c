"""`tiermem migrate`: a verified copy of an agent's memory; the source is never changed."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from memory_helpers import migrate_cut_short, turn_filing_a_passage
from postgres_fixtures import fresh_database

from tiermem.agent.place import store_flag
from tiermem.agent.store_commands import rows_counted
from tiermem.cli import main
from tiermem.memory.embed.embeddings import HashingEmbedder
from tiermem.memory.errors import StoreError, TargetHoldsMemoryError, UnfinishedMigrationError
from tiermem.memory.hierarchy import HierarchicalMemory
from tiermem.memory.store import transfer
from tiermem.memory.store.postgres.backend import PostgresBackend
from tiermem.memory.store.postgres.connection import stored_agents
from tiermem.memory.store.records import (
    DUMP_TABLES,
    MIGRATING_KEY,
    Event,
    HistoryPoint,
    Message,
    Passage,
)
from tiermem.memory.store.transfer import content_digest, migrate, open_backend
from tiermem.memory.types import Fact


def _fill(backend: PostgresBackend) -> None:
    rng = np.random.default_rng(5)
    vectors = rng.standard_normal((3, 8)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)  # as an embedder returns them
    with backend.transaction():
        fact = Fact(id=0, text="user's cat is 🐈 Miso", durability="durable", created_at=1.5,
                    created_tick=1.0, last_access=2.0, access_count=3, source="chat",
                    tokens=6)
        backend.facts.insert(fact, "user's cat is miso")
        backend.passages.insert_many([
            Passage(text=f"passage {i} about Miso", created_at=float(i), tags=["cat"],
                    metadata={"n": i}, embedding=vectors[i], embedder_id="test")
            for i in range(3)])
        backend.messages.append_many([
            Message(turn=1, role="user", content="my cat is Miso", created_at=1.0,
                    embedding=vectors[0], embedder_id="test"),
            Message(turn=1, role="tool", content="{}", created_at=1.0, tool_name="x",
                    tool_calls=[{"id": "a"}], tool_call_id="a")])
        backend.messages.erase([2], "test", 3.0)
        backend.history.record(HistoryPoint(1, 1.0, 1, 6, 1, 3, 1, 0, 0))
        backend.history.add_event(Event(1, "add", 1, "", 1.0))
        backend.settings.set("core_limit", 2000)
        backend.settings.set("state.persona", '"helpful"')  # JSON, as set_state writes it


def test_cli_moves_an_agent_between_databases_and_verifies_it(
        postgres_server: str, capsys: pytest.CaptureFixture[str]) -> None:
    with fresh_database(postgres_server) as source, fresh_database(postgres_server) as target:
        original = PostgresBackend(source, "alice")
        _fill(original)
        original.close()
        args = ["migrate", "--from", source, "--to", target, "--agent", "alice"]
        assert main(args) == 0
        out = capsys.readouterr().out
        assert "3 passages" in out and "matches" in out
        before = PostgresBackend(source, "alice", read_only=True)
        after = PostgresBackend(target, "alice", read_only=True)
        try:
            assert content_digest(after) == content_digest(before)
            assert after.settings.get("state.persona") == '"helpful"'
            assert after.store_id != before.store_id
        finally:
            before.close()
            after.close()
        # A second run refuses: the target already holds the agent.
        assert main(args) == 1
        err = capsys.readouterr().err
        assert "already holds a memory" in err
        assert err.endswith(
            f"; migrate into a new agent or an empty database, or delete that agent first: "
            f"`tiermem drop-agent --agent alice{store_flag(target)} --yes`\n")


def test_a_target_holding_a_memory_is_refused_in_words_for_each_caller(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    for name in ("ada", "bea"):
        with HierarchicalMemory(tmp_path / name, embedder=HashingEmbedder()) as memory:
            memory.add_fact(f"{name} likes green tea", "durable")
    source = open_backend(str(tmp_path / "ada"), None, read_only=True)
    target = open_backend(str(tmp_path / "bea"), None, read_only=False)
    try:
        before = content_digest(target)
        with pytest.raises(TargetHoldsMemoryError) as caught:
            migrate(source, target)
        assert content_digest(target) == before
    finally:
        source.close()
        target.close()
    assert str(caught.value) == (
        f"{tmp_path / 'bea'} already holds a memory (facts, history, events); migrate into a "
        f"new agent or an empty database, or delete that agent first (PostgreSQL: "
        f"delete_agent(dsn, name) from tiermem.memory.store.postgres.removal; an agent home: "
        f"remove its directory)")
    assert main(["migrate", "--from", "ada", "--to", "bea"]) == 1
    assert capsys.readouterr().err == (
        f"tiermem: {tmp_path / 'bea'} already holds a memory (facts, history, events); "
        f"migrate into a new agent home, or remove bea first\n")


def test_a_copy_that_does_not_verify_is_rolled_back(postgres_dsn: str,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    source, target = PostgresBackend(postgres_dsn, "alice"), PostgresBackend(postgres_dsn, "bob")
    try:
        _fill(source)
        before = content_digest(source)
        real = transfer.content_digest
        calls: list[str] = []

        def damaged(backend: PostgresBackend, replaced: list[str] | None = None
                    ) -> tuple[dict[str, int], int, str]:
            calls.append(backend.agent_name)
            counts, settings, digest = real(backend, replaced)
            return (counts, settings, digest if backend is source else "0" * 64)

        monkeypatch.setattr(transfer, "content_digest", damaged)
        with pytest.raises(StoreError, match=r"does not match the source.*nothing was written"):
            migrate(source, target)
        assert calls == ["alice", "bob"]
        monkeypatch.undo()
        assert all(next(iter(target.export_rows(t)), None) is None for t in DUMP_TABLES)
        # Only the mark that says a migrate into it did not finish.
        assert target.settings.items() == [(MIGRATING_KEY, source.location)]
        assert content_digest(source) == before
    finally:
        source.close()
        target.close()


def test_an_agent_home_goes_to_postgres_and_back_unchanged(
        postgres_dsn: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home, back = tmp_path / "ada", tmp_path / "returned" / "ada"
    with HierarchicalMemory(home, embedder=HashingEmbedder(), core_limit=2,
                            core_limit_unit="facts") as m:
        for text in ("the staging cluster is amber", "the api is slow", "user's cat is 🐈 Miso"):
            m.add_fact(text, "durable")
        m.archival_insert("runbook: restart the billing worker", tags=["ops"],
                          metadata={"owner": "sre"})
        m.process_interaction("I'm allergic to peanuts.", "Noted.")
        said, filed = turn_filing_a_passage(m, "my door code is 4417", "User's door is 4417")
        m.set_state("persona", {"tone": "dry"})
        snap = m.snapshot()
    assert {(p["id"], p["source_message_id"]) for p in snap["tables"]["passages"]} >= {
        (filed, said)}
    assert main(["migrate", "--from", str(home), "--to", postgres_dsn]) == 0
    assert main(["migrate", "--from", postgres_dsn, "--to", str(back), "--agent", "ada"]) == 0
    assert capsys.readouterr().out.count("matches") == 2
    stores = [open_backend(str(home), "ada", read_only=True),
              open_backend(postgres_dsn, "ada", read_only=True),
              open_backend(str(back), "ada", read_only=True)]
    try:
        digests = [content_digest(store) for store in stores]
    finally:
        for store in stores:
            store.close()
    assert digests[0] == digests[1] == digests[2]
    with HierarchicalMemory(back, embedder=HashingEmbedder()) as returned:
        assert returned.snapshot() == snap
        assert returned.archival_search("billing worker").hits[0].text.startswith("runbook")
    with HierarchicalMemory(store=postgres_dsn, agent="ada", embedder=HashingEmbedder()) as pg:
        assert pg.snapshot() == snap


def test_an_agent_begun_in_postgres_moves_to_an_agent_home_and_back(
        postgres_server: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # An agent home counts its vector rewrites among its settings (for its FAISS files);
    # an agent that never lived in one has no such count, and the copy must still verify.
    home = tmp_path / "agents" / "ada"
    with fresh_database(postgres_server) as source, fresh_database(postgres_server) as again:
        with HierarchicalMemory(store=source, agent="ada", embedder=HashingEmbedder()) as pg:
            pg.archival_insert("runbook: restart the billing worker", tags=["ops"])
            pg.process_interaction("I'm allergic to peanuts.", "Noted.")
            snap = pg.snapshot()
        assert main(["migrate", "--from", source, "--agent", "ada", "--to", str(home)]) == 0
        assert main(["migrate", "--from", str(home), "--to", again]) == 0
        assert capsys.readouterr().out.count("matches") == 2
        with HierarchicalMemory(home, embedder=HashingEmbedder()) as moved:
            assert moved.snapshot() == snap
            assert moved.archival_search("billing worker").hits[0].text.startswith("runbook")
        with HierarchicalMemory(store=again, agent="ada", embedder=HashingEmbedder()) as back:
            assert back.snapshot() == snap
            assert back.store.settings.get("messages_vector_generation") is None


def test_an_unknown_agent_to_move_out_of_a_database_is_a_usage_error_naming_those_there(
        postgres_dsn: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with HierarchicalMemory(store=postgres_dsn, agent="ada", embedder=HashingEmbedder()):
        pass
    target = tmp_path / "agents" / "ghost"
    assert main(["migrate", "--from", postgres_dsn, "--agent", "ghost", "--to",
                 str(target)]) == 2
    err = capsys.readouterr().err
    assert "no agent named 'ghost'" in err and "(agents: ada)" in err
    assert not target.exists() and stored_agents(postgres_dsn) == ["ada"]


def test_relative_agent_home_paths_are_taken_from_the_working_directory(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    with HierarchicalMemory(tmp_path / "agents" / "ops", embedder=HashingEmbedder()) as m:
        m.add_fact("User's pager rotation starts Monday", "durable")
    monkeypatch.chdir(tmp_path)
    assert main(["migrate", "--from", "agents/ops", "--to", "copy/ops"]) == 0
    assert capsys.readouterr().out.startswith(
        "moved agent ops: 1 fact, 0 passages, 0 messages, 1 history row, 1 event, 0 erasures, "
        "0 forget requests, 0 forgotten norms, ")
    with HierarchicalMemory("copy/ops", embedder=HashingEmbedder(), read_only=True) as m:
        assert [f.text for f in m.facts()] == ["User's pager rotation starts Monday"]
    assert main(["migrate", "--from", "no/such", "--to", "other"]) == 2
    err = capsys.readouterr().err
    assert "--from: no agent home at " + str(tmp_path / "no" / "such") in err
    assert "give the directory of an agent" in err and "or a postgresql:// DSN" in err
    assert not (tmp_path / "other").exists()


def test_a_migrate_says_how_far_its_copy_is_in_words_for_one_and_for_many(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with HierarchicalMemory(tmp_path / "ops", embedder=HashingEmbedder()) as m:
        m.add_fact("User's pager rotation starts Monday", "durable")
        m.add_fact("User's team is SRE", "durable")
        m.recall.append("user", "my pager rotation starts Monday", 1)
    assert main(["migrate", "--from", str(tmp_path / "ops"), "--to", str(tmp_path / "copy")]) == 0
    said = [line for line in capsys.readouterr().err.splitlines() if " of " in line]
    # A table with no rows has nothing to copy, and says nothing.
    assert said == ["tiermem: 2 of 2 facts copied", "tiermem: 1 of 1 message copied",
                    "tiermem: 2 of 2 history rows copied", "tiermem: 2 of 2 events copied"]


@pytest.mark.parametrize("table", [*DUMP_TABLES, "settings"])
def test_what_a_migrate_moved_is_counted_in_words_for_one_and_for_many(table: str) -> None:
    one, many = rows_counted(1, table), rows_counted(2_500, table)
    assert one.startswith("1 ") and not one.endswith("s") and "_" not in one
    assert many.startswith("2,500 ") and many.endswith("s") and "_" not in many
    assert rows_counted(0, table) == "0 " + many.removeprefix("2,500 ")


def test_a_path_that_is_no_agent_home_is_a_usage_error_before_anything_is_written(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with HierarchicalMemory(tmp_path / "ada", embedder=HashingEmbedder()) as m:
        m.add_fact("User's pager rotation starts Monday", "durable")
    (tmp_path / "empty").mkdir()
    (tmp_path / "notes.txt").write_text("kept")

    def refused(source: Path, target: Path, said: str) -> None:
        assert main(["migrate", "--from", str(source), "--to", str(target)]) == 2
        err = capsys.readouterr().err
        assert said in err and "postgresql:// DSN" in err, err

    new = tmp_path / "new" / "ada"
    refused(tmp_path / "empty", new, f"--from: {tmp_path / 'empty'} holds no agent memory")
    refused(tmp_path / "notes.txt", new, f"--from: {tmp_path / 'notes.txt'} is not a directory")
    refused(tmp_path / "ada", tmp_path / "notes.txt" / "ada",
            f"--to: cannot create the agent home {tmp_path / 'notes.txt' / 'ada'}: "
            f"{tmp_path / 'notes.txt'} is not a directory")
    refused(tmp_path / "ada", tmp_path / "notes.txt",
            f"--to: {tmp_path / 'notes.txt'} is not a directory")
    assert not (tmp_path / "new").exists() and (tmp_path / "notes.txt").read_text() == "kept"
    # Missing parents of a new agent home are created.
    assert main(["migrate", "--from", str(tmp_path / "ada"), "--to", str(new)]) == 0
    assert "matches" in capsys.readouterr().out


def test_a_migrated_memory_gives_no_id_the_source_erased(
        postgres_dsn: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home, back = tmp_path / "ada", tmp_path / "returned" / "ada"
    with HierarchicalMemory(home, embedder=HashingEmbedder()) as m:
        m.add_fact("the office is on the third floor", "durable")
        m.archival_insert("runbook: restart the billing worker")
        m.recall.append("user", "the printer is by the lifts", 1)
        erased = (m.add_fact("the gate code is 2291", "durable"),
                  m.archival_insert("the safe code is 7730"),
                  m.recall.append("user", "the alarm code is 5512", 1))
        m.erase(facts=[erased[0]], passages=[erased[1]], messages=[erased[2]], reason="codes")
    assert main(["migrate", "--from", str(home), "--to", postgres_dsn]) == 0
    assert main(["migrate", "--from", postgres_dsn, "--to", str(back), "--agent", "ada"]) == 0
    assert capsys.readouterr().out.count("matches") == 2
    with HierarchicalMemory(store=postgres_dsn, agent="ada", embedder=HashingEmbedder()) as pg, \
            HierarchicalMemory(back, embedder=HashingEmbedder()) as returned:
        for copy in (pg, returned):
            stored = (copy.add_fact("the canteen closes at three", "durable"),
                      copy.archival_insert("the lifts are serviced on Fridays"),
                      copy.recall.append("user", "the car park is full", 2))
            assert all(new > old for new, old in zip(stored, erased, strict=True))


def test_state_under_a_key_an_earlier_version_stored_longer_moves_too(
        postgres_dsn: str, tmp_path: Path) -> None:
    home, key = tmp_path / "ada", "state." + "k" * 250  # longer than set_state now takes
    with HierarchicalMemory(home, embedder=HashingEmbedder()) as m:
        m.add_fact("the office is on the third floor", "durable")
        with m.store.transaction():
            m.store.execute("INSERT INTO meta (key, value) VALUES (?, ?)", (key, '"dry"'))
    assert main(["migrate", "--from", str(home), "--to", postgres_dsn]) == 0
    moved = open_backend(postgres_dsn, "ada", read_only=True)
    try:
        assert moved.settings.get(key) == '"dry"'
    finally:
        moved.close()


@pytest.mark.parametrize("into", ["sqlite", "postgres"])
def test_a_migrate_cut_short_leaves_a_target_that_says_so_and_is_run_again(
        tmp_path: Path, into: str, request: pytest.FixtureRequest,
        capsys: pytest.CaptureFixture[str]) -> None:
    home = tmp_path / "src"
    with HierarchicalMemory(home, embedder=HashingEmbedder()) as memory:
        for i in range(30):
            memory.archival_insert(f"runbook step {i}: restart the worker")
        memory.add_fact("User likes figs")
    if into == "sqlite":
        where: dict[str, object] = {"path": tmp_path / "dst"}
        target_args = ["--to", str(tmp_path / "dst")]
        place: tuple[str, str | None] = (str(tmp_path / "dst"), None)
    else:
        dsn = request.getfixturevalue("postgres_dsn")
        where = {"store": dsn, "agent": "cut-short"}
        target_args = ["--to", dsn, "--agent", "cut-short"]
        place = (dsn, "cut-short")
    migrate_cut_short(home, place)
    # Not an empty memory that a session would then write to: every open says what happened.
    for read_only in (True, False):
        with pytest.raises(UnfinishedMigrationError, match="run the migrate again"):
            HierarchicalMemory(embedder=HashingEmbedder(), read_only=read_only,
                               **where)  # type: ignore[arg-type]
    # A reader while a migrate holds the target is told to wait (here the migrate is this
    # writer, which has marked it and not yet copied).
    holder = open_backend(*place, read_only=False)
    try:
        with pytest.raises(UnfinishedMigrationError, match=r"is running.*wait for it"):
            HierarchicalMemory(embedder=HashingEmbedder(), read_only=True,
                               **where)  # type: ignore[arg-type]
    finally:
        holder.close()
    assert main(["migrate", "--from", str(home), *target_args]) == 0
    capsys.readouterr()
    with HierarchicalMemory(embedder=HashingEmbedder(), **where) as memory:  # type: ignore[arg-type]
        assert [f.text for f in memory.facts()] == ["User likes figs"]
        assert len(memory.archival) == 30


@pytest.mark.parametrize("stopped", ["copying", "closing"])
def test_a_migrate_stopped_does_not_repeat_the_password_of_its_target(
        stopped: str, postgres_dsn: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from tiermem.agent import store_commands
    from tiermem.memory.store.sqlite.store import SQLiteStore

    secret = "Hunter2Secret"
    home = tmp_path / "ada"
    with HierarchicalMemory(home, embedder=HashingEmbedder()) as memory:
        memory.add_fact("User likes tea")
    if stopped == "copying":
        def interrupting(note: object) -> object:
            def progress(table: str, done: int, total: int) -> None:
                raise KeyboardInterrupt
            return progress
        monkeypatch.setattr(store_commands, "row_progress", interrupting)
    else:
        closed = SQLiteStore.close

        def close(self: SQLiteStore) -> None:
            closed(self)
            raise KeyboardInterrupt
        monkeypatch.setattr(SQLiteStore, "close", close)
    target = f"{postgres_dsn} password={secret}"  # a local server that trusts its users
    assert main(["migrate", "--from", str(home), "--to", target]) == 130
    err = capsys.readouterr().err
    assert "migrate stopped (Ctrl-C)" in err and secret not in err, err
