"""A home an older version of tiermem wrote, opened by the commands that write: they upgrade
it, as the read-only commands' error tells the user to, instead of refusing it too."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tiermem.memory.embed.embeddings import HashingEmbedder
from tiermem.memory.hierarchy import HierarchicalMemory
from tiermem.memory.store.sqlite.schema import SCHEMA_VERSION

REPO = Path(__file__).resolve().parents[1]


def _older_home(root: Path) -> Path:
    home = root / "agents" / "ada"
    with HierarchicalMemory(home, embedder=HashingEmbedder()) as memory:
        memory.add_fact("User likes green tea", "durable")
    # Back to the schema before the newest migration (which only adds this index).
    with sqlite3.connect(home / "memory.sqlite3") as conn:
        conn.execute("DROP INDEX erasures_message")
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION - 1}")
    return home


@pytest.mark.parametrize("command", [
    ["chat", "--agent", "ada"],
    ["config", "--agent", "ada", "core_limit", "500"],
    ["forget", "--agent", "ada", "User likes green tea"],
    ["forget", "--agent", "ada", "--finish-erasures"],
])
def test_a_writing_command_upgrades_a_home_an_older_version_wrote(
        tmp_path: Path, command: list[str]) -> None:
    home = _older_home(tmp_path)
    done = subprocess.run([sys.executable, "cli.py", *command], cwd=REPO, input="",
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(REPO),
                               "TIERMEM_HOME": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    assert "older version" not in done.stderr
    with sqlite3.connect(home / "memory.sqlite3") as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
