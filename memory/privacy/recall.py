"""The recall layer: whether a stored item may be shown, decided on every read.

The same three modes as retention, with the current query shown to the judge
so that a flagged item the query really needs can be exposed. A judge that
fails withholds. There is no ``ambiguous`` here: an item is exposed or withheld.

Searches over-fetch: they ask the tier for ``window_multiplier`` times the
results a page needs, withhold what the layer withholds, and cut the rest to
the page (``filtered_page``). When too much was withheld to fill the page, the
window doubles until the tier has nothing more to give.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from tiermem.memory.judge import Judge
from tiermem.memory.privacy.config import DEFAULT_CATEGORY
from tiermem.memory.privacy.judging import RECALL_VERDICTS, ask, recall_prompt
from tiermem.memory.privacy.retention import Decision, by_rules, flagged_items
from tiermem.memory.privacy.rules import RuleSet
from tiermem.memory.types import Hit, SearchResult


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


def filtered_page(fetch: Callable[[int], SearchResult], allow: Allow, k: int, page: int,
                  multiplier: int) -> SearchResult:
    """Page ``page`` (of ``k``) of what ``fetch(n)`` (the best ``n``, one page) returns and
    ``allow`` lets through.

    ``total`` counts what the tier matched less what was withheld among the results
    fetched; it is marked inexact when unfetched results may be withheld too.
    """
    wanted = page * k
    window = max(wanted * multiplier, 1)
    judged: dict[tuple[str, int], bool] = {}
    while True:
        result = fetch(window)
        fresh = [h for h in result.hits if (h.tier, h.id) not in judged]
        for hit, allowed in zip(fresh, allow(fresh), strict=True):
            judged[(hit.tier, hit.id)] = allowed
        kept = [h for h in result.hits if judged[(h.tier, h.id)]]
        exhausted = len(result.hits) < window or window >= result.total
        if len(kept) >= wanted or exhausted:
            break
        window *= 2
    withheld = len(result.hits) - len(kept)
    total = max(result.total - withheld, len(kept))
    exact = result.total_exact and (exhausted or withheld == 0)
    return SearchResult(hits=kept[(page - 1) * k:wanted], total=total, page=page, page_size=k,
                        total_exact=exact)
