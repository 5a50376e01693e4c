"""Scenarios as data: days of user messages, then what must hold at the end.

A scenario file only describes a workload and its expected outcomes; the one
runner in scenarios/runner.py drives it through the real agent (offline
policy or a model) and checks the outcomes.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Question:
    """A question and what its reply must contain: ``expect``, found in ``tier``.

    ``tier`` is where the answer must come from: ``core`` (the fact is in core
    when asked), ``archival`` (the turn's archival search returned it) or
    ``recall`` (the turn's conversation search returned it). ``any_of`` lists
    tiers that are all acceptable. ``stale`` lists fragments the reply must not
    contain: values that were true once and have since been replaced. No reply
    may quote the question itself (asked earlier) as its evidence.
    ``present`` says the question is about how things are now (rather than
    what happened), which is what the present-tense share counts.

    A scenario asks its ``questions`` after the last day; a question placed
    among a day's messages is asked at that point.
    """

    ask: str
    expect: str
    tier: str = "core"
    any_of: tuple[str, ...] = ()
    stale: tuple[str, ...] = ()
    present: bool = True

    @property
    def tiers(self) -> tuple[str, ...]:
        return self.any_of or (self.tier,)


@dataclass(frozen=True)
class Day:
    """One day of the scenario: what the user says and asks, in order."""

    name: str
    messages: tuple[str | Question, ...]


@dataclass(frozen=True)
class Scenario:
    """A workload and its expected outcomes."""

    name: str
    description: str
    days: tuple[Day, ...]
    questions: tuple[Question, ...] = ()
    #: Text fragments of facts that must be in core at the end.
    durable_in_core: tuple[str, ...] = ()
    #: Fragments of facts that entered core, were evicted or retired as no longer true, and
    #: are findable in archival.
    rotated_to_archival: tuple[str, ...] = ()
    #: Fragments that must not be in core at the end (superseded or transient facts).
    not_in_core: tuple[str, ...] = ()
    core_limit: int = 120
    core_limit_unit: str = "tokens"
    tags: tuple[str, ...] = field(default_factory=tuple)
