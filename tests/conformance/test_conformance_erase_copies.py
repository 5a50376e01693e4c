"""An erasure takes the model's messages of every other turn that quote what it erases, and
names the user's, on every backend (memory/ops/erased_copies.py; ``MessageStore.after``
reads recall a page at a time)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import pytest
from backends import Backend
from leak_helpers import read_paths_showing

from tiermem.memory.hierarchy import HierarchicalMemory
from tiermem.memory.ops import erased_copies
from tiermem.memory.tiers.recall import NewMessage

SAID = "My password is zebracanary77."
FACT = "User's password is zebracanary77"


def _turn(m: HierarchicalMemory, *messages: tuple[str, str]) -> list[int]:
    with m.interaction() as turn:
        return m.recall.append_many([NewMessage(role, text, turn) for role, text in messages])


def _found(message_id: int, text: str) -> str:
    """A conversation_search result listing one message, as the tool writes it."""
    return json.dumps({"tier": "recall", "query": "What is my password?", "total": 1,
                       "results": [{"id": message_id, "role": "user", "text": text}]},
                      ensure_ascii=False, separators=(",", ":"))


def _ids(m: HierarchicalMemory) -> list[int]:
    return [r["id"] for r in m.recall.iter_rows()]


def test_an_erased_message_takes_its_copies_in_later_turns_of_every_role(
        backend: Backend) -> None:
    with backend.memory() as m:
        said = _turn(m, ("user", SAID), ("assistant", "Noted."))
        m.add_fact(FACT, source_message_id=said[0])
        asked = _turn(m, ("user", "What is my password?"), ("tool", _found(said[0], SAID)),
                      ("assistant", f"From core memory: {FACT}"))
        again = _turn(m, ("user", "Note: my  PASSWORD is\nzebracanary77. Also, I like tea."),
                      ("assistant", "Your password is safe with me."))
        forgotten = _turn(m, ("assistant", f"Still: {FACT}."))
        m.store.forgetting.forget([], [], forgotten, m.now())  # on disk until erased

        report = m.erase(messages=[said[0]], reason="asked")

        # The tool's result, the reply and the forgotten reply; the user's later message,
        # a statement of its own, is named for the user to erase too.
        assert (report.facts, report.messages, report.copies) == (1, 4, 3)
        assert report.quoted_by_user == [again[0]]
        assert _ids(m) == [said[1], asked[0], *again]
        m.erase(messages=report.quoted_by_user, reason="asked")
        assert read_paths_showing(m, "zebracanary77", query="password zebracanary77") == []


@pytest.mark.parametrize("said", ["What is my name?", "I don't know that.",
                                  "I live in Berlin."])
def test_an_erasure_keeps_the_users_messages_of_other_turns_saying_it_again(
        backend: Backend, said: str) -> None:
    """A phrase of four words or more said again, or inside a longer statement, is the
    user's own message: named, never taken, whatever the model's copies."""
    with backend.memory() as m:
        first = _turn(m, ("user", said), ("assistant", f"You said: {said}"))
        later = _turn(m, ("user", said), ("user", f"I moved to Munich. Tom says {said}"),
                      ("tool", _found(first[0], said)), ("assistant", "Noted."))
        report = m.erase(messages=[first[0]], reason="asked")
        assert (report.messages, report.copies) == (3, 1)
        assert report.quoted_by_user == later[:2]
        assert _ids(m) == [*later[:2], later[3]]


def test_an_erased_fact_takes_the_later_replies_quoting_it(backend: Backend) -> None:
    with backend.memory() as m:
        fact = m.add_fact(FACT)
        asked = _turn(m, ("user", "What is my password?"),
                      ("assistant", f"From core memory: {FACT}"),
                      ("assistant", "User's password is zebracanary7"))  # another word

        report = m.erase(facts=[fact], reason="asked")

        assert (report.facts, report.messages, report.copies) == (1, 1, 1)
        assert _ids(m) == [asked[0], asked[2]]


@pytest.mark.parametrize(("said", "later", "taken"), [
    ("Thanks!", "Thanks! Glad to help.", False),  # said in passing by many messages
    ("Yes, in Lisbon.", "Yes, in Lisbon. It is sunny.", False),
    ("zebracanary77", "You told me zebracanary77.", True),  # a word like a secret
    ("I live in Lisbon.", "You said: I live in Lisbon.", True),  # four words
])
def test_only_a_text_that_names_what_it_says_is_looked_for_in_other_turns(
        backend: Backend, said: str, later: str, taken: bool) -> None:
    with backend.memory() as m:
        first = _turn(m, ("user", said))
        other = _turn(m, ("assistant", later))
        report = m.erase(messages=first, reason="asked")
        assert report.copies == int(taken)
        assert _ids(m) == ([] if taken else other)


def test_the_erasure_reads_recall_once_a_page_at_a_time(
        backend: Backend, monkeypatch: pytest.MonkeyPatch) -> None:
    with backend.memory() as m:
        said = _turn(m, ("user", SAID))
        for n in range(7):
            _turn(m, ("assistant", f"reply {n}"))
        m.store.forgetting.forget([], [], [said[0] + 3], m.now())
        every = _ids(m)
        read: list[int] = []
        store_type = type(m.store.messages)
        after = store_type.after

        def counting(self: Any, after_id: int, limit: int) -> Sequence[Any]:
            page = after(self, after_id, limit)
            assert len(page) <= limit == 3
            read.extend(x.id for x in page)
            return page

        monkeypatch.setattr(erased_copies, "PAGE", 3)
        monkeypatch.setattr(store_type, "after", counting)
        m.erase(messages=[said[0]], reason="asked")
        # Every message, forgotten ones included, each read once.
        assert read == every and len(every) == 8
