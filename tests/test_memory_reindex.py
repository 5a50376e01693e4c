"""Changing the embedder: a clear refusal, then `reindex` re-embeds without touching texts."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from memory_helpers import writable_database

from tiermem.memory import EmbedderMismatchError, HashingEmbedder, HierarchicalMemory
from tiermem.memory.errors import InvalidInputError, ReindexIncompleteError
from tiermem.memory.ops import reindex
from tiermem.memory.store.sqlite import SQLiteStore

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
    # Said to a Python caller: the command line names the agent's own reindex command
    # (tests/test_cli_embedder_advice.py).
    assert str(refused.value) == (
        "this memory was embedded with 'hashing-uni-bi-256' (dim 256) but the embedder given "
        "is 'hashing-uni-bi-128' (dim 128); open it with the original embedder, or re-embed "
        "it first with HierarchicalMemory.reindex(path, embedder) (a PostgreSQL memory: "
        "reindex(embedder=embedder, store=dsn, agent=name))")

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
    # Without --embedder the agent opens with the one it was built with; asked to use
    # another, it refuses and says how to move it.
    assert tiermem("diagnostics", "--agent", "a").returncode == 0
    refused = tiermem("diagnostics", "--agent", "a", "--embedder", "local")
    assert refused.returncode == 1
    assert "tiermem reindex" in refused.stderr and "Traceback" not in refused.stderr
    done = tiermem("reindex", "--agent", "a", "--embedder", "local")
    assert done.returncode == 0, done.stderr
    assert "all-MiniLM-L6-v2-int8" in done.stdout
    assert tiermem("diagnostics", "--agent", "a", "--format", "json").returncode == 0
    assert tiermem("diagnostics", "--agent", "a", "--embedder", "hashing").returncode == 1


# -- an interrupted reindex ----------------------------------------------------------------------


class FailsAfter(HashingEmbedder):
    """The hashing embedder (same id), whose service goes away after ``calls`` batches."""

    def __init__(self, dim: int, calls: int) -> None:
        super().__init__(dim)
        self.calls_left = calls
        self.embedded = 0

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        if self.calls_left == 0:
            raise RuntimeError("the embedding service went away")
        self.calls_left -= 1
        self.embedded += len(texts)
        return super().embed_documents(texts)


PASSAGES = 40


def _fill_many(home: Path) -> None:
    with HierarchicalMemory(home, embedder=HashingEmbedder(256)) as m:
        for i in range(PASSAGES):
            m.archival_insert(f"passage {i} about topic {i % 7} and invoice {i * 13}")
        for i in range(5):
            m.process_interaction(f"Message {i} about the deploy on friday {i}.", f"ok {i}")


def test_a_reindex_looks_up_its_own_mark_once_a_batch_not_once_a_vector(
        tmp_path: Path) -> None:
    # Each vector of the new size is let through as the reindex's: looked up for each, a
    # reindex of a large memory on PostgreSQL took a round trip per row.
    home = tmp_path / "agent"
    _fill_many(home)
    store = SQLiteStore(home)
    read = store.settings.get
    looked_up: list[str] = []

    def counted(key: str, default: str | None = None) -> str | None:
        looked_up.append(key)
        return read(key, default)

    store.settings.get = counted  # type: ignore[method-assign]
    try:
        reindex.reembed_store(store, HashingEmbedder(128), recall_dense=True)
    finally:
        store.close()
    # Its own check before it starts, and one for each table's batch.
    assert looked_up.count(reindex.TARGET_KEY) == 3
    _check_fully_reindexed(home, 128)


def _check_fully_reindexed(home: Path, dim: int) -> None:
    embedder = HashingEmbedder(dim)
    with HierarchicalMemory(home, embedder=embedder) as m:
        embedders = m.store.execute(
            "SELECT DISTINCT embedder_id FROM passages UNION SELECT DISTINCT embedder_id"
            " FROM messages WHERE embedding IS NOT NULL").fetchall()
        assert [r[0] for r in embedders] == [embedder.id]
        assert m.archival.vectors.differences() == []
        assert m.recall.vectors is not None and m.recall.vectors.differences() == []
        assert len(m.archival.vectors) == PASSAGES
        assert len(m.recall.vectors) == 10
        text = "passage 17 about topic 3 and invoice 221"
        ids, _ = m.archival.vectors.search(embedder.embed_query(text), 1)
        assert m.archival.get_many([int(ids[0])])[int(ids[0])].text == text
        report = m.diagnostics()
        assert report["archival"]["without_vectors"] == 0
        assert report["recall"]["without_vectors"] == 0
        assert "rows_without_vectors" not in [f["name"] for f in report["red_flags"]]


def test_an_interrupted_reindex_refuses_to_open_and_resumes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reindex, "BATCH_ROWS", 16)
    home = tmp_path / "agent"
    _fill_many(home)
    with pytest.raises(RuntimeError, match="went away"):
        HierarchicalMemory.reindex(home, FailsAfter(128, calls=1))
    for embedder, read_only in ((HashingEmbedder(128), False), (HashingEmbedder(256), False),
                                (HashingEmbedder(256), True)):
        with pytest.raises(ReindexIncompleteError) as info:
            HierarchicalMemory(home, embedder=embedder, read_only=read_only)
        assert str(info.value) == (
            f"a reindex of this memory to the embedder 'hashing-uni-bi-128' was interrupted "
            f"after 16 of {PASSAGES} passages; search by meaning cannot work until it "
            f"finishes. Call HierarchicalMemory.reindex(path, embedder) again (a PostgreSQL "
            f"memory: reindex(embedder=embedder, store=dsn, agent=name)) with the embedder it "
            f"was started with, 'hashing-uni-bi-128'; it continues where it stopped")
    resumed = FailsAfter(128, calls=100)
    HierarchicalMemory.reindex(home, resumed).close()
    assert resumed.embedded == PASSAGES - 16 + 10  # the rest of the passages, then messages
    _check_fully_reindexed(home, 128)


_KILLED_REINDEX = textwrap.dedent("""
    import os, signal, sys
    from tiermem.memory.ops import reindex
    from tiermem.memory.embed.embeddings import HashingEmbedder
    from tiermem.memory.hierarchy import HierarchicalMemory

    class DiesOnTheSecondBatch(HashingEmbedder):
        batches = 0

        def embed_documents(self, texts):
            self.batches += 1
            if self.batches == 2:
                os.kill(os.getpid(), signal.SIGKILL)
            return super().embed_documents(texts)

    reindex.BATCH_ROWS = 16
    HierarchicalMemory.reindex(sys.argv[1], DiesOnTheSecondBatch(128))
""")


def test_a_reindex_killed_between_batches_is_finished_by_the_next_one(tmp_path: Path) -> None:
    home = tmp_path / "agent"
    _fill_many(home)
    killed = subprocess.run([sys.executable, "-c", _KILLED_REINDEX, str(home)], cwd=ROOT,
                            env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True,
                            text=True, timeout=120)
    assert killed.returncode == -9, killed.stderr
    with pytest.raises(ReindexIncompleteError, match="after 16 of"):
        HierarchicalMemory(home, embedder=HashingEmbedder(256))
    HierarchicalMemory.reindex(home, HashingEmbedder(128)).close()
    _check_fully_reindexed(home, 128)


def test_a_reader_during_a_running_reindex_is_told_to_wait_not_to_run_it_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from tiermem.cli import main

    monkeypatch.setattr(reindex, "BATCH_ROWS", 16)
    monkeypatch.setenv("TIERMEM_HOME", str(tmp_path))
    home = tmp_path / "agents" / "ada"
    _fill_many(home)
    seen: list[ReindexIncompleteError] = []
    codes: list[int] = []

    class ReadMidway(HashingEmbedder):
        batches = 0

        def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
            self.batches += 1
            if self.batches == 2:  # the reindex holds the home, one batch committed
                with pytest.raises(ReindexIncompleteError) as info:
                    HierarchicalMemory(home, embedder=HashingEmbedder(256), read_only=True)
                seen.append(info.value)
                codes.append(main(["diagnostics", "--agent", "ada", "--embedder", "hashing"]))
            return super().embed_documents(texts)

    HierarchicalMemory.reindex(home, ReadMidway(128)).close()
    [running] = seen
    assert running.running and str(running).startswith(
        f"a reindex of this memory to the embedder 'hashing-uni-bi-128' is running (16 of "
        f"{PASSAGES} passages so far); search by meaning cannot work until it finishes: wait "
        f"for it")
    assert codes == [1]
    said = " ".join(capsys.readouterr().err.split())
    assert "is running (16 of" in said and "wait for it, then try again" in said
    assert "again (it continues where it stopped)" not in said
    _check_fully_reindexed(home, 128)


def test_a_new_embedder_is_refused_while_passages_lack_vectors(tmp_path: Path) -> None:
    # What an older reindex left when it stopped between its two transactions.
    home = tmp_path / "agent"
    _fill_many(home)
    with writable_database(home / "memory.sqlite3") as conn:
        conn.execute("UPDATE passages SET embedding = NULL, embedder_id = NULL")
        conn.execute("UPDATE messages SET embedding = NULL, embedder_id = NULL")
    with pytest.raises(EmbedderMismatchError):
        HierarchicalMemory(home, embedder=HashingEmbedder(128))


@pytest.mark.parametrize("recall_dense", [True, False])
def test_diagnostics_flags_rows_without_vectors(tmp_path: Path, recall_dense: bool) -> None:
    home = tmp_path / "agent"
    _fill_many(home)
    with writable_database(home / "memory.sqlite3") as conn:
        conn.execute("UPDATE passages SET embedding = NULL, embedder_id = NULL WHERE id > 3")
        conn.execute("UPDATE messages SET embedding = NULL, embedder_id = NULL"
                     " WHERE role = 'assistant'")
    with HierarchicalMemory(home, embedder=HashingEmbedder(256),
                            recall_dense=recall_dense) as m:
        report = m.diagnostics()
    flags = {f["name"]: f for f in report["red_flags"]}
    flag = flags["rows_without_vectors"]
    expected_messages = 5 if recall_dense else None
    assert flag["figures"]["passages"] == PASSAGES - 3
    assert flag["figures"]["messages"] == expected_messages
    assert report["archival"]["without_vectors"] == PASSAGES - 3
    assert report["recall"]["without_vectors"] == expected_messages
    messages = " and 5 user and assistant messages" if recall_dense else ""
    # Said to a Python caller: `tiermem diagnostics` names the agent's reindex command
    # (tests/test_cli_embedder_advice.py).
    assert flag["message"] == (
        f"{PASSAGES - 3} passages{messages} have no vector from the current embedder "
        f"(hashing-uni-bi-256), so search by meaning cannot find them; embed them with "
        f"HierarchicalMemory.reindex(path, embedder) (a PostgreSQL memory: "
        f"reindex(embedder=embedder, store=dsn, agent=name))")


def test_reindex_refuses_a_mistake_before_it_writes_anything(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-home"
    with pytest.raises(InvalidInputError, match=r"no memory at .*reindex re-embeds a memory"):
        HierarchicalMemory.reindex(missing, HashingEmbedder())
    assert not missing.exists()  # no empty memory made at a mistyped path
    home = tmp_path / "home"
    with HierarchicalMemory(home, embedder=HashingEmbedder()) as memory:
        memory.archival_insert("the runbook lives in the wiki")
    before = (home / "memory.sqlite3").read_bytes()
    with pytest.raises(InvalidInputError, match=r"embedder must have id.*HashingEmbedder"):
        HierarchicalMemory.reindex(home, "hashing")  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="core_limt"):
        HierarchicalMemory.reindex(home, HashingEmbedder(dim=64), core_limt=5)
    with pytest.raises(InvalidInputError, match="path must be a str or a Path"):
        HierarchicalMemory.reindex(5, HashingEmbedder())  # type: ignore[arg-type]
    assert (home / "memory.sqlite3").read_bytes() == before


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_reindex_reports_its_progress_after_each_batch_counting_an_earlier_attempt(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest,
        backend: str) -> None:
    monkeypatch.setattr(reindex, "BATCH_ROWS", 16)
    home = tmp_path / "agent"
    _fill_many(home)
    where: dict[str, object] = {"path": home}
    if backend == "postgres":
        from tiermem.memory.store.transfer import migrate, open_backend

        dsn = request.getfixturevalue("postgres_dsn")
        source, target = (open_backend(str(home), None, read_only=True),
                          open_backend(dsn, "ada", read_only=False))
        try:
            migrate(source, target)
        finally:
            source.close()
            target.close()
        where = {"store": dsn, "agent": "ada"}
    with pytest.raises(RuntimeError, match="went away"):
        HierarchicalMemory.reindex(embedder=FailsAfter(128, calls=1),
                                   **where)  # type: ignore[arg-type]
    calls: list[tuple[str, int, int]] = []
    HierarchicalMemory.reindex(embedder=HashingEmbedder(128),
                               progress=lambda *call: calls.append(call),
                               **where).close()  # type: ignore[arg-type]
    # The first batch of 16 passages was done before; 10 user and assistant messages.
    assert calls == [("passages", 32, PASSAGES), ("passages", PASSAGES, PASSAGES),
                     ("messages", 10, 10)]


def test_cli_reindex_says_how_far_it_is_on_standard_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from tiermem.cli import main

    monkeypatch.setenv("TIERMEM_HOME", str(tmp_path))
    monkeypatch.setattr(reindex, "BATCH_ROWS", 16)
    _fill_many(tmp_path / "agents" / "ada")
    assert main(["reindex", "--agent", "ada", "--embedder", "hashing"]) == 0
    done = capsys.readouterr()
    assert not [line for line in done.out.splitlines() if line.endswith(" re-embedded")]
    assert f"tiermem: {PASSAGES} of {PASSAGES} passages re-embedded\n" in done.err
    assert "tiermem: 10 of 10 messages re-embedded\n" in done.err


def test_progress_is_said_every_so_many_rows_or_seconds_and_at_each_table_s_end() -> None:
    from tiermem.agent.store_commands import PROGRESS_ROWS, PROGRESS_SECONDS, row_progress

    said: list[str] = []
    now = [0.0]
    progress = row_progress(said.append, clock=lambda: now[0], doing="re-embedded")
    step = PROGRESS_ROWS // 3 + 1  # batches that never land on a multiple of it
    for done in range(step, 2 * PROGRESS_ROWS + step, step):
        progress("passages", done, 10 * PROGRESS_ROWS)
    assert said == [f"{3 * step:,} of {10 * PROGRESS_ROWS:,} passages re-embedded",
                    f"{6 * step:,} of {10 * PROGRESS_ROWS:,} passages re-embedded"]
    said.clear()
    now[0] = PROGRESS_SECONDS  # a slow table: time, not rows
    progress("messages", 256, 1_000)
    progress("messages", 512, 1_000)
    progress("messages", 1_000, 1_000)
    assert said == ["256 of 1,000 messages re-embedded", "1,000 of 1,000 messages re-embedded"]
    # So a short reindex or migrate says one line a table, which README says of both.
    readme = " ".join((Path(__file__).parents[1] / "README.md").read_text("utf-8").split())
    assert "every 50,000 rows or 15 seconds and when a table is done, as `migrate` does" in readme
