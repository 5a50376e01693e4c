"""A turn's messages quoting what forget or erase takes go with it, on every backend
(memory/ops/quoting.py; ``MessageStore.in_turns_of`` finds the turn)."""

from __future__ import annotations

import json

from backends import Backend

from tiermem.memory.hierarchy import HierarchicalMemory
from tiermem.memory.tiers.recall import NewMessage

SAID = "My card number is 4111 1111"
FACT = "User's card number is 4111 1111"


def _call(call_id: str, name: str, **arguments: str) -> list[dict[str, object]]:
    return [{"id": call_id, "type": "function",
             "function": {"name": name, "arguments": json.dumps(arguments)}}]


def _turns(m: HierarchicalMemory) -> tuple[list[int], list[int], int]:
    """Turn 1 as an agent runs it: the user's message, the tool call storing the fact, its
    result, a reply quoting it (other case, line breaks), a tool result quoting nothing and
    a reply naming a longer number; turn 2 quotes the fact again. Returns both turns' message
    ids and the fact's id."""
    with m.interaction() as turn:
        first = m.recall.append_many([
            NewMessage("user", SAID, turn),
            NewMessage("assistant", "", turn,
                       tool_calls=_call("c1", "core_memory_append", content=FACT)),
            NewMessage("tool", f"core + {FACT} (core 1/10 facts)", turn, tool_call_id="c1",
                       tool_name="core_memory_append"),
            NewMessage("assistant", "Noted:", turn, tool_calls=_call(
                "c2", "send_message", message="Noted: USER'S card number\n is  4111 1111.")),
            NewMessage("tool", "Sent.", turn, tool_call_id="c2", tool_name="send_message"),
            NewMessage("assistant", f"Not {FACT}1, then.", turn),
        ])
        fact = m.add_fact(FACT, source=f"tool:turn:{turn}", source_message_id=first[0])
    with m.interaction() as turn:
        second = m.recall.append_many([NewMessage("user", "what is my card number?", turn),
                                       NewMessage("assistant", f"As noted: {FACT}.", turn)])
    return first, second, fact


def test_in_turns_of_returns_whole_turns_and_forgotten_rows_only_when_asked(
        backend: Backend) -> None:
    with backend.memory() as m:
        first, second, _ = _turns(m)
        assert [x.id for x in m.store.messages.in_turns_of([first[2]])] == first
        assert [x.id for x in m.store.messages.in_turns_of([second[1], first[0], 999])] == [
            *first, *second]
        assert m.store.messages.in_turns_of([]) == []
        row = m.store.messages.in_turns_of([first[1]])[1]
        assert (row.role, row.tool_calls) == ("assistant", _call("c1", "core_memory_append",
                                                                 content=FACT))
        m.store.forgetting.forget([], [], [first[0], first[3]], m.now())
        # A forgotten message still names its turn; it is returned only with ``forgotten``.
        live = [x.id for x in m.store.messages.in_turns_of([first[0]])]
        assert live == [first[1], first[2], first[4], first[5]]
        assert [x.id for x in m.store.messages.in_turns_of([first[0]], forgotten=True)] == first


def test_forgetting_the_message_tombstones_the_turns_messages_quoting_it(
        backend: Backend) -> None:
    with backend.memory() as m:
        first, second, fact = _turns(m)
        result = m.forget(SAID)
        assert result.outcome == "matched" and result.forgotten.facts == (fact,)
        # The message, the tool call, its result and the reply; not "Sent.", not the longer
        # number, not the other turn.
        assert result.forgotten.messages == tuple(first[:4])
        assert m.forget_requests()[-1].forgotten.messages == tuple(first[:4])
        assert [r["id"] for r in m.recall.rows([*first, *second])] == [
            first[4], first[5], *second]
        assert len(m.recall) == 4
        for query in ("card number 4111 1111", FACT, SAID):
            assert {h.id for h in m.recall_search(query, k=50, roles=None).hits} <= {
                first[5], *second}


def test_forgetting_the_fact_alone_takes_the_messages_quoting_it_not_the_users_words(
        backend: Backend) -> None:
    with backend.memory() as m:
        first, _, fact = _turns(m)
        result = m.forget(FACT)
        assert result.forgotten.facts == (fact,)
        assert result.forgotten.messages == tuple(first[1:4])
        assert [r["id"] for r in m.recall.rows(first)] == [first[0], first[4], first[5]]


def test_erasing_the_message_deletes_the_messages_quoting_it_in_every_turn(
        backend: Backend) -> None:
    with backend.memory() as m:
        first, second, fact = _turns(m)
        report = m.erase(messages=[first[0]], reason="asked")
        # Its turn's four, and the reply of turn 2 quoting the fact: a copy of another turn.
        assert (report.facts, report.messages, report.copies) == (1, 5, 1)
        assert [r["id"] for r in m.recall.iter_rows()] == [first[4], first[5], second[0]]
        assert m.fact(fact) is None and len(m.recall) == 3


def test_erasing_tombstones_takes_the_quoting_messages_they_left(backend: Backend) -> None:
    """Rows tombstoned alone (as before forget took the quoting messages) take them when
    erased: erasure looks for them among forgotten and live messages alike."""
    with backend.memory() as m:
        first, second, fact = _turns(m)
        m.store.forgetting.forget([fact], [], [first[0], first[2]], m.now())
        report = m.erase(facts=[fact], messages=[first[0], first[2]], reason="asked")
        assert (report.facts, report.messages, report.copies) == (1, 5, 1)
        assert [r["id"] for r in m.recall.iter_rows()] == [first[4], first[5], second[0]]
