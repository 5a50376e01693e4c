"""Erasure leaves the erased text in none of the files of the agent home, byte for byte."""

from __future__ import annotations

import os
import signal
import uuid
from pathlib import Path

import faiss
import numpy as np
import pytest
from leak_helpers import files_holding, owe_an_erasure, read_paths_showing
from memory_helpers import make_memory

from tiermem.bench.fault_os import Report, run_forked
from tiermem.memory.errors import StoreError
from tiermem.memory.hierarchy import HierarchicalMemory
from tiermem.memory.ops.erase import pending_erasures
from tiermem.memory.store.sqlite import vectors as vectors_module
from tiermem.memory.store.sqlite.vectors import FaissIndex


@pytest.fixture
def canary() -> str:
    # Lowercase letters then digits: the stemmer keeps it whole, and it is in no other text.
    return "zq" + uuid.uuid4().hex[:12].translate(str.maketrans("abcdef", "ghijkl")) + "4417"


def test_a_canary_in_every_tier_is_nowhere_in_the_home_after_erase(
        tmp_path: Path, canary: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # Every FAISS index keeps its 8-bit copy and its HNSW graph too, so the .sq8 and .hnsw
    # files are written and checked.
    monkeypatch.setattr(vectors_module, "PREFILTER_MIN_ROWS", 1)
    monkeypatch.setattr(vectors_module, "HNSW_MIN_ROWS", 1)
    home = tmp_path / "agent"
    memory = make_memory(home, core_limit=2, core_limit_unit="facts", recall_dense=True)
    for i in range(30):
        memory.archival_insert(f"runbook note {i}: restart the ingest worker after deploys")
    # Recall, and the facts extracted from the message (evicted to archival by the next).
    told = memory.process_interaction(f"My locker code is {canary}.", "Noted.")
    said = memory.recall_search(canary).hits[0].id
    # The reply after it holds it too, as full-text context: erasing must rebuild that.
    reply = said + 1
    assert reply in {h.id for h in memory.recall_search(canary).hits}
    memory.add_fact("User's team is payments", "durable")
    memory.add_fact("User's manager is Dana", "durable")
    # A core fact edited to hold it, and a passage filed by the agent.
    core_fact = memory.add_fact("User's badge number is pending", "durable")
    memory.replace_in_core("pending", canary)
    passage = memory.archival_insert(f"badge {canary} was issued at the front desk")
    # State a layer above keeps: a running summary quoting the message, the prompt history.
    memory.set_state("context", {"summary": f"user: My locker code is {canary}.",
                                 "message_ids": [said]})
    memory.prompt_history.add(f"My locker code is {canary}.")
    # A search for it typed at the chat prompt, as /forget's hint says to look it up.
    memory.prompt_history.add(f"/recall --all {canary}")
    memory.prompt_history.add(f"/recall {canary} --all")  # options after the query, too
    memory.prompt_history.add(f"/archival {canary} --page 2")
    memory.prompt_history.add("/recall ingest worker")
    memory.archival_search(canary)  # a search by meaning builds the 8-bit copy
    erased_vectors = _vector_bytes(memory, passage, said)  # and this the graphs
    memory.close()  # every file written, FAISS, 8-bit copies and graphs included
    assert {"archival.sq8", "recall.sq8", "archival.hnsw", "recall.hnsw"} <= {
        p.name for p in home.iterdir()}
    assert {"archival.faiss", "archival.hnsw", "memory.sqlite3", "recall.faiss",
            "recall.hnsw"} <= set(_files_holding_bytes(home, erased_vectors))
    memory = make_memory(home)
    assert "memory.sqlite3" in files_holding(home, canary)
    assert "core" in read_paths_showing(memory, canary)
    # What a search matched that held no canary must match after the erase. How many of the
    # canary's rows it also matched depends on the random canary's hashed vector.
    before = memory.archival_search("restart the ingest worker", k=100).hits
    kept = {hit.id for hit in before if canary not in hit.text}
    assert len(kept) >= 30  # the runbook notes at least

    report = memory.erase(facts=[core_fact], passages=[passage], messages=[said],
                          reason="user asked to erase the locker code")

    assert (report.facts, report.passages, report.messages) == (len(told) + 1, 2, 1)
    # The summary was scrubbed; the prompt history line left with its message.
    assert report.state_values == 2 and not report.purge_pending and report.not_reached == []
    assert memory.prompt_history.lines() == ["/recall ingest worker"]
    assert canary not in repr(report)
    assert read_paths_showing(memory, canary) == []
    assert memory.recall_search(canary).total == 0  # not through the reply's context either
    assert [r["id"] for r in memory.recall.rows([reply])] == [reply]
    assert files_holding(home, canary) == []  # while open: the purge ran already
    assert _files_holding_bytes(home, erased_vectors) == []
    memory.close()
    assert files_holding(home, canary) == []
    assert _files_holding_bytes(home, erased_vectors) == []
    reopened = make_memory(home)
    try:
        assert read_paths_showing(reopened, canary) == []
        assert reopened.recall_search(canary).total == 0
        assert {hit.id for hit in reopened.archival_search(
            "restart the ingest worker", k=100).hits} == kept
        assert reopened.get_state("context")["summary"] == "[erased]"
        assert passage not in set(reopened.archival.vectors.ids().tolist())
        assert not np.isin([said], reopened.recall.vectors.ids()).any()  # type: ignore[union-attr]
        assert reopened.archival.vectors.differences() == []
    finally:
        reopened.close()
    assert files_holding(home, canary) == []


def _vector_bytes(memory: HierarchicalMemory, passage: int, message: int) -> list[bytes]:
    """The erased rows' vectors as each file stores them: float32, and 8-bit codes in the
    graphs (searched once here, so that each graph is built and saved with its index)."""
    found = []
    for index, rowid in ((memory.archival.vectors, passage), (memory.recall.vectors, message)):
        assert isinstance(index, FaissIndex)
        vector = index.index.reconstruct(rowid)
        index.search(vector, 1)
        assert index.answered_by == "hnsw" and index.graph is not None
        storage = faiss.downcast_index(faiss.downcast_index(index.graph.index.index).storage)
        found += [vector.tobytes(), storage.sa_encode(vector[None, :]).tobytes()]
    return found


def _files_holding_bytes(home: Path, needles: list[bytes]) -> list[str]:
    return sorted(str(path.relative_to(home)) for path in home.rglob("*")
                  if path.is_file() and any(n in path.read_bytes() for n in needles))


def test_an_erasure_inside_a_transaction_purges_when_it_commits(
        tmp_path: Path, canary: str) -> None:
    home = tmp_path / "agent"
    with make_memory(home) as memory:
        memory.process_interaction(f"the vault phrase is {canary}", "ok")
        with memory.interaction():
            report = memory.erase(messages=[1], reason="asked")
            assert report.purge_pending
            assert "memory.sqlite3" in files_holding(home, canary) or files_holding(
                home, canary)
        assert memory.purge.not_reached == []
        assert files_holding(home, canary) == []


def test_a_rolled_back_erasure_erases_nothing(tmp_path: Path, canary: str) -> None:
    with make_memory(tmp_path / "agent") as memory:
        memory.process_interaction(f"the vault phrase is {canary}", "ok")
        with pytest.raises(RuntimeError), memory.interaction():
            memory.erase(messages=[1], reason="asked")
            raise RuntimeError("the turn failed")
        # The message, and the reply that holds it as full-text context.
        assert memory.recall_search(canary).total == 2
        assert [f.text for f in memory.core] != []


def test_a_failed_purge_is_reported_and_tried_again_at_the_next_commit(
        tmp_path: Path, canary: str, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "agent"
    with make_memory(home) as memory:
        memory.process_interaction(f"the vault phrase is {canary}", "ok")
        with monkeypatch.context() as broken:
            broken.setattr(memory.store, "purge_erased",
                           lambda: (_ for _ in ()).throw(StoreError("the disk is full")))
            report = memory.erase(messages=[1], reason="asked")
        assert report.messages == 1
        assert "the disk is full" in report.not_reached[0]
        assert memory.purge.pending and files_holding(home, canary)
        memory.add_fact("User likes tea", "durable")  # the next commit purges
        assert not memory.purge.pending and memory.purge.not_reached == []
        assert files_holding(home, canary) == []


def test_an_erasure_killed_before_its_purge_is_purged_when_the_memory_next_opens(
        tmp_path: Path, canary: str) -> None:
    home = tmp_path / "agent"
    with make_memory(home) as memory:
        memory.process_interaction(f"the vault phrase is {canary}", "ok")
        memory.archival_insert(f"vault phrase {canary} for the night shift")

    def erase_then_die(report: Report) -> None:
        memory = make_memory(home)
        # The erasure has committed when the purge starts: the process dies right there.
        memory.store.purge_erased = lambda: os.kill(os.getpid(), signal.SIGKILL)  # type: ignore[method-assign]
        memory.erase(messages=[1], passages=[1], reason="asked")
        report("survived the kill")

    outcome = run_forked(erase_then_die)
    assert outcome.killed and outcome.lines == []
    with make_memory(home) as reopened:
        assert len(list(reopened.store.export_rows("erasures"))) == 1  # the erasure committed
        assert files_holding(home, canary) == []  # and its purge ran on opening
    assert files_holding(home, canary) == []


def test_a_forget_killed_before_its_erasure_is_erased_when_the_memory_next_opens(
        tmp_path: Path, canary: str) -> None:
    home = tmp_path / "agent"
    secret = f"The vault phrase is {canary}"
    owe_an_erasure(home, secret)
    with make_memory(home) as reopened:
        # The forget committed, and its erasure was finished on opening: the same request
        # now truly has nothing left to match.
        assert [r.outcome for r in reopened.forget_requests()] == ["matched"]
        assert files_holding(home, canary) == []
        assert pending_erasures(reopened.store) == []
        assert reopened.forget(secret, erase=True).outcome == "unmatched"
        assert [f.text for f in reopened.facts()] == ["User likes tea"]
    assert files_holding(home, canary) == []


def test_a_forget_with_erase_leaves_no_erasure_pending(tmp_path: Path, canary: str) -> None:
    home = tmp_path / "agent"
    with make_memory(home) as memory:
        memory.add_fact(f"The vault phrase is {canary}", "durable")
        memory.add_fact(f"The spare vault phrase is {canary}", "durable")
        assert memory.forget(f"The vault phrase is {canary}", erase=True).erasure is not None
        memory.forget(f"The spare vault phrase is {canary}")
        assert pending_erasures(memory.store) == []
    with make_memory(home) as reopened:  # only the request that asked is erased
        assert reopened.erase_forgotten().facts == 1



def test_an_erasure_keeps_short_lines_that_only_share_a_word(tmp_path: Path) -> None:
    # Only a search typed for the erased text goes; "yes" and a setting of "bike" stay.
    with make_memory(tmp_path / "agent") as memory:
        said = memory.process_interaction(
            "Yes, thanks. My locker code is 4411 and I keep my bike in the shed.", "Noted.")
        message = memory.recall_search("locker code 4411").hits[0].id
        for line in ("yes", "thanks", "/recall 4411", "what is the weather?"):
            memory.prompt_history.add(line)
        memory.set_state("profile", {"commute": "bike"})
        memory.erase(messages=[message], reason="user asked")
        assert memory.prompt_history.lines() == ["yes", "thanks", "what is the weather?"]
        assert memory.get_state("profile") == {"commute": "bike"}
        assert said is not None

