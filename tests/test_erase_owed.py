"""An erasure still owed (a forget asked to erase, killed before its erasure) seen from a
read-only open: a snapshot carries it and the memory restored from it finishes it, and the
diagnostics report it, with what finishes it, and nothing of what it covers."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest
from leak_helpers import files_holding, owe_an_erasure
from memory_helpers import make_memory, sqlite_schema_at_version
from snapshot_helpers import small_snapshot

from tiermem.cli import run
from tiermem.memory.embed.embeddings import HashingEmbedder
from tiermem.memory.errors import OlderSchemaError, SnapshotError
from tiermem.memory.hierarchy import HierarchicalMemory
from tiermem.memory.ops.erase import PURGE_PENDING_KEY, pending_erasures
from tiermem.memory.store.sqlite.schema import SCHEMA_VERSION

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def canary() -> str:
    # Lowercase letters then digits: the stemmer keeps it whole, and it is in no other text.
    return "zq" + uuid.uuid4().hex[:12].translate(str.maketrans("abcdef", "ghijkl")) + "4417"


def _read_only_snapshot(home: Path) -> dict[str, Any]:
    with make_memory(home, read_only=True) as reader:
        # Through JSON, as a snapshot saved to a file comes back.
        return dict(json.loads(json.dumps(reader.snapshot())))


@pytest.mark.parametrize("into", ["directory", "in memory"])
def test_a_read_only_snapshot_carries_an_owed_erasure_that_the_restored_memory_finishes(
        tmp_path: Path, canary: str, into: str) -> None:
    home = tmp_path / "agent"
    secret = f"The vault phrase is {canary}"
    owe_an_erasure(home, secret)
    snap = _read_only_snapshot(home)
    assert canary in json.dumps(snap["tables"])  # the tombstones, as the source holds them
    assert snap["settings"]["erase_pending"] == [snap["tables"]["forget_requests"][0]["id"]]
    target = tmp_path / "restored" if into == "directory" else None
    with HierarchicalMemory.restore(snap, target, embedder=HashingEmbedder()) as restored:
        assert pending_erasures(restored.store) == []
        assert [f.text for f in restored.facts()] == ["User likes tea"]
        assert canary not in json.dumps(restored.snapshot())
        assert len(list(restored.store.export_rows("forget_requests"))) == 1  # audit kept
        assert restored.forget(secret, erase=True).outcome == "unmatched"
    if target is not None:
        assert files_holding(target, canary) == []


def test_a_snapshot_from_a_writable_open_owes_nothing_and_holds_nothing_forgotten(
        tmp_path: Path, canary: str) -> None:
    home = tmp_path / "agent"
    owe_an_erasure(home, f"The vault phrase is {canary}")
    with make_memory(home) as writer:  # opening for writing finishes the erasure first
        snap = writer.snapshot()
    assert "erase_pending" not in snap["settings"]
    assert canary not in json.dumps(snap)
    assert _read_only_snapshot(home) == snap


def test_a_snapshot_owing_the_erasure_of_a_request_it_does_not_hold_is_refused(
        tmp_path: Path) -> None:
    snap = small_snapshot()
    assert [r["id"] for r in snap["tables"]["forget_requests"]] == [1]
    snap["settings"]["erase_pending"] = [1, 7]
    with pytest.raises(SnapshotError, match="forget request 7 is not in the snapshot") as info:
        HierarchicalMemory.restore(snap, tmp_path / "a", embedder=HashingEmbedder())
    assert info.value.fields == ("settings.erase_pending[1]",)
    assert not (tmp_path / "a").exists()


def test_a_snapshot_owing_an_erasure_restores_with_the_rows_erased() -> None:
    snap = small_snapshot()
    locker = "User's locker code is 2231"
    assert any(f["text"] == locker for f in snap["tables"]["facts"])  # forgotten, kept
    snap["settings"]["erase_pending"] = [1]
    with HierarchicalMemory.restore(snap, embedder=HashingEmbedder()) as restored:
        assert pending_erasures(restored.store) == []
        dumped = json.dumps(restored.snapshot())
        # As a word: timestamps and hashes may hold the digits 2231 by chance.
        assert "locker" not in dumped and re.search(r"\b2231\b", dumped) is None


def test_a_read_only_diagnostics_reports_an_owed_erasure_without_its_content(
        tmp_path: Path, canary: str) -> None:
    home = tmp_path / "agent"
    owe_an_erasure(home, f"The vault phrase is {canary}")
    with make_memory(home, read_only=True) as reader:
        flags = {f["name"]: f for f in reader.diagnostics()["red_flags"]}
    owed = flags["erasure_owed"]
    assert owed["figures"] == {"requests": 1}
    # Said to a Python caller: `tiermem diagnostics` names the forget command (below).
    assert owed["message"] == (
        "1 forget request asked for an erasure that has not run (the process stopped "
        "between forgetting and erasing): what they forgot is out of every read but still "
        "stored, and a snapshot carries it with the erasure owed; the next session to open "
        "this memory for writing erases it first: open it without read_only, "
        "HierarchicalMemory(path) (a PostgreSQL memory: HierarchicalMemory(store=dsn, "
        "agent=name))")
    assert canary not in json.dumps(owed) and "vault" not in json.dumps(owed)
    with make_memory(home) as writer:
        assert "erasure_owed" not in {f["name"] for f in writer.diagnostics()["red_flags"]}


def test_cli_diagnostics_reports_an_owed_erasure_and_the_command_it_names_finishes_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        canary: str) -> None:
    monkeypatch.setenv("TIERMEM_HOME", str(tmp_path))
    home = tmp_path / "agents" / "ada"
    only_forgotten = "zx" + uuid.uuid4().hex[:12].translate(str.maketrans("abcdef", "ghijkl"))
    with make_memory(home) as memory:
        memory.add_fact(f"The spare key code is {only_forgotten}", "durable")
        assert memory.forget(f"The spare key code is {only_forgotten}").outcome == "matched"
    owe_an_erasure(home, f"The vault phrase is {canary}")
    assert run(["diagnostics", "--agent", "ada", "--embedder", "hashing", "--json"]) == 0
    out, err = capsys.readouterr()
    (owed,) = [f for f in json.loads(out)["red_flags"] if f["name"] == "erasure_owed"]
    assert owed["figures"] == {"requests": 1}
    assert owed["message"].endswith(
        "the next session to open this memory for writing erases it first: run `tiermem "
        "forget --agent ada --finish-erasures`")
    table = " ".join(err.split())  # the table for people, on standard error beside the JSON
    assert "red flag erasure owed: 1 forget request asked for an erasure" in table
    assert "`tiermem forget --agent ada --finish-erasures`" in table
    assert "HierarchicalMemory" not in out + err
    assert canary not in out + err
    # The command the flag names, as a person would run it: it erases what was owed, and
    # keeps what another request only forgot.
    done = _cli("forget", "--agent", "ada", "--finish-erasures")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "finished the erasure of 1 forget request: audit #2\n"
    assert files_holding(home, canary) == []
    assert files_holding(home, only_forgotten) != []
    again = _cli("forget", "--agent", "ada", "--finish-erasures")
    assert (again.returncode, again.stdout) == (0, "no erasure was owed: nothing to finish\n")
    assert run(["diagnostics", "--agent", "ada", "--embedder", "hashing", "--json"]) == 0
    assert "erasure_owed" not in capsys.readouterr().out


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "cli.py", *args], cwd=REPO, capture_output=True,
                          text=True, input="", timeout=120,
                          env={**os.environ, "PYTHONPATH": str(REPO)})


@pytest.mark.parametrize("extra", [["some text"], ["--erase-forgotten"]])
def test_finish_erasures_takes_no_request_and_no_other_erasure(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        extra: list[str]) -> None:
    monkeypatch.setenv("TIERMEM_HOME", str(tmp_path))
    with make_memory(tmp_path / "agents" / "ada") as memory:
        memory.add_fact("User likes tea", "durable")
    assert run(["forget", "--agent", "ada", "--finish-erasures", *extra]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "give one of TEXT, --erase-forgotten or --finish-erasures" in err


def test_finish_erasures_finishes_an_erasure_owed_by_a_home_an_older_version_wrote(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, canary: str) -> None:
    # The forget was killed under the older version, and the user upgraded since: the home
    # is at the schema before the newest migration, which a read-only open refuses.
    monkeypatch.setenv("TIERMEM_HOME", str(tmp_path))
    home = tmp_path / "agents" / "ada"
    with sqlite_schema_at_version(SCHEMA_VERSION - 1):
        owe_an_erasure(home, f"The vault phrase is {canary}")
    with pytest.raises(OlderSchemaError):
        make_memory(home, read_only=True)
    done = _cli("forget", "--agent", "ada", "--finish-erasures", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"finished": [1], "purged": False}
    assert files_holding(home, canary) == []
    make_memory(home, read_only=True).close()  # and the home is upgraded


def test_finish_erasures_says_it_finished_a_purge_an_erasure_left(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        canary: str) -> None:
    monkeypatch.setenv("TIERMEM_HOME", str(tmp_path))
    home = tmp_path / "agents" / "ada"
    with make_memory(home) as memory:
        memory.add_fact(f"The vault phrase is {canary}", "durable")
        memory.forget(f"The vault phrase is {canary}", erase=True)
        # As when the process was killed after the erasure committed, before its purge ended.
        memory.store.settings.set(PURGE_PENDING_KEY, 1)
    assert run(["forget", "--agent", "ada", "--finish-erasures"]) == 0
    said = capsys.readouterr().out
    assert said.startswith("finished the purge an earlier erasure left unfinished")
    with make_memory(home) as memory:
        assert memory.store.settings.get(PURGE_PENDING_KEY) is None
    assert run(["forget", "--agent", "ada", "--finish-erasures", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"finished": [], "purged": False}
