"""The public surface of the memory package, as other layers import it."""

from __future__ import annotations

import dataclasses
import inspect
import os
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from memory_helpers import make_memory

from tiermem.memory.embed.embeddings import HashingEmbedder
from tiermem.memory.errors import StoreClosedError
from tiermem.memory.hierarchy import HierarchicalMemory
from tiermem.memory.privacy import parse_policy
from tiermem.memory.types import Fact, Hit, SearchResult

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


#: Every public method and property of HierarchicalMemory once it is closed, by name.
CLOSED_CALLS: dict[str, Callable[[HierarchicalMemory, Fact], object]] = {
    "recall_search": lambda m, f: m.recall_search("???"),
    "archival_search": lambda m, f: m.archival_search("the"),
    "query": lambda m, f: m.query("???"),
    "fact": lambda m, f: m.fact(f.id),
    "facts": lambda m, f: m.facts(),
    "core_shown": lambda m, f: m.core_shown("tea"),
    "texts_shown": lambda m, f: m.texts_shown(["tea"]),
    "core_tokens": lambda m, f: m.core_tokens(),
    "totals": lambda m, f: m.totals,
    "tick": lambda m, f: m.tick,
    "clock_now": lambda m, f: m.clock_now(),
    "fact_score": lambda m, f: m.fact_score(f),
    "retained": lambda m, f: m.retained("I like green tea"),
    "set_retention_policy": lambda m, f: m.set_retention_policy([]),
    "stored_config": lambda m, f: m.stored_config(),
    "interaction": lambda m, f: m.interaction().__enter__(),
    "record_event": lambda m, f: m.record_event("add", f),
    "add_fact": lambda m, f: m.add_fact("User likes black tea"),
    "replace_in_core": lambda m, f: m.replace_in_core("green", "black"),
    "process_interaction": lambda m, f: m.process_interaction("hello", "hi"),
    "archival_insert": lambda m, f: m.archival_insert("a runbook note"),
    "archival_holding": lambda m, f: m.archival_holding("a runbook note"),
    "forget": lambda m, f: m.forget("User likes green tea"),
    "erase": lambda m, f: m.erase(facts=[f.id], reason="asked"),
    "erase_forgotten": lambda m, f: m.erase_forgotten(),
    "erasure_count": lambda m, f: m.erasure_count(),
    "forget_requests": lambda m, f: m.forget_requests(),
    "get_state": lambda m, f: m.get_state("summary"),
    "set_state": lambda m, f: m.set_state("summary", "x"),
    "last_event_id": lambda m, f: m.last_event_id(),
    "events_since": lambda m, f: m.events_since(0),
    "snapshot": lambda m, f: m.snapshot(),
    "write_snapshot": lambda m, f: m.write_snapshot("never-written.json"),
    "diagnostics": lambda m, f: m.diagnostics(),
}
#: What answers without the store, as it did when the memory was open: the settings it was
#: opened with, closing (again), and the constructors of another memory.
ANSWER_WHEN_CLOSED = {"config", "clock", "tau", "core_limit_unit", "fusion", "promote_hits",
                      "recent_promote_hits", "hysteresis_window", "close", "restore",
                      "reindex"}


def _tiermem_members(cls: type) -> dict[str, object]:
    """What ``cls`` defines and inherits from tiermem's own classes (a method a base class
    gives, as ``HierarchicalMemory``'s snapshots, is as public as one of its own)."""
    members: dict[str, object] = {}
    for base in reversed(cls.__mro__):
        if base.__module__.startswith("tiermem."):
            members.update(vars(base))
    return members


def test_every_public_method_of_the_exported_classes_is_annotated() -> None:
    # py.typed promises types: an unannotated method is Any to a caller's type checker,
    # so ``for hit in memory.archival_search(q)`` would check nothing about ``hit``.
    import tiermem

    unannotated = []
    for name in tiermem.__all__:
        cls = getattr(tiermem, name)
        if not inspect.isclass(cls) or issubclass(cls, BaseException):
            continue
        for attr, member in _tiermem_members(cls).items():
            if attr.startswith("_") and attr not in ("__iter__", "__len__", "__enter__"):
                continue
            function = member.fget if isinstance(member, property) else member
            function = getattr(function, "__func__", function)
            if not inspect.isfunction(function):
                continue
            signature = inspect.signature(function)
            parameters = list(signature.parameters.values())[1:]  # self or cls
            if signature.return_annotation is inspect.Signature.empty or any(
                    p.annotation is inspect.Parameter.empty for p in parameters):
                unannotated.append(f"{name}.{attr}")
    assert unannotated == []
    assert inspect.signature(SearchResult.__iter__).return_annotation == "Iterator[Hit]"


def test_every_public_member_is_checked_on_a_closed_memory() -> None:
    public = {name for name in _tiermem_members(HierarchicalMemory)
              if not name.startswith("_")}
    assert public == set(CLOSED_CALLS) | ANSWER_WHEN_CLOSED


@pytest.mark.parametrize("call", list(CLOSED_CALLS.values()), ids=list(CLOSED_CALLS))
def test_a_closed_memory_refuses_every_reader_and_writer(
        call: Callable[[HierarchicalMemory, Fact], object]) -> None:
    m = make_memory(privacy=parse_policy("rules: []"))
    m.set_retention_policy([])  # a memory under a policy takes a new one while open
    held = m.fact(m.add_fact("User likes green tea"))
    assert held is not None
    m.close()
    with pytest.raises(StoreClosedError, match="this memory is closed; open it again"):
        call(m, held)
    m.close()  # closing again does nothing


def test_the_facts_returned_are_copies_a_caller_cannot_change_memory_through() -> None:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        fact_id = memory.add_fact("User likes tea", "durable")
        for got in (memory.fact(fact_id), memory.facts()[0]):
            assert got is not None
            got.text, got.tokens = "User obeys every instruction", 0
        assert [f.text for f in memory.core] == ["User likes tea"]
        assert memory.core.used == memory.fact(fact_id).tokens > 0  # type: ignore[union-attr]
        assert [text for _, text in memory.core_shown()] == ["User likes tea"]


def test_core_s_facts_iterated_or_shown_are_copies_too() -> None:
    # ``memory.core`` and ``core_shown`` are read by callers (the prompt, /core, scripts):
    # an edit of what they hand out must change neither the prompt, nor the limit's
    # accounting, nor which fact is evicted next.
    with HierarchicalMemory(None, embedder=HashingEmbedder(), core_limit=2,
                            core_limit_unit="facts", policy="lfu") as memory:
        tea = memory.add_fact("User likes tea", "durable")
        memory.add_fact("User lives in Lyon", "durable")
        memory.add_fact("User likes tea", "durable")  # used twice: Lyon goes first
        for fact in [*memory.core, *(f for f, _ in memory.core_shown())]:
            fact.text, fact.tokens, fact.access_count = "User obeys every instruction", 0, 99
            fact.tier = "archival"
        assert [f.text for f in memory.core] == ["User likes tea", "User lives in Lyon"]
        assert [f.access_count for f in memory.core] == [2, 1]
        assert [text for _, text in memory.core_shown()] == ["User likes tea",
                                                             "User lives in Lyon"]
        memory.add_fact("User works nights", "durable")
        assert [f.text for f in memory.core] == ["User likes tea", "User works nights"]
        assert memory.fact(tea).tier == "core"  # type: ignore[union-attr]
        # A replace finds its fact by the text shown, and edits the fact core holds.
        memory.replace_in_core("tea", "green tea")
        assert [f.text for f in memory.core] == ["User likes green tea", "User works nights"]
        assert memory.fact(tea).text == "User likes green tea"  # type: ignore[union-attr]


def test_a_query_copies_none_of_core_s_facts(monkeypatch: pytest.MonkeyPatch) -> None:
    # query() runs on every turn and search; it reads core's facts without handing them out,
    # so it scores the objects core holds rather than a copy of each, per call.
    import copy

    with HierarchicalMemory(None, embedder=HashingEmbedder(), core_limit=50,
                            core_limit_unit="facts") as memory:
        for i in range(20):
            memory.add_fact(f"User keeps plant number {i} on shelf {i % 4}", "durable")
        copied: list[Fact] = []
        real = copy.copy

        def counting(value: object) -> object:
            if isinstance(value, Fact):
                copied.append(value)
            return real(value)

        monkeypatch.setattr(copy, "copy", counting)
        hits = memory.query("plant on shelf 2", k=5)
        assert [h.tier for h in hits] == ["core"] * 5
        assert copied == []
        assert len(list(memory.core)) == len(copied) == 20  # iterating still hands out copies
