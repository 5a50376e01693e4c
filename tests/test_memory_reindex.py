"""Changing the embedder: a clear refusal, then `reindex` re-embeds without touching texts."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from memory import EmbedderMismatchError, HashingEmbedder, HierarchicalMemory

ROOT = Path(__file__).resolve().parents[1]


def _fill(home: Path) -> None:
    with HierarchicalMemory(home, embedder=HashingEmbedder(256)) as m:
        m.archival_insert("The billing runbook lives in the ops wiki")
        m.process_interaction("The production region is eu-west-1.", "Noted.")


def test_reindex_re_embeds_with_the_new_embedder(tmp_path: Path) -> None:
    home = tmp_path / "agent"
    _fill(home)
    with pytest.raises(EmbedderMismatchError) as refused:
        HierarchicalMemory(home, embedder=HashingEmbedder(128))
    assert "hashing-uni-bi-256" in str(refused.value)
    assert "hashing-uni-bi-128" in str(refused.value)

    with HierarchicalMemory.reindex(home, HashingEmbedder(128)) as m:
        assert m.archival.vectors.dim == 128
        assert m.archival.vectors.index.ntotal == len(m.archival)
        assert m.archival_search("billing runbook").hits[0].text.startswith("The billing")
        assert [f.text for f in m.core] == ["The production region is eu-west-1"]
        assert len(m.recall) == 2

    with HierarchicalMemory(home, embedder=HashingEmbedder(128)) as m:
        rows = m.store.execute("SELECT DISTINCT embedder_id FROM passages").fetchall()
        assert [r[0] for r in rows] == ["hashing-uni-bi-128"]
        assert m.recall.search("production region").total >= 1


@pytest.mark.slow
def test_cli_reindex_moves_an_agent_to_the_local_model(tmp_path: Path) -> None:
    env = {"TIERMEM_HOME": str(tmp_path), "HF_HUB_OFFLINE": "1", "PATH": "/usr/bin:/bin"}

    def tiermem(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "cli.py", *args], cwd=ROOT, env=env,
                              input=stdin, capture_output=True, text=True)

    assert tiermem("chat", "--agent", "a", "--embedder", "hashing",
                   stdin="I am allergic to peanuts.\n").returncode == 0
    refused = tiermem("diagnostics", "--agent", "a")
    assert refused.returncode == 1
    assert "tiermem reindex" in refused.stderr and "Traceback" not in refused.stderr
    done = tiermem("reindex", "--agent", "a", "--embedder", "local")
    assert done.returncode == 0, done.stderr
    assert "all-MiniLM-L6-v2-int8" in done.stdout
    assert tiermem("diagnostics", "--agent", "a", "--format", "json").returncode == 0
