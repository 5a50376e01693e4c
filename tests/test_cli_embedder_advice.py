"""A memory embedded with another embedder than the one a command asks for, or a reindex
left unfinished: the command line names the agent's own `tiermem reindex` command, not the
library's ``HierarchicalMemory.reindex(path, embedder)``."""

from __future__ import annotations

import argparse
import io
import json
import sys
from pathlib import Path

import pytest
from memory_helpers import writable_database

from tiermem.agent.diagnostics_command import command_line_advice
from tiermem.agent.store_errors import cli_message
from tiermem.cli import main
from tiermem.memory.embed.embeddings import HashingEmbedder
from tiermem.memory.embed.minilm import MiniLMEmbedder
from tiermem.memory.errors import EmbedderMismatchError, ReindexIncompleteError
from tiermem.memory.hierarchy import HierarchicalMemory
from tiermem.memory.ops.diagnostics import REINDEX_ADVICE, REOPEN_ADVICE


def test_chat_with_another_embedder_names_the_agent_s_reindex_command(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("TIERMEM_HOME", str(tmp_path))
    home = tmp_path / "agents" / "ada"
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"I like green tea\n")))
    assert main(["chat", "--agent", "ada", "--embedder", "hashing"]) == 0
    stored = HashingEmbedder().id
    capsys.readouterr()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"hello\n")))
    assert main(["chat", "--agent", "ada", "--embedder", "local"]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"tiermem: agent ada's memory was embedded with '{stored}' ")
    assert err.endswith("leave out --embedder to use the one it was embedded with, or "
                        "re-embed it first with `tiermem reindex --agent ada --embedder "
                        "local`\n")
    assert "NAME" not in err and "HierarchicalMemory" not in err
    with HierarchicalMemory(home, embedder=HashingEmbedder(), read_only=True) as memory:
        said = [row["content"] for row in memory.recall.iter_rows()]
    assert said[0] == "I like green tea" and "hello" not in said  # the refused chat stored nothing


@pytest.mark.parametrize(("options", "target", "command"), [
    ({"agent": "ada"}, "all-MiniLM-L6-v2-int8",
     "run `tiermem reindex --agent ada --embedder local` again (it continues"),
    ({"agent": "ada", "store": "postgresql://db.example/mem"}, "hashing-uni-bi-256",
     "run `tiermem reindex --agent ada --store postgresql://db.example/mem --embedder "
     "hashing` again (it continues"),
    # An embedder only the library configures has no --embedder value to name.
    ({"agent": "ada"}, "hashing-uni-bi-512",
     "run `tiermem reindex --agent ada --embedder EMBEDDER` again with the embedder it was "
     "started with (it continues"),
    ({"agent": "ada"}, "text-embedding-3-small",
     "run `tiermem reindex --agent ada --embedder EMBEDDER` again with the embedder it was "
     "started with (it continues"),
])
def test_an_unfinished_reindex_names_the_agent_s_reindex_command(
        options: dict[str, str], target: str, command: str) -> None:
    args = argparse.Namespace(command="chat", **options)
    said = cli_message(ReindexIncompleteError(target, 40, 120), args)
    assert said.startswith(f"a reindex of agent ada's memory to the embedder '{target}' "
                           f"stopped after 40 of 120 passages")
    assert command in said


def test_a_scenario_s_memory_is_told_to_leave_out_the_embedder() -> None:
    # No reindex option reaches a scenario's memory: only leaving out --embedder helps.
    args = argparse.Namespace(command="diagnostics", agent="default", scenario="incident",
                              embedder="local")
    error = EmbedderMismatchError("hashing-uni-bi-256", 256, "all-MiniLM-L6-v2-int8", 384)
    said = cli_message(error, args)
    assert said == ("scenario incident's memory was embedded with 'hashing-uni-bi-256' "
                    "(dim 256), not with the embedder asked for, 'all-MiniLM-L6-v2-int8' "
                    "(dim 384); leave out --embedder to use the one it was embedded with")
    assert "reindex" not in said


def test_diagnostics_names_the_agent_s_reindex_for_rows_without_vectors(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("TIERMEM_HOME", str(tmp_path))
    home = tmp_path / "agents" / "ada"
    with HierarchicalMemory(home, embedder=HashingEmbedder()) as memory:
        for i in range(4):
            memory.archival_insert(f"passage {i} about invoice {i * 13}")
    with writable_database(home / "memory.sqlite3") as conn:
        conn.execute("UPDATE passages SET embedding = NULL, embedder_id = NULL WHERE id > 1")
    conn.close()
    assert main(["diagnostics", "--agent", "ada", "--json"]) == 0
    out, err = capsys.readouterr()
    (flag,) = [f for f in json.loads(out)["red_flags"] if f["name"] == "rows_without_vectors"]
    assert flag["message"] == (
        f"3 passages have no vector from the current embedder ({HashingEmbedder().id}), "
        f"so search by meaning cannot find them; embed them with `tiermem reindex --agent "
        f"ada --embedder hashing`")  # the memory's own: reindex alone would switch to local
    assert "`tiermem reindex --agent ada --embedder hashing`" in " ".join(err.split())
    assert "HierarchicalMemory" not in out + err


@pytest.mark.parametrize(("agent", "store", "embedder", "erasure", "reindex"), [
    ("ada", "postgresql://db.example/mem", MiniLMEmbedder.id,
     ": run `tiermem forget --agent ada --store postgresql://db.example/mem --finish-erasures`",
     "; embed them with `tiermem reindex --agent ada --store postgresql://db.example/mem "
     "--embedder local`"),
    # A scenario's own directory: no command reaches it, so the flag says only what is wrong.
    (None, None, MiniLMEmbedder.id, "", ""),
    # An embedder only the library configures: the library's call stays.
    ("ada", None, HashingEmbedder(dim=64).id, ": run `tiermem forget --agent ada "
     "--finish-erasures`", REINDEX_ADVICE),
])
def test_diagnostics_advice_names_the_options_used(
        agent: str | None, store: str | None, embedder: str, erasure: str, reindex: str) -> None:
    report = {"red_flags": [
        {"name": "erasure_owed", "message": "owed" + REOPEN_ADVICE, "figures": {}},
        {"name": "rows_without_vectors", "message": "unembedded" + REINDEX_ADVICE,
         "figures": {}},
        {"name": "recall_unbounded", "message": "grows" + REINDEX_ADVICE, "figures": {}}]}
    command_line_advice(report, agent, store, embedder)
    assert [f["message"] for f in report["red_flags"]] == [
        "owed" + erasure, "unembedded" + reindex, "grows" + REINDEX_ADVICE]
