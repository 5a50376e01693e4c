"""The recall layer: whether a stored item may be shown, decided on every read.

The same three modes as retention, with the current query shown to the judge
so that a flagged item the query really needs can be exposed. A judge that
fails withholds. There is no ``ambiguous`` here: an item is exposed or withheld.

Searches over-fetch: they ask the tier for ``window_multiplier`` times the
results a page needs, withhold what the layer withholds, and cut the rest to
the page (``filtered_page``). When too much was withheld to fill the page, they
fetch as much again, until the page is full or the tier has nothing more.
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
            decisions.append(Decision(False, category, rule_id, "judge"))
    return decisions


Allow = Callable[[Sequence[Hit]], list[bool]]
#: The most results one search call returns (memory.validation.check_page).
MAX_PAGE = 1000


def filtered_page(fetch: Callable[[int, int], SearchResult], allow: Allow, k: int, page: int,
                  multiplier: int) -> SearchResult:
    """Page ``page`` (of ``k``) of the results ``fetch(size, page)`` pages through that
    ``allow`` lets through.

    Results are fetched ``multiplier`` pages' worth at a time until the page is full or the
    tier has no more. ``total`` is what the tier matched less what was withheld among the
    results fetched: exact only when every match was fetched.
    """
    page, k = check_page(page, k)
    wanted = page * k
    chunk = min(k * multiplier, MAX_PAGE)
    kept: list[Hit] = []
    seen = 0
    for raw_page in itertools.count(1):
        result = fetch(chunk, raw_page)
        kept += [h for h, ok in zip(result.hits, allow(result.hits), strict=True) if ok]
        seen += len(result.hits)
        exhausted = len(result.hits) < chunk or seen >= result.total
        if len(kept) >= wanted or exhausted:
            break
    total = max(result.total - (seen - len(kept)), len(kept))
    return SearchResult(hits=kept[(page - 1) * k:wanted], total=total, page=page, page_size=k,
                        total_exact=result.total_exact and exhausted)
