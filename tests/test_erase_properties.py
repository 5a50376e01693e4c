"""Property: whatever sequence of adds, evictions, promotions, edits, retirements and
erasures runs, no read path ever returns text that was replaced or erased.

Each text carries a token of its own, so "returns the text" is "shows the token".
Core holds two facts, so adds evict and re-adding an archived fact promotes it
(one hit suffices). A retired fact stays in archival marked superseded (that is
what retiring means), so its token may be shown, never from core.
"""

from __future__ import annotations

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)
from leak_helpers import read_paths_showing
from memory_helpers import check_archival_consistent, check_core_invariants, make_memory

from tiermem.memory.tiers.lifecycle import SUPERSEDED_AT


class EditsAndErasures(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.memory = make_memory(core_limit=2, core_limit_unit="facts", promote_hits=1,
                                  recent_promote_hits=1)
        self.made = 0
        #: Facts added directly, by id: their token and their current text.
        self.facts: dict[int, tuple[str, str]] = {}
        #: Messages the user sent, by id: the token they carry (their facts carry it too).
        self.messages: dict[int, str] = {}
        self.retired: set[str] = set()
        self.gone: set[str] = set()

    def _token(self) -> str:
        self.made += 1
        return f"tok{self.made}q"

    def _core_facts(self) -> list[int]:
        return sorted(i for i in self.facts if i in self.memory.core)

    def _archived_facts(self) -> list[int]:
        return sorted(i for i, (token, _) in self.facts.items()
                      if i not in self.memory.core and token not in self.retired)

    @initialize()
    def a_fact_back_from_archival(self) -> None:
        # Where a stale copy hides most easily: a fact in core with the passage its
        # eviction made (the rules reach this too, only rarely).
        for _ in range(3):
            self.add(durable=True)
        first = min(self.facts)
        self.memory.add_fact(self.facts[first][1], "durable")
        assert first in self.memory.core

    @rule(durable=st.booleans())
    def add(self, durable: bool) -> None:
        token = self._token()
        text = f"the code word is {token}"
        fact = self.memory.add_fact(text, "durable" if durable else "short-lived")
        self.facts[fact] = (token, text)

    @rule()
    def say(self) -> None:
        token = self._token()
        self.memory.process_interaction(f"My badge number is {token}.", "Noted.")
        self.messages[self.memory.store.messages.max_id() - 1] = token

    @precondition(lambda self: self._archived_facts())
    @rule(data=st.data())
    def promote(self, data: st.DataObject) -> None:
        fact = data.draw(st.sampled_from(self._archived_facts()))
        self.memory.add_fact(self.facts[fact][1], self.memory.fact(fact).durability)  # type: ignore[union-attr]

    @precondition(lambda self: self._core_facts())
    @rule(data=st.data())
    def edit(self, data: st.DataObject) -> None:
        fact = data.draw(st.sampled_from(self._core_facts()))
        old, text = self.facts[fact]
        new = self._token()
        self.memory.replace_in_core(old, new)
        self.facts[fact] = (new, text.replace(old, new))
        self.gone.add(old)

    @precondition(lambda self: self._core_facts())
    @rule(data=st.data())
    def retire(self, data: st.DataObject) -> None:
        fact = data.draw(st.sampled_from(self._core_facts()))
        token, text = self.facts[fact]
        self.memory.replace_in_core(text, "")
        self.retired.add(token)

    @precondition(lambda self: self.facts)
    @rule(data=st.data())
    def erase_fact(self, data: st.DataObject) -> None:
        fact = data.draw(st.sampled_from(sorted(self.facts)))
        token, _ = self.facts.pop(fact)
        report = self.memory.erase(facts=[fact], reason="asked")
        assert report.facts == 1
        self.gone.add(token)

    @precondition(lambda self: self.messages)
    @rule(data=st.data())
    def erase_message(self, data: st.DataObject) -> None:
        message = data.draw(st.sampled_from(sorted(self.messages)))
        report = self.memory.erase(messages=[message], reason="asked")
        assert report.messages == 1
        self.gone.add(self.messages.pop(message))

    @invariant()
    def nothing_replaced_or_erased_is_shown(self) -> None:
        for token in self.gone:
            assert read_paths_showing(self.memory, token) == [], token

    @invariant()
    def retired_facts_are_never_current(self) -> None:
        for token in self.retired - self.gone:
            assert not any(token in f.text for f in self.memory.core)
            hits = [h for h in self.memory.archival_search(token).hits if token in h.text]
            assert hits and all(SUPERSEDED_AT in h.metadata for h in hits), token

    @invariant()
    def tiers_stay_consistent(self) -> None:
        check_core_invariants(self.memory)
        check_archival_consistent(self.memory)

    def teardown(self) -> None:
        self.memory.close()


EditsAndErasures.TestCase.settings = settings(max_examples=40, stateful_step_count=15,
                                              deadline=None)
TestEditsAndErasures = EditsAndErasures.TestCase
