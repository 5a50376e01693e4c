"""The public surface of the memory package, as other layers import it."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from memory_helpers import make_memory

from tiermem.memory.errors import StoreClosedError
from tiermem.memory.types import Hit, SearchResult

REPO = Path(__file__).resolve().parents[1]


def test_package_exports_the_contract_names_without_side_effects(tmp_path: Path) -> None:
    code = textwrap.dedent("""
        import sys
        import tiermem.memory as memory
        from tiermem.memory import (EmbedderMismatchError, HashingEmbedder, HierarchicalMemory,
                            InvalidInputError, MemoryLimitError, StoreLockedError)
        assert issubclass(InvalidInputError, ValueError)
        assert "onnxruntime" not in sys.modules, "importing memory loaded the model runtime"
        with HierarchicalMemory(embedder=HashingEmbedder()) as m:
            m.add_fact("User is allergic to peanuts")
            assert len(m.core) == len(m.recall) + 1 == len(m.archival) + 1 == 1
        print("ok")
    """)
    env = {**os.environ, "PYTHONPATH": str(REPO), "TIERMEM_HOME": str(tmp_path / "home")}
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"
    assert not (tmp_path / "home").exists()


def test_hits_and_results_are_dataclasses_with_the_contract_fields() -> None:
    names = {f.name for f in dataclasses.fields(Hit)}
    assert {"text", "tier", "score", "created_at", "was_in_core", "evicted_at", "role",
            "turn"} <= names
    before = time.time()
    with make_memory() as m:
        passage = m.archival_insert("peanut allergy runbook")
        result = m.archival_search("peanut")
        assert type(result) is SearchResult and type(result.hits[0]) is Hit
        hit = result.hits[0].to_dict()
        assert {k: hit[k] for k in ("text", "tier", "id", "was_in_core", "evicted_at", "role",
                                    "turn")} == {
            "text": "peanut allergy runbook", "tier": "archival", "id": passage,
            "was_in_core": False, "evicted_at": None, "role": None, "turn": None}
        assert before <= hit["created_at"] <= time.time() and hit["score"] > 0
        assert len(result) == 1 and [h.text for h in result] == ["peanut allergy runbook"]
        fact = m.fact(m.add_fact("User is allergic to peanuts"))
        # A new fact has been accessed once, at the tick it was created.
        assert (fact.text, fact.durability, fact.tier) == (
            "User is allergic to peanuts", "durable", "core")
        assert fact.access_count == 1 and fact.last_access == fact.created_tick
        assert before <= fact.created_at <= time.time()


def test_a_closed_memory_refuses_what_it_could_answer_without_its_store() -> None:
    m = make_memory()
    fact = m.add_fact("User likes green tea")
    held = m.fact(fact)
    assert held is not None
    m.close()
    for call in (lambda: m.recall_search("???"), lambda: m.archival_search("the"),
                 lambda: m.query("???"), lambda: m.fact(fact), lambda: m.core_shown("tea"),
                 m.core_tokens, lambda: m.totals, lambda: m.tick, m.clock_now,
                 lambda: m.fact_score(held), lambda: m.retained("I like green tea")):
        with pytest.raises(StoreClosedError, match="this memory is closed; open it again"):
            call()
    m.close()  # closing again does nothing
