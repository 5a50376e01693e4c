"""Forgetting a fact takes the copies of it that the turn which moved it out of core holds
(the call naming it, the tool's result, the reply), on every backend: after "Forget that."
the user's own message is all that still says it."""

from __future__ import annotations

from typing import Any

import pytest
from backends import Backend
from test_conformance_forget_turn import _call

from tiermem.memory.hierarchy import HierarchicalMemory
from tiermem.memory.tiers.recall import NewMessage

SAID = "I live in Berlin."
FACT = "User lives in Berlin"


def _append(m: HierarchicalMemory, turn: int, *rows: tuple[str, str, dict[str, Any]]
            ) -> list[int]:
    return m.recall.append_many([NewMessage(role, text, turn, **extra)
                                 for role, text, extra in rows])


def _told_then_taken_back(m: HierarchicalMemory) -> tuple[list[int], list[int], list[int]]:
    """Turn 1 stores the fact, turn 2 ("Forget that.") retires it to archival, turn 3 quotes
    it again; each turn's message ids, as an agent stores them."""
    stored = {"tool_calls": _call("c1", "core_memory_append", content=FACT)}
    retired = {"tool_calls": _call("c2", "core_memory_replace", old_content=FACT,
                                   new_content="")}
    with m.interaction() as turn:
        first = _append(m, turn, ("user", SAID, {}), ("assistant", "", stored),
                        ("tool", f"core + {FACT}", {"tool_call_id": "c1",
                                                     "tool_name": "core_memory_append"}))
        m.add_fact(FACT, source=f"tool:turn:{turn}", source_message_id=first[0])
    with m.interaction() as turn:
        m.replace_in_core(FACT, "")
        second = _append(
            m, turn, ("user", "Forget that.", {}), ("assistant", "", retired),
            ("tool", f"core -> archival (superseded): {FACT}",
             {"tool_call_id": "c2", "tool_name": "core_memory_replace"}),
            ("assistant", f'I keep "{FACT}" in archival as a past fact.', {}),
            ("tool", "Sent.", {"tool_call_id": "c3", "tool_name": "send_message"}))
    with m.interaction() as turn:
        # Another turn quoting the fact, which forgetting does not search.
        third = _append(m, turn, ("user", "Is Berlin nice?", {}),
                        ("assistant", f"You said {FACT}.", {}))
    return first, second, third


def test_in_turns_returns_the_turns_messages_and_forgotten_ones_only_when_asked(
        backend: Backend) -> None:
    with backend.memory() as m:
        assert m.store.messages.in_turns([1]) == []
        first, second, third = _told_then_taken_back(m)
        assert [x.id for x in m.store.messages.in_turns([3, 1, 99])] == [*first, *third]
        assert m.store.messages.in_turns([]) == []
        m.store.forgetting.forget([], [], [second[1]], m.now())
        assert [x.id for x in m.store.messages.in_turns([2])] == [
            second[0], *second[2:]]
        assert [x.id for x in m.store.messages.in_turns([2], forgotten=True)] == second


def test_forgetting_a_retired_fact_takes_the_retiring_turns_copies(backend: Backend) -> None:
    with backend.memory() as m:
        first, second, third = _told_then_taken_back(m)
        result = m.forget(FACT)
        assert result.outcome == "matched"
        # The turn that stored it and the turn that retired it; another turn's reply is
        # text of another turn, which forget does not reach.
        assert set(result.forgotten.messages) == {*first[1:], *second[1:4]}
        live = {x.id for x in m.store.messages.in_turns([1, 2, 3])}
        assert live == {first[0], second[0], second[4], *third}
        assert result.sources_kept == (first[0],)


def test_erasing_a_retired_fact_erases_the_retiring_turns_copies(backend: Backend) -> None:
    with backend.memory() as m:
        first, second, third = _told_then_taken_back(m)
        fact = m.store.facts.learned_from([first[0]])
        report = m.erase(facts=fact, reason="asked")
        # And turn 3's reply quoting it, a copy in another turn.
        assert (report.facts, report.messages, report.copies) == (
            1, len(first[1:]) + len(second[1:4]) + 1, 1)
        live = {x.id for x in m.store.messages.in_turns([1, 2, 3], forgotten=True)}
        assert live == {first[0], second[0], second[4], third[0]}


MOVED = "I moved to Munich. Tom still thinks I live in Berlin."
SHORT = "lives in Berlin"
BROTHER = "I moved to Munich; my brother still lives in Berlin."


def _moved_on(m: HierarchicalMemory, fact: str, moved: str = MOVED
              ) -> tuple[list[int], list[int]]:
    """Turn 1 stores ``fact`` from "I live in Berlin."; turn 2, the user's ``moved``, which
    says those words of someone else, retires it; each turn's message ids."""
    retired = {"tool_calls": _call("c2", "core_memory_replace", old_content=fact,
                                   new_content="")}
    with m.interaction() as turn:
        first = _append(m, turn, ("user", SAID, {}))
        m.add_fact(fact, source=f"tool:turn:{turn}", source_message_id=first[0])
    with m.interaction() as turn:
        m.replace_in_core(fact, "")
        second = _append(
            m, turn, ("user", moved, {}), ("assistant", "", retired),
            ("tool", f"core -> archival (superseded): {fact}",
             {"tool_call_id": "c2", "tool_name": "core_memory_replace"}))
    return first, second


def test_forgetting_the_message_a_fact_came_from_keeps_the_users_next_message(
        backend: Backend) -> None:
    with backend.memory() as m:
        first, second = _moved_on(m, FACT)
        result = m.forget(SAID)
        assert result.outcome == "matched"
        # The retiring turn's call and result name the fact; the user's message there only
        # repeats the words forgotten, in a statement of its own.
        assert set(result.forgotten.messages) == {first[0], *second[1:]}
        assert [x.content for x in m.store.messages.in_turns([2])] == [MOVED]


def test_the_users_message_in_the_retiring_turn_is_no_copy_of_the_fact(
        backend: Backend) -> None:
    with backend.memory() as m:
        first, second = _moved_on(m, SHORT, BROTHER)
        assert set(m.forget(SHORT).forgotten.messages) == set(second[1:])
        assert [x.id for x in m.store.messages.in_turns([1, 2])] == [first[0], second[0]]


@pytest.mark.parametrize("forgotten_first", [False, True])
def test_erasing_keeps_the_users_message_in_the_retiring_turn(
        backend: Backend, forgotten_first: bool) -> None:
    """Forgetting keeps it (above), and so does an erasure, by ids or of what a forget took
    (the retiring turn's call and result among it): a statement of the user's own, named
    for the user to erase too (memory/ops/erased_copies.py)."""
    with backend.memory() as m:
        first, second = _moved_on(m, FACT)
        if forgotten_first:
            report = m.forget(SAID, erase=True).erasure
            assert report is not None
        else:
            report = m.erase(messages=[first[0]], reason="asked")
        assert (report.facts, report.messages, report.copies) == (1, len(second), 0)
        assert report.quoted_by_user == [second[0]]
        assert [x.content for x in m.store.messages.in_turns([1, 2], forgotten=True)] == [
            MOVED]


def test_erasing_a_short_text_keeps_the_users_statement_quoting_it(backend: Backend) -> None:
    with backend.memory() as m:
        first, _ = _moved_on(m, SHORT, BROTHER)
        fact = m.store.facts.learned_from([first[0]])
        report = m.erase(facts=fact, reason="asked")
        # Three words: looked for in the turns holding the fact only, where the user's own
        # statement is no copy of it.
        assert (report.facts, report.messages, report.copies) == (1, 2, 0)
        assert [x.content for x in m.store.messages.in_turns([1, 2], forgotten=True)] == [
            SAID, BROTHER]
