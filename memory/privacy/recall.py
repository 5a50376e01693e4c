"""The recall layer: whether a stored item may be shown, decided on every read.

The same three modes as retention, with the current query shown to the judge
so that a flagged item the query really needs can be exposed. A judge that
fails withholds. There is no ``ambiguous`` here: an item is exposed or withheld.
A withheld item shows as ``[withheld: CATEGORY]``, CATEGORY being the one the
judge names when the ruleset has it, else the flagging rule's, else ``private``,
as in retention.

Searches over-fetch: they check ``window_multiplier`` times the results a page
needs, withhold what the layer withholds, and cut the rest to the page
(``filtered_page``). When too much was withheld to fill the page, they check as
much again, until the page is full and one more shown match follows it, or the
tier has nothing more. The total counts shown matches only, so that no answer tells how
many withheld ones matched. Recall ranks a window of its newest matches; withheld ones
filling it widen it (``MAX_WIDENING``), the matches a wider window adds following those
of the narrower one, so that every page is a slice of one order.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tiermem.memory.judge import Judge
from tiermem.memory.privacy.config import DEFAULT_CATEGORY
from tiermem.memory.privacy.judging import RECALL_VERDICTS, ask, recall_prompt
from tiermem.memory.privacy.retention import Decision, by_rules, flagged_items
from tiermem.memory.privacy.rules import RuleSet
from tiermem.memory.search.window_order import OneOrder
from tiermem.memory.types import Hit, SearchResult
from tiermem.memory.validation import check_page


def decide_recall(mode: str, rules: RuleSet, policies: Sequence[str], judge: Judge | None,
                  request: str, items: Sequence[tuple[str, Mapping[str, Any]]]
                  ) -> list[Decision]:
    """Expose or withhold each ``(text, metadata)`` item for ``request``."""
    asked = flagged_items(mode, rules, items)
    if mode == "deterministic" or judge is None:
        return by_rules(asked)
    answers = ask(judge, recall_prompt(rules, policies), asked, RECALL_VERDICTS, request=request)
    decisions = []
    for item, answer in zip(asked, answers, strict=True):
        flag = item.flagged
        category = flag.category if flag else DEFAULT_CATEGORY
        rule_id = flag.rule_id if flag else None
        if answer is None:
            decisions.append(Decision(False, category, rule_id, "judge failed"))
        elif answer.verdict == "expose":
            decisions.append(Decision(True, by="judge"))
        else:
            decisions.append(Decision(False, rules.category_named(answer.category) or category,
                                      rule_id, "judge"))
    return decisions


Allow = Callable[[Sequence[Hit]], list[bool]]
#: ``fetch(size, page, window)``: one page of a tier's search, ranking its ``window`` newest
#: word matches and nearest rows when the tier ranks a window (None: its own).
Fetch = Callable[[int, int, int | None], SearchResult]
#: The most results one search call returns (memory.validation.check_page).
MAX_PAGE = 1000
#: How many times its own window a screened search may widen a tier's window past the
#: withheld matches that fill it; each widening ranks the wider window again.
MAX_WIDENING = 4


@dataclass
class _Scan:
    """What one pass over a window read: how many of its hits were read, the last fetch's
    result (its total and whether that is exact), and whether that fetch reached the end
    of the tier's order."""

    seen: int
    result: SearchResult
    exhausted: bool


@dataclass
class _Screening:
    """The shown hits of one search, in the order a user pages through them: each window's
    shown hits in its ranking, after those of the narrower windows before it.

    ``placed`` holds every hit read, shown or withheld, so a wider window adds only the
    hits it reaches first; ``decided`` keeps each verdict, so no hit is checked twice."""

    fetch: Fetch
    allow: Allow
    chunk: int
    enough: int
    kept: list[Hit] = field(default_factory=list)
    placed: OneOrder[Hit] = field(default_factory=OneOrder)
    # A hit found only by words is screened for its context too: its similarity is part
    # of the key.
    decided: dict[tuple[int, bool], bool] = field(default_factory=dict)

    def read(self, span: int | None, reach: int = 0) -> _Scan:
        """Read the order of one window, checking ``chunk`` new hits at a time, until
        ``enough`` are shown or it has no more; its first fetch reads ``reach`` hits at
        least."""
        seen = 0
        while True:
            size, at = _next_fetch(seen, self.chunk, span, reach)
            result = self.fetch(size, at, span)
            fresh = result.hits[seen - (at - 1) * size:]
            # Whether this fetch reached the end of the order, as the tier counts it: a total
            # that is only a lower bound may be passed (recall's window widens past it).
            last = len(result.hits) < size or (
                result.total_exact and (at - 1) * size + len(result.hits) >= result.total)
            for start in range(0, len(fresh), self.chunk):
                batch = fresh[start:start + self.chunk]
                seen += len(batch)
                if self._place(batch):
                    return _Scan(seen, result, last)
            if last or (span is not None and seen >= span):
                return _Scan(seen, result, last)

    def _place(self, batch: Sequence[Hit]) -> bool:
        """Add the shown ones of ``batch`` not read before; whether enough are shown."""
        new = self.placed.add(batch)
        unknown = [h for h in new if (h.id, h.similarity is None) not in self.decided]
        if unknown:
            self.decided.update(((h.id, h.similarity is None), ok)
                                for h, ok in zip(unknown, self.allow(unknown), strict=True))
        self.kept += [h for h in new if self.decided[h.id, h.similarity is None]]
        return len(self.kept) >= self.enough


def filtered_page(fetch: Fetch, allow: Allow, k: int, page: int, multiplier: int,
                  screened: bool = True, window: int | None = None) -> SearchResult:
    """Page ``page`` (of ``k``) of the results ``fetch(size, page, window)`` pages through
    that ``allow`` lets through.

    Results are checked ``multiplier`` pages' worth at a time until the page is full or the
    tier has no more. Under a recall layer (``screened``), ``total`` counts only matches
    ``allow`` was seen to let through, never one it did not check: the checking goes on
    until one shown match past the page is found, and the total is then ``page * k + 1``
    at least (``unchecked``), whatever else the last fetch held; only a search that checked
    every match counts what it shows, exact as the tier's count is. So the answer is the
    same however many withheld items matched, and counting costs one match past the page.
    Without one (nothing is withheld), ``total`` is the tier's.

    A tier that ranks a ``window`` of its newest matches (recall) ranks withheld ones in
    it too: when they leave too few shown ones there and older matches exist, the window
    doubles and is read again, up to ``MAX_WIDENING`` times its size (further only as far
    as the page asked for needs, while the pages before it are full), so a shown match is
    found past any number of newer withheld ones up to that. The hits a wider window adds
    follow those of the narrower one, in the wider one's ranking: the windows read depend
    on the query and on how many shown hits they hold, so every page is a slice of one
    order and paging shows each shown match once. A page checks the hits it reads, each
    once: at most the widest window it reached.
    """
    page, k = check_page(page, k)
    wanted = page * k
    chunk = min(k * multiplier, MAX_PAGE)
    if not screened:
        return _unscreened(fetch, allow, k, page, chunk)
    enough = wanted + 1
    screening = _Screening(fetch, allow, chunk, enough)
    span = None if window is None else _fetchable(window, chunk)
    widest = None if window is None else _fetchable(MAX_WIDENING * window, chunk)
    scan = screening.read(span)
    # Read short of its end, a window held every match: a wider one holds no more.
    while (span is not None and widest is not None
           and span < max(widest, _fetchable(_pages_filled(screening.kept, k, page), chunk))
           and len(screening.kept) < enough and not scan.result.total_exact
           and scan.seen >= span):
        # Past the widest window, only a page that deep reads on, as the tier's own
        # paging would, and only while the pages before it are full: a deeper page that
        # read on past a short one would place what it found on pages already answered.
        span = _fetchable(2 * span, chunk) if span >= widest else min(
            _fetchable(2 * span, chunk), widest)
        # The narrower window was read to its end: its hits are likely among the first.
        scan = screening.read(span, len(screening.placed))
    kept, result = screening.kept, scan.result
    hits = kept[(page - 1) * k:wanted]
    if len(kept) > wanted:
        # Even when every match was fetched: an exact count here would say whether the
        # matches past the last one shown were checked, that is, whether withheld ones
        # filled the fetch.
        return SearchResult(hits=hits, total=wanted + 1, page=page, page_size=k,
                            total_exact=False, unchecked=True)
    return SearchResult(hits=hits, total=len(kept), page=page, page_size=k,
                        total_exact=result.total_exact)


def _unscreened(fetch: Fetch, allow: Allow, k: int, page: int, chunk: int) -> SearchResult:
    """A page of ``fetch`` with no recall layer: its total is the tier's, less what
    ``allow`` left out of what was read. The tier's own window is read, as its own pages
    read it: each fetch is a slice of one order however deep (memory.search.window_order)."""
    wanted = page * k
    screening = _Screening(fetch, allow, chunk, wanted)
    scan = screening.read(None)
    kept = screening.kept
    return SearchResult(hits=kept[(page - 1) * k:wanted],
                        total=max(scan.result.total - (scan.seen - len(kept)), len(kept)),
                        page=page, page_size=k,
                        total_exact=scan.result.total_exact and scan.exhausted)


def _pages_filled(kept: Sequence[Hit], k: int, page: int) -> int:
    """How many shown hits fill the pages of ``k`` up to ``page`` or the first that
    ``kept`` leaves short, whichever comes first, and tell that one more follows."""
    return min(len(kept) // k + 1, page) * k + 1


def _fetchable(span: int, chunk: int) -> int:
    """``span`` rounded up so the fetches that read it (``_next_fetch``) end at it: a fetch
    past the window would widen it, and with it change the order being read."""
    span = max(span, chunk)
    return span if span <= MAX_PAGE else -(-span // MAX_PAGE) * MAX_PAGE


def _next_fetch(seen: int, chunk: int, span: int | None, reach: int) -> tuple[int, int]:
    """The ``(size, page)`` of the fetch that reads on from the ``seen`` hits read, to
    ``reach`` at least: twice as many each time up to a full page, so that a window full
    of withheld hits is ranked a few times rather than once per ``chunk``; then page after
    page."""
    if seen >= MAX_PAGE:
        return MAX_PAGE, seen // MAX_PAGE + 1
    end = min(max(2 * seen, chunk, reach), MAX_PAGE)
    return (end if span is None else min(end, span)), 1
