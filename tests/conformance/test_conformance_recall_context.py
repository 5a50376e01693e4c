"""Recall's full-text context: a message is found by the words of the message before it,
and a message erased or forgotten is found through no neighbour, on every backend."""

from __future__ import annotations

import pytest
from backends import Backend

from tiermem.memory.hierarchy import HierarchicalMemory
from tiermem.memory.ops.forget import apply_forget
from tiermem.memory.search.fusion import FusionWeights

WORDS = FusionWeights(lexical=1.0, dense=0.0)


def _conversation(m: HierarchicalMemory) -> list[int]:
    """Four messages: a question, its answer, a second question, its answer."""
    with m.interaction() as tick:
        return [m.recall.append("user", "What did you research for the trip?", tick),
                m.recall.append("assistant", "Adoption agencies in Porto.", tick),
                m.recall.append("user", "Which one did you call first?", tick),
                m.recall.append("assistant", "The small one near the river.", tick)]


def _found(m: HierarchicalMemory, query: str) -> list[int]:
    return [h.id for h in m.recall.search(query, k=10, weights=WORDS).hits]


def test_a_reply_is_found_by_the_words_of_the_question_before_it(backend: Backend) -> None:
    with backend.memory() as m:
        question, answer, second, last = _conversation(m)
        # The question holds the words itself, its answer holds them as context.
        assert set(_found(m, "research trip")) == {question, answer}
        assert set(_found(m, "adoption agencies")) == {answer, second}
        assert _found(m, "river") == [last]  # the last message is no one's context
        assert m.recall.search("research trip", weights=WORDS).total == 2


def test_tool_messages_neither_take_nor_give_context(backend: Backend) -> None:
    with backend.memory() as m:
        with m.interaction() as tick:
            asked = m.recall.append("user", "Look up the harbour timetable", tick)
            tool = m.recall.append("tool", "timetable: ferry at noon", tick,
                                   tool_call_id="c1", tool_name="lookup")
            reply = m.recall.append("assistant", "The ferry leaves at noon.", tick)
        assert _found(m, "harbour") == [asked, reply]  # the tool result in between is skipped
        assert set(_found(m, "timetable")) == {tool, asked, reply}
        assert set(_found(m, "ferry")) == {tool, reply}


@pytest.mark.parametrize("how", ["erase", "forget"])
def test_a_removed_message_is_found_through_no_neighbour(backend: Backend, how: str) -> None:
    with backend.memory() as m:
        question, answer, second, last = _conversation(m)
        if how == "erase":
            m.erase(messages=[answer], reason="the user asked")
        else:
            apply_forget(m, [("messages", answer)])
        # Its words reach nothing, not even the message that held them as context ...
        assert _found(m, "adoption agencies") == []
        assert m.recall.search("adoption agencies", weights=WORDS).total == 0
        assert m.recall_search("adoption agencies").total == 0
        # ... which now takes its context from the message before the removed one.
        assert set(_found(m, "research trip")) == {question, second}
        assert _found(m, "river") == [last]


def test_removing_the_first_and_last_messages_keeps_the_others_context(
        backend: Backend) -> None:
    with backend.memory() as m:
        question, answer, second, last = _conversation(m)
        m.erase(messages=[question, last], reason="the user asked")
        assert _found(m, "research trip") == []
        assert set(_found(m, "adoption agencies")) == {answer, second}
        assert _found(m, "river") == []


def test_context_survives_reopen_and_snapshot_restore(backend: Backend) -> None:
    home = backend.home()
    with home.open() as m:
        question, answer, _, _ = _conversation(m)
        m.erase(messages=[question], reason="the user asked")
        snapshot = m.snapshot(include_vectors=False)
    with home.open() as reopened:
        assert _found(reopened, "research trip") == []
        assert answer in _found(reopened, "adoption agencies")
    with backend.restored(snapshot) as restored:
        assert _found(restored, "research trip") == []
        assert len(_found(restored, "adoption agencies")) == 2
