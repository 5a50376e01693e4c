"""One order for every page of a search that ranks a window of its newest word matches.

Recall ranks only the newest ``window`` messages that match a query's words
(memory/search/fusion.py). A page deeper than the window needs older matches, and
ranking a window as deep as that page put them in an order of its own: each deeper page
ranked a wider window afresh, so pages 1, 2 and 3 of 30 matches with a window of 5
could show the same five messages and never the others.

``windowed_order`` reads windows that double from the tier's own (``window``,
``2 * window``, ``4 * window``, ...) until the page is reached, and places the matches a
wider window adds after those of the narrower one, in the wider one's ranking. The
windows read depend on the query alone, never on the page, so every page is a slice of
that one order and paging shows each match once. Within the tier's own window nothing
changes: one ranking, as before.

The cost, past the window: the windows ranked add up to less than twice the widest,
which is less than twice the page's depth (the widest window is under twice the depth),
so a deep page ranks at most about four times the rows one window as deep ranked.

``OneOrder`` keeps that rule, each wider window's new items after the narrower ones', for
this order and for the screened one of a privacy policy (memory/privacy/recall.py), whose
windows are others: they end where its fetches end and stop at a bound of their own.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Generic, Protocol, TypeVar

from tiermem.memory.search.fusion_scores import Ranked

#: ``rank(window)``: the best matches of one window, fused, to the depth the caller
#: asked; its total number of matches, and whether that total is exact.
RankWindow = Callable[[int], tuple[list[Ranked], int, bool]]


class Identified(Protocol):
    """A ranked row or a hit: what one order tells apart by its rowid."""

    @property
    def id(self) -> int: ...


Item = TypeVar("Item", bound=Identified)


class OneOrder(Generic[Item]):
    """The items of windows read narrowest first, each read once: what a window adds is
    what no narrower window held, in that window's own ranking, after theirs."""

    def __init__(self) -> None:
        self._placed: set[int] = set()

    def add(self, items: Iterable[Item]) -> list[Item]:
        """The items of ``items`` no window before placed, now placed, in their order."""
        fresh = [item for item in items if item.id not in self._placed]
        self._placed.update(item.id for item in fresh)
        return fresh

    def __len__(self) -> int:
        return len(self._placed)


def windowed_order(rank: RankWindow, window: int, depth: int,
                   rows: int) -> tuple[list[Ranked], int, bool]:
    """The first ``depth`` rows (or all there are) of the order that pages through windows
    doubling from ``window``, with the total and exactness of the widest window read.

    ``rank(span)`` must rank a window of ``span`` newest matches to ``depth`` rows: at
    most the rows already placed come first in it, so that many more new ones follow
    whenever the window holds them. Widening stops once the page is reached, when a
    window held every match (its total is exact), or when it spans all ``rows``.
    """
    order: list[Ranked] = []
    placed: OneOrder[Ranked] = OneOrder()
    span = window
    while True:
        ranked, total, exact = rank(span)
        order += placed.add(ranked)
        if len(order) >= depth or exact or span >= rows:
            # A match placed from a narrower window is one of the widest window's too;
            # the total never says fewer than were placed.
            return order, max(total, len(order)), exact
        span *= 2
