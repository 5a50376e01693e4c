"""A snapshot of an agent home holding text a restore refuses.

Older versions stored a NUL in a fact's, a passage's or a message's text, which no store of
this version holds and a restore refuses. A snapshot holds U+FFFD in its place, as a migrate
copies it, names each value so changed, and leaves the memory as it was: tiermem never writes
a snapshot it cannot restore.
"""

from __future__ import annotations

import json
import logging
import sqlite3
from pathlib import Path

import pytest
from unstorable_helpers import edit_messages, home_with_nuls

from tiermem.cli import main
from tiermem.memory.embed.embeddings import HashingEmbedder
from tiermem.memory.errors import StoreError
from tiermem.memory.hierarchy import HierarchicalMemory
from tiermem.memory.ops.snapshot import snapshot_text
from tiermem.memory.store.sqlite import SQLiteStore
from tiermem.memory.store.transfer import held_by, migrate
from tiermem.memory.store.unstorable import Replaced

NAMED = ("the snapshot holds U+FFFD in place of each NUL or lone surrogate an older version "
         "stored, which no store of this version holds: setting 'state.summary', facts "
         "{fact} (text), passages {passage} (text), messages 1 (content); the memory keeps "
         "them as they were")


def _home_with_nuls(home: Path) -> tuple[int, int]:
    """``home_with_nuls``, with a NUL in a state value's JSON text too (unescaped)."""
    fact, passage = home_with_nuls(home)
    with HierarchicalMemory(home, embedder=HashingEmbedder()) as memory:
        memory.set_state("summary", "the user likes tea")
        with memory.store.transaction():
            memory.store.execute("UPDATE meta SET value = ? WHERE key = 'state.summary'",
                                 ('"the user\x00 likes tea"',))
    return fact, passage


@pytest.mark.parametrize("written", ["write_snapshot", "snapshot"])
def test_a_nul_an_older_version_stored_is_held_as_u_fffd_and_the_snapshot_restores(
        tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str], written: str) -> None:
    home = tmp_path / "ada"
    fact, passage = _home_with_nuls(home)
    file = tmp_path / "s.json"
    with HierarchicalMemory(home, embedder=HashingEmbedder()) as memory, \
            caplog.at_level(logging.WARNING, logger="tiermem"):
        if written == "snapshot":
            file.write_text(json.dumps(memory.snapshot()), encoding="utf-8")
        else:
            memory.write_snapshot(file)
    assert [r.getMessage() for r in caplog.records] == [
        NAMED.format(fact=fact, passage=passage)]
    monkeypatch.setenv("TIERMEM_HOME", str(tmp_path / "homes"))
    assert main(["restore", str(file), "--agent", "bea"]) == 0, capsys.readouterr().err
    with HierarchicalMemory(tmp_path / "homes" / "agents" / "bea",
                            embedder=HashingEmbedder()) as restored:
        assert "User likes\ufffd tea" in [f.text for f in restored.facts()]
        assert restored.archival_search("restart worker").hits[0].text == (
            "runbook:\ufffd restart the worker")
        assert restored.get_state("summary") == "the user\ufffd likes tea"
    with sqlite3.connect(home / "memory.sqlite3") as conn:  # the memory as it was
        assert conn.execute("SELECT text FROM facts WHERE id = ?",
                            (fact,)).fetchone() == ("User likes\x00 tea",)


def test_a_snapshot_of_storable_text_says_nothing(tmp_path: Path,
                                                  caplog: pytest.LogCaptureFixture) -> None:
    with HierarchicalMemory(tmp_path / "ada", embedder=HashingEmbedder()) as memory, \
            caplog.at_level(logging.WARNING, logger="tiermem"):
        memory.add_fact("User likes tea \ufffd", "durable")
        memory.write_snapshot(tmp_path / "s.json")
    assert caplog.records == []


def test_many_values_changed_are_counted_past_the_first_few_ids(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    # Named one by one, thousands of such messages made a line of hundreds of KB.
    home = tmp_path / "ada"
    with HierarchicalMemory(home, embedder=HashingEmbedder()) as memory:
        for turn in range(3):
            memory.process_interaction(f"my cat is Miso {turn}", "Noted.")
        with memory.store.transaction():
            edit_messages(memory, "UPDATE messages SET content = content || ?", ("\x00",))
        with caplog.at_level(logging.WARNING, logger="tiermem"):
            memory.write_snapshot(tmp_path / "s.json")
    assert [r.getMessage() for r in caplog.records] == [
        "the snapshot holds U+FFFD in place of each NUL or lone surrogate an older version "
        "stored, which no store of this version holds: messages 1, 2, 3 and 3 more "
        "(content); the memory keeps them as they were"]


def test_thousands_of_values_changed_make_one_short_line() -> None:
    replaced = Replaced()
    for message in range(1, 5001):
        replaced.add("messages", str(message), "content")
    replaced.add("setting", repr("state.summary"))
    assert str(replaced) == "messages 1, 2, 3 and 4,997 more (content), setting 'state.summary'"


def _home_with_merging_state_keys(home: Path) -> None:
    """A home holding state keys "note\\0" and "note\\ufffd", as an older version could:
    two keys, one once the NUL is held as U+FFFD."""
    with HierarchicalMemory(home, embedder=HashingEmbedder()) as memory:
        memory.add_fact("User likes tea", "durable")
        with memory.store.transaction():
            for key, text in (("state.note\x00", "first"), ("state.note\ufffd", "second")):
                memory.store.execute("INSERT INTO meta(key, value) VALUES (?, ?)",
                                     (key, json.dumps({"text": text})))


def test_a_snapshot_that_would_lose_one_of_two_state_keys_is_refused_by_name(
        tmp_path: Path) -> None:
    _home_with_merging_state_keys(tmp_path / "home")
    with HierarchicalMemory(tmp_path / "home", embedder=HashingEmbedder()) as memory:
        with pytest.raises(StoreError) as refused:
            memory.snapshot()
        assert "'state.note\\x00' and 'state.note\ufffd'" in str(refused.value)
        assert "delete one of them" in str(refused.value)
        with pytest.raises(StoreError, match=r"'state\.note\\x00' and"):
            "".join(snapshot_text(memory))


def test_a_copy_that_would_lose_one_of_two_state_keys_is_refused_by_name(
        tmp_path: Path) -> None:
    _home_with_merging_state_keys(tmp_path / "home")
    source, target = SQLiteStore(tmp_path / "home"), SQLiteStore(None)
    try:
        with pytest.raises(StoreError) as refused:
            migrate(source, target)
        assert "'state.note\\x00' and 'state.note\ufffd'" in str(refused.value)
        assert held_by(target) == ()
    finally:
        source.close()
        target.close()
