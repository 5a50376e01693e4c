"""The keys of forgotten facts: what extraction must not store again, and what a message
still states of what the user forgot.

A forgotten fact's normalised text is kept as a hash (memory/ops/forget.py): extraction
from conversation does not store it again, and stating it explicitly lifts the block. The
message a fact was learned from is not forgotten with it, so it still says what was
forgotten; ``ForgottenNorms.stated_in`` finds that, for a search result to say so: in
the words extraction gives a statement, or, for a fact stored in other words (a model's
"User works out at FitLife" for "My gym is FitLife"), by the link from the fact to the
message it was learned from, when the message says what the fact names
(memory/ops/fact_said.py).
"""

from __future__ import annotations

from tiermem.memory.ops.fact_said import says
from tiermem.memory.store.contract import StorageBackend
from tiermem.memory.store.guard import guarded
from tiermem.memory.text.clauses import clauses_of
from tiermem.memory.text.digest import norm_hash
from tiermem.memory.text.extract import extract_facts, fact_norms
from tiermem.memory.text.sentences import split_sentences
from tiermem.memory.text.updates import read_statement


class ForgottenNorms:
    """The hashes of forgotten facts' norms, held in memory so extraction can test every
    fact it finds, and an explicit add lift one, without asking the store each time."""

    def __init__(self, store: StorageBackend) -> None:
        self.store = store
        self._hashes: set[str] = set()
        self.reload()
        store.on_rollback(self.reload)

    def reload(self) -> None:
        self._hashes = self.store.forgetting.blocked_norms()

    def __contains__(self, norm: object) -> bool:
        return isinstance(norm, str) and norm_hash(norm) in self._hashes

    def blocks(self, text: str) -> bool:
        """Whether extraction must not store ``text``: forgotten under its key, or under
        one an earlier version gave it and kept the hash of (memory/text/fact_keys.py)."""
        return any(norm in self for norm in fact_norms(text))

    def add(self, norms: set[str], at: float) -> None:
        hashes = sorted({norm_hash(n) for n in norms})
        self.store.forgetting.block(hashes, at)
        self._hashes.update(hashes)

    def lift(self, text: str) -> None:
        """The fact is stated again explicitly: extraction may store it again too, in any
        spelling (every key it may have been blocked under goes)."""
        for norm in fact_norms(text):
            hashed = norm_hash(norm)
            if hashed in self._hashes:
                self.store.forgetting.unblock(hashed)
                self._hashes.discard(hashed)

    @guarded
    def stated_in(self, text: str, message_id: int | None = None) -> list[str]:
        """The forgotten facts ``text`` (a user's message) states, in the words extraction
        gives them ("User's gym is FitLife" for "My gym is FitLife."): each sentence read as
        stated and without a cue that only says it is news ("Actually ..."), and a sentence
        joining statements read for each (``clauses_of``), as the facts are stored. With
        the message's ``message_id``, also the forgotten facts learned from it, in any
        words, that a statement of ``text`` says (``says``). Empty when nothing is
        forgotten, or the text states none of it; an erased fact's key is gone, so what an
        erasure took is not found."""
        if not self._hashes:
            return []
        found: dict[str, None] = {}
        for sentence in split_sentences(text):
            readings = dict.fromkeys(filter(None, (sentence, read_statement(sentence).text)))
            for fact in (fact for reading in readings for fact in extract_facts(reading)):
                for said in (fact.text, *fact.formers, *clauses_of(fact.text)):
                    if self.blocks(said):
                        found[said] = None
        if message_id is not None:
            # Still forgotten: one stated again explicitly had its key lifted.
            found.update(dict.fromkeys(
                fact.text for fact in self.store.facts.forgotten_from([message_id])
                if self.blocks(fact.text) and says(text, fact.text)))
        return list(found)
