"""Time-aware re-ranking of search hits, for questions about when things happened.

Two signals, both offline (memory.search.dates reads them):

- A question that names a date ("last May", "in 2023", "during the summer")
  favours hits stored in that range, or up to ``slack_days`` after it: people
  tell of an event after it happens, so a message about a May trip may be
  from June.
- A question that asks for a time ("When did ...", "How long ago ...")
  favours hits that state one ("yesterday", "last Friday", "in 2022"): the
  answer is in the words, or in the stored date of a message that says
  "yesterday".

Each signal multiplies a hit's fused score by ``1 + weight``; scores are then
divided by the largest factor given, so they stay in (0, 1] and comparable
across tiers. A boost reorders hits that are close, and does not lift an
unrelated message over a relevant one. Hits outside the candidate list are
not seen: callers pass more candidates than they keep.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from tiermem.memory.search.dates import DateRange, asks_when, mentions_time, resolve_dates
from tiermem.memory.types import Hit


@dataclass(frozen=True)
class TimeWeights:
    """How much each time signal lifts a hit (0 turns a signal off)."""

    in_range: float = 0.5
    states_time: float = 0.25
    slack_days: float = 31.0


@dataclass(frozen=True)
class TimeQuery:
    """What a question says about time: the dates it names and whether it asks when."""

    dates: DateRange | None
    asks_when: bool

    @property
    def active(self) -> bool:
        return self.dates is not None or self.asks_when


def read_time_query(question: str, now: float) -> TimeQuery:
    """The time signals of ``question``, with relative dates resolved against ``now``."""
    return TimeQuery(resolve_dates(question, now), asks_when(question))


def rerank_for_time(hits: Sequence[Hit], asked: TimeQuery,
                    weights: TimeWeights = TimeWeights(),
                    text_of: Callable[[Hit], str] = lambda hit: hit.text) -> list[Hit]:
    """``hits`` re-scored by the time signals of ``asked``, best first (stable on ties).

    ``text_of`` is the part of a hit that must state a time: the default is
    all of its text; a caller whose passages carry context (other messages'
    words, kept for full-text search) passes the hit's own words, so a time
    said in the context is not credited to it.
    """
    if not asked.active or not hits:
        return list(hits)
    most = 1.0
    if asked.dates is not None:
        most += weights.in_range
    if asked.asks_when:
        most += weights.states_time
    rescored = []
    for hit in hits:
        factor = 1.0
        if asked.dates is not None and asked.dates.contains(hit.created_at, weights.slack_days):
            factor += weights.in_range
        if asked.asks_when and mentions_time(text_of(hit)):
            factor += weights.states_time
        rescored.append(_with_score(hit, hit.score * factor / most))
    rescored.sort(key=lambda h: -h.score)
    return rescored


def _with_score(hit: Hit, score: float) -> Hit:
    """A copy of ``hit`` with ``score``. ``dataclasses.replace`` runs ``__init__`` again,
    four times as long, and a search across the tiers re-scores some 60 hits."""
    copied = object.__new__(Hit)
    copied.__dict__.update(hit.__dict__)
    copied.score = score
    return copied
