"""The recall layer: whether a stored item may be shown, decided on every read.

The same three modes as retention, with the current query shown to the judge
so that a flagged item the query really needs can be exposed. A judge that
fails withholds. There is no ``ambiguous`` here: an item is exposed or withheld.
A withheld item shows as ``[withheld: CATEGORY]``, CATEGORY being the one the
judge names when the ruleset has it, else the flagging rule's, else ``private``,
as in retention.

Searches over-fetch: they ask the tier for ``window_multiplier`` times the
results a page needs, withhold what the layer withholds, and cut the rest to
the page (``filtered_page``). When too much was withheld to fill the page, they
fetch as much again, until the page is full and one more shown match follows it, or the
tier has nothing more. The total counts shown matches only, so that no answer tells how
many withheld ones matched.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
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
#: The most results one search call returns (memory.validation.check_page).
MAX_PAGE = 1000


def filtered_page(fetch: Callable[[int, int], SearchResult], allow: Allow, k: int, page: int,
                  multiplier: int, screened: bool = True) -> SearchResult:
    """Page ``page`` (of ``k``) of the results ``fetch(size, page)`` pages through that
    ``allow`` lets through.

    Results are fetched ``multiplier`` pages' worth at a time until the page is full or the
    tier has no more. Under a recall layer (``screened``), ``total`` counts only matches
    ``allow`` was seen to let through, never one it did not check: the fetching goes on
    until one shown match past the page is found, and the total is then ``page * k + 1``
    at least (``unchecked``), whatever else the last fetch held; only a search that checked
    every match counts what it shows, exact as the tier's count is. So the answer is the
    same however many withheld items matched, and counting costs one match past the page.
    Without one (nothing is withheld), ``total`` is the tier's.
    """
    page, k = check_page(page, k)
    wanted = page * k
    enough = wanted + 1 if screened else wanted
    chunk = min(k * multiplier, MAX_PAGE)
    kept: list[Hit] = []
    seen = 0
    for raw_page in itertools.count(1):
        result = fetch(chunk, raw_page)
        kept += [h for h, ok in zip(result.hits, allow(result.hits), strict=True) if ok]
        seen += len(result.hits)
        exhausted = len(result.hits) < chunk or seen >= result.total
        if len(kept) >= enough or exhausted:
            break
    hits = kept[(page - 1) * k:wanted]
    if not screened:
        return SearchResult(hits=hits, total=max(result.total - (seen - len(kept)), len(kept)),
                            page=page, page_size=k, total_exact=result.total_exact and exhausted)
    if len(kept) > wanted:
        # Even when every match was fetched: an exact count here would say whether the
        # matches past the last one shown were checked, that is, whether withheld ones
        # filled the fetch.
        return SearchResult(hits=hits, total=wanted + 1, page=page, page_size=k,
                            total_exact=False, unchecked=True)
    return SearchResult(hits=hits, total=len(kept), page=page, page_size=k,
                        total_exact=result.total_exact)
