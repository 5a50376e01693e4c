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
filling it widen it (``MAX_WIDENING``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tiermem.memory.judge import Judge
from tiermem.memory.privacy.config import DEFAULT_CATEGORY
from tiermem.memory.privacy.judging import RECALL_VERDICTS, ask, recall_prompt
from tiermem.memory.privacy.retention import Decision, by_rules, flagged_items
from tiermem.memory.privacy.rules import RuleSet
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
    """What one pass over a window read: the hits shown, how many hits were read, the
    last fetch's result (its total and whether that is exact), and whether that fetch
    reached the end of the tier's order."""

    kept: list[Hit]
    seen: int
    result: SearchResult
    exhausted: bool


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
    widens by as many as were withheld and is read again, up to ``MAX_WIDENING`` times its
    size, so a shown match is found past any number of newer withheld ones up to that.
    Within one window every fetch is a slice of one order.
    """
    page, k = check_page(page, k)
    wanted = page * k
    enough = wanted + 1 if screened else wanted
    chunk = min(k * multiplier, MAX_PAGE)
    # A hit found again in a wider window is not checked again; its similarity is part of
    # the key, as a hit found only by words is screened for its context too.
    decided: dict[tuple[int, bool], bool] = {}
    span = None if window is None else _fetchable(max(window, enough), chunk)
    widest = None if window is None else _fetchable(MAX_WIDENING * window, chunk)
    scan = _scan(fetch, allow, chunk, enough, span, decided, 0)
    while True:
        withheld = scan.seen - len(scan.kept)
        # Read short of its end, the window held every match: a wider one holds no more.
        if (not screened or span is None or widest is None or len(scan.kept) >= enough
                or scan.result.total_exact or scan.seen < span or not withheld
                or span >= widest):
            break
        span = min(_fetchable(span + withheld, chunk), widest)
        # The narrower window was read to its end with too few shown: read at least as far.
        scan = _scan(fetch, allow, chunk, enough, span, decided, scan.seen)
    kept, seen, result = scan.kept, scan.seen, scan.result
    hits = kept[(page - 1) * k:wanted]
    if not screened:
        return SearchResult(hits=hits, total=max(result.total - (seen - len(kept)), len(kept)),
                            page=page, page_size=k,
                            total_exact=result.total_exact and scan.exhausted)
    if len(kept) > wanted:
        # Even when every match was fetched: an exact count here would say whether the
        # matches past the last one shown were checked, that is, whether withheld ones
        # filled the fetch.
        return SearchResult(hits=hits, total=wanted + 1, page=page, page_size=k,
                            total_exact=False, unchecked=True)
    return SearchResult(hits=hits, total=len(kept), page=page, page_size=k,
                        total_exact=result.total_exact)


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


def _scan(fetch: Fetch, allow: Allow, chunk: int, enough: int, span: int | None,
          decided: dict[tuple[int, bool], bool], reach: int) -> _Scan:
    """Read the order of one window, checking ``chunk`` hits at a time, until ``enough``
    are shown or it has no more; its first fetch reads ``reach`` hits at least."""
    kept: list[Hit] = []
    seen = 0
    while True:
        size, at = _next_fetch(seen, chunk, span, reach)
        result = fetch(size, at, span)
        fresh = result.hits[seen - (at - 1) * size:]
        # Whether this fetch reached the end of the order, as the tier counts it.
        last = len(result.hits) < size or (at - 1) * size + len(result.hits) >= result.total
        for start in range(0, len(fresh), chunk):
            batch = fresh[start:start + chunk]
            unknown = [h for h in batch if (h.id, h.similarity is None) not in decided]
            if unknown:
                decided.update(((h.id, h.similarity is None), ok)
                               for h, ok in zip(unknown, allow(unknown), strict=True))
            kept += [h for h in batch if decided[h.id, h.similarity is None]]
            seen += len(batch)
            if len(kept) >= enough:
                return _Scan(kept, seen, result, last)
        if last or (span is not None and seen >= span):
            return _Scan(kept, seen, result, last)
