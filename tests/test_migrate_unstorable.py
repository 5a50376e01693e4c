"""`tiermem migrate` of an agent home holding text no store of this version holds.

Older versions stored a NUL in a fact's, a passage's or a message's text. PostgreSQL's
text cannot hold one, nor UTF-8 a lone surrogate: the copy holds U+FFFD in its place,
says which values it changed, and leaves the source as it was.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from unstorable_helpers import home_with_nuls

from tiermem.agent.place import store_flag
from tiermem.cli import main
from tiermem.memory.embed.embeddings import HashingEmbedder
from tiermem.memory.hierarchy import HierarchicalMemory
from tiermem.memory.store.postgres.backend import PostgresBackend
from tiermem.memory.store.postgres.connection import stored_agents
from tiermem.memory.store.records import DumpRow, DumpTable
from tiermem.memory.store.transfer import migrate, open_backend


def test_a_nul_an_older_version_stored_is_copied_as_u_fffd_and_named(
        postgres_dsn: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home = tmp_path / "ada"
    fact, passage = home_with_nuls(home)
    assert main(["migrate", "--from", str(home), "--to", postgres_dsn]) == 0
    captured = capsys.readouterr()
    assert "content hash" in captured.out
    assert (f"copied with U+FFFD in place of each NUL or lone surrogate an older version "
            f"stored, which no store of this version holds: facts {fact} (text), passages "
            f"{passage} (text), messages 1 (content); the source keeps them as they were"
            ) in captured.err
    with HierarchicalMemory(store=postgres_dsn, agent="ada", embedder=HashingEmbedder(),
                            read_only=True) as moved:
        assert "User likes\ufffd tea" in [f.text for f in moved.facts()]
        assert moved.archival_search("restart worker").hits[0].text == (
            "runbook:\ufffd restart the worker")
    target = open_backend(postgres_dsn, "ada", read_only=True)
    try:
        contents = {m["id"]: m["content"] for m in target.export_rows("messages")}
        assert contents[1] == "my cat\ufffd is Miso"
    finally:
        target.close()
    with sqlite3.connect(home / "memory.sqlite3") as conn:  # the source as it was
        assert conn.execute("SELECT text FROM facts WHERE id = ?",
                            (fact,)).fetchone() == ("User likes\x00 tea",)


def test_a_lone_surrogate_in_a_copied_value_is_copied_as_u_fffd(
        postgres_dsn: str, tmp_path: Path) -> None:
    home = tmp_path / "ada"
    with HierarchicalMemory(home, embedder=HashingEmbedder()) as memory:
        memory.add_fact("User likes tea", "durable")
    source = open_backend(str(home), "ada", read_only=True)
    read = source.export_rows

    def with_a_surrogate(table: DumpTable) -> Iterator[DumpRow]:
        # No SQLite text read into Python holds one; a backend that hands one over must
        # not stop the copy half-way either.
        for row in read(table):
            yield {**row, "text": "User likes\ud800 tea"} if table == "facts" else row

    source.export_rows = with_a_surrogate  # type: ignore[method-assign]
    target = PostgresBackend(postgres_dsn, "ada")
    try:
        report = migrate(source, target)
        assert str(report.replaced) == "facts 1 (text)"
        assert [row["text"] for row in target.export_rows("facts")] == ["User likes\ufffd tea"]
    finally:
        target.close()
        source.close()


def test_a_copy_that_fails_says_what_it_left_and_how_to_finish_or_undo(
        postgres_dsn: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "ada"
    with HierarchicalMemory(home, embedder=HashingEmbedder()) as memory:
        memory.add_fact("User likes tea", "durable")

    def refused(self: PostgresBackend, table: DumpTable, rows: list[DumpRow]) -> None:
        raise psycopg.DataError("the server refused a row")

    monkeypatch.setattr(PostgresBackend, "import_rows", refused)
    with pytest.raises(psycopg.DataError):  # no error of the store's: its trace is kept
        main(["migrate", "--from", str(home), "--to", postgres_dsn])
    err = capsys.readouterr().err
    advice = (f"the copy failed (DataError: the server refused a row); agent ada in "
              f"{postgres_dsn} holds none of it, marked as a migrate that did not finish and "
              f"the source was only read: run the same `tiermem migrate` again once that is "
              f"fixed, which copies it whole, or delete it: `tiermem drop-agent --agent ada"
              f"{store_flag(postgres_dsn)} --yes`")
    assert advice in err, err
    assert stored_agents(postgres_dsn) == ["ada"]  # marked, not taken for an empty memory
    monkeypatch.undo()
    assert main(["drop-agent", "--agent", "ada", "--store", postgres_dsn, "--yes"]) == 0
    assert stored_agents(postgres_dsn) == []
    assert main(["migrate", "--from", str(home), "--to", postgres_dsn]) == 0
