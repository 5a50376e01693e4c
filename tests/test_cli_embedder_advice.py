"""A memory embedded with another embedder than the one a command asks for, or a reindex
left unfinished: the command line names the agent's own `tiermem reindex` command, not the
library's ``HierarchicalMemory.reindex(path, embedder)``."""

from __future__ import annotations

import argparse
import io
import sys
from pathlib import Path

import pytest

from tiermem.agent.store_errors import cli_message
from tiermem.cli import main
from tiermem.memory.embed.embeddings import HashingEmbedder
from tiermem.memory.errors import EmbedderMismatchError, ReindexIncompleteError
from tiermem.memory.hierarchy import HierarchicalMemory


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


@pytest.mark.parametrize(("options", "command"), [
    ({"agent": "ada"}, "`tiermem reindex --agent ada --embedder EMBEDDER`"),
    ({"agent": "ada", "store": "postgresql://db.example/mem"},
     "`tiermem reindex --agent ada --store postgresql://db.example/mem --embedder EMBEDDER`"),
])
def test_an_unfinished_reindex_names_the_agent_s_reindex_command(
        options: dict[str, str], command: str) -> None:
    args = argparse.Namespace(command="chat", **options)
    said = cli_message(ReindexIncompleteError("all-MiniLM-L6-v2-int8", 40, 120), args)
    assert said.startswith("a reindex of agent ada's memory to the embedder "
                           "'all-MiniLM-L6-v2-int8' stopped after 40 of 120 passages")
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
