"""An agent home the merge that brought forgetting (383af96) wrote is upgraded whole.

That version numbered the tombstones 5 without a migration 4, so its database is at
schema 5 without the events' migration: counting versions, an upgrade skipped it, and the
memory then failed every turn (`no such column: source_message_id`, a traceback) and kept
each replaced and forgotten fact's text in its events. tests/data/sqlite_home_383af96.sqlite3.gz
is the memory.sqlite3 that version wrote (facts, a replace, a forget request).
"""

from __future__ import annotations

import gzip
import sqlite3
from pathlib import Path

import pytest

from tiermem.cli import main
from tiermem.memory.embed.embeddings import HashingEmbedder
from tiermem.memory.hierarchy import HierarchicalMemory
from tiermem.memory.store.sqlite.schema import MIGRATIONS, SCHEMA_VERSION, register_functions

WRITTEN = Path(__file__).parent / "data" / "sqlite_home_383af96.sqlite3.gz"


def _home_383af96_wrote(tmp_path: Path) -> Path:
    home = tmp_path / "ada"
    home.mkdir(mode=0o700)
    (home / "memory.sqlite3").write_bytes(gzip.decompress(WRITTEN.read_bytes()))
    return home


def _events_and_facts(home: Path) -> tuple[list[tuple[str, str, str]], list[str]]:
    with sqlite3.connect(home / "memory.sqlite3") as conn:
        events = conn.execute("SELECT kind, text, detail FROM events ORDER BY id").fetchall()
        columns = [row[1] for row in conn.execute("PRAGMA table_info(facts)")]
    conn.close()
    return events, columns


def _a_turn_works(home: Path) -> None:
    with HierarchicalMemory(home, embedder=HashingEmbedder()) as memory:
        memory.process_interaction("I moved to Porto.", "Noted.")
        facts = {f.text: f.source_message_id for f in memory.facts()}
    assert "User's name is Ada and I live in Lisbon" in facts
    assert facts["User's name is Ada and I live in Lisbon"] is not None  # linked on upgrade


def _no_event_keeps_text(home: Path) -> None:
    events, columns = _events_and_facts(home)
    assert "source_message_id" in columns
    assert all(text == "" for _, text, _ in events)
    assert not any("eu-west-1" in detail for _, _, detail in events)


def test_a_home_at_schema_5_without_migration_4_is_upgraded_whole(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home = _home_383af96_wrote(tmp_path)
    events, columns = _events_and_facts(home)
    assert "source_message_id" not in columns
    assert any("eu-west-1" in detail for _, _, detail in events)  # the replaced text

    assert main(["upgrade", "--home", str(home)]) == 0
    assert f"from schema 5 to {SCHEMA_VERSION}" in capsys.readouterr().out
    _no_event_keeps_text(home)
    _a_turn_works(home)


def test_a_home_an_earlier_upgrade_left_without_migration_4_is_mended(tmp_path: Path) -> None:
    # As a version before this fix left it: every migration after 5 run, 4 never.
    home = _home_383af96_wrote(tmp_path)
    conn = sqlite3.connect(home / "memory.sqlite3", isolation_level=None)
    register_functions(conn)
    for migration in MIGRATIONS[5:]:
        conn.execute("BEGIN IMMEDIATE")
        migration.apply(conn)
        conn.execute("COMMIT")
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    conn.close()

    _a_turn_works(home)
    _no_event_keeps_text(home)
