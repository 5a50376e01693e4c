"""Which statements of a sentence the user said an offline answer may quote from recall.

None that only says again what the answer quotes from core or archival
(``quoted_already``), and none of the facts the user asked to forget, which the search
result lists with the message (``Forgotten``; ``states_forgotten`` for one statement,
``forgotten_answer`` for a sentence that answers only with them). Each statement is read
as the policy stored it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tiermem.memory.ops.fact_said import holds_part_of
from tiermem.memory.text.clauses import clauses_of
from tiermem.memory.text.extract import extract_facts, normalize_fact
from tiermem.memory.text.sentences import split_sentences
from tiermem.memory.text.updates import read_statement
from tiermem.memory.text.wording import concepts

__all__ = ["Forgotten", "forgotten_answer", "quoted_already", "states_forgotten"]

#: The words of a cue that marks a statement as news and says nothing more (updates.py):
#: "I meant I live in Porto" states "User lives in Porto", as "Actually, ..." does.
_NEWS_CUES = frozenset({"now", "actually", "sorry", "oops", "correction", "update", "in", "fact",
                        "these", "days", "nowadays", "no", "nope", "i", "meant", "to", "say"})
_WORD = re.compile(r"[\w'’]+")


def quoted_already(sentence: str, said: set[str]) -> bool:
    """Whether every fact ``sentence`` states is among ``said``, the facts the answer quotes
    from core or archival: quoted as well, the sentence would say the same thing twice.
    Read as the policy stored it, without a cue that says only that it is news: "I live in
    Lisbon now." states "User lives in Lisbon" (not so "..., not Porto", which says more)."""
    text = read_statement(sentence).text
    dropped = set(_WORD.findall(sentence.casefold())) - set(_WORD.findall(text.casefold()))
    facts = extract_facts(text if text and dropped <= _NEWS_CUES else sentence)
    return bool(facts) and all(
        any(normalize_fact(text) in said for text in (fact.text, *fact.formers))
        or all(normalize_fact(part) in said for part in clauses_of(fact.text))
        for fact in facts)


@dataclass(frozen=True)
class Forgotten:
    """The facts a recalled message states that the user forgot, as its search result lists
    them: their keys, and those of them that no statement of the message gives as its
    key (a model stored "User works out at FitLife" for "My gym is FitLife"), which a
    statement states when it holds part of what they name (``holds_part_of``)."""

    keys: frozenset[str]
    worded: tuple[str, ...]

    @classmethod
    def of(cls, text: str, listed: list[str]) -> Forgotten:
        keys = frozenset(map(normalize_fact, listed))
        if not keys:
            return cls(keys, ())
        given = {normalize_fact(said) for sentence in split_sentences(text)
                 for reading in dict.fromkeys(filter(None, (sentence,
                                                            read_statement(sentence).text)))
                 for fact in extract_facts(reading)
                 for said in (fact.text, *fact.formers, *clauses_of(fact.text))}
        return cls(keys, tuple(fact for fact in listed if normalize_fact(fact) not in given))

    def __bool__(self) -> bool:
        return bool(self.keys)

    def stated(self, part: str, keys: set[str]) -> bool:
        """Whether ``part``, a statement giving the facts of ``keys``, states one of them."""
        return bool(keys & self.keys) or any(holds_part_of(part, fact) for fact in self.worded)


def states_forgotten(part: str, forgotten: Forgotten) -> bool:
    """Whether ``part``, one statement of a sentence, states a fact the user forgot, read
    as the policy stored it."""
    stated = read_statement(part).text
    facts = extract_facts(stated) if stated else []
    return bool(facts) and forgotten.stated(part, {
        normalize_fact(text) for fact in facts for text in (fact.text, *fact.formers)})


def forgotten_answer(sentence: str, forgotten: Forgotten, wanted: set[str]) -> bool:
    """Whether ``sentence`` answers the question only with facts the user forgot: it states
    nothing else, or what else it states shares nothing with the question ("My gym is
    FitLife and I live in Porto", its gym forgotten, answers "What's my gym?" only so).
    For a sentence whose other statements answer too and cannot be quoted without the
    forgotten one (``without_statements``), the sentence is quoted whole. It is read as
    the policy stored it ("Actually my gym is FitLife, not Gold's" stated "User's gym is
    FitLife")."""
    stated = read_statement(sentence).text if forgotten else ""
    facts = extract_facts(stated) if stated else []  # a withdrawal states no fact
    if not facts:
        return False
    parts = [(part, {normalize_fact(fact.text), normalize_fact(part),
                     *map(normalize_fact, fact.formers)}) for fact in facts
             for part in clauses_of(fact.text)]
    rest = [part for part, keys in parts if not forgotten.stated(part, keys)]
    return len(rest) < len(parts) and not wanted & concepts(" ".join(rest))
