"""What storing a turn costs, counted: the facts extracted from a user message name it
without reading it back, while a fact given a source by the caller has it checked."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from memory_helpers import make_memory

from tiermem.memory.errors import InvalidInputError
from tiermem.memory.hierarchy import HierarchicalMemory


def _count_message_reads(m: HierarchicalMemory, monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    reads: Counter[str] = Counter()
    messages = m.store.messages
    for name in ("get_many", "in_turns_of"):
        read = getattr(messages, name)

        def counted(*args: Any, _read: Any = read, _name: str = name, **kwargs: Any) -> Any:
            reads[_name] += 1
            return _read(*args, **kwargs)

        monkeypatch.setattr(messages, name, counted)
    return reads


def test_facts_extracted_from_a_turn_do_not_read_its_message_back(
        monkeypatch: pytest.MonkeyPatch) -> None:
    with make_memory() as m:
        reads = _count_message_reads(m, monkeypatch)
        fact_ids = m.process_interaction(
            "My name is Ada. I am allergic to peanuts. I live in Lyon.", "Noted.")
        assert len(fact_ids) == 3
        assert reads == Counter()
        [user] = [h for h in m.recall_search("allergic peanuts", k=5).hits
                  if h.text.startswith("My name")]
        assert {m.fact(i).source_message_id for i in fact_ids} == {user.id}  # type: ignore[union-attr]


def test_a_source_the_caller_names_is_still_checked(
        monkeypatch: pytest.MonkeyPatch) -> None:
    with make_memory() as m:
        m.process_interaction("hello there", "hi")
        user_id = m.recall_search("hello", k=1).hits[0].id
        reads = _count_message_reads(m, monkeypatch)
        m.add_fact("User's name is Ada", source_message_id=user_id)
        assert reads == Counter({"get_many": 1})
        with pytest.raises(InvalidInputError, match="names no message"):
            m.add_fact("User lives in Lyon", source_message_id=user_id + 100)
