"""How the chat's /archival and /recall count a page's matches, and what they say past the
last page.

Recall ranks a window of its newest matches (memory.tiers.recall); when its total is a lower
bound for that reason, the last page it ranked does not hold every match, and no next page
reaches the older ones. There, /recall says how to reach them, as conversation_search does
(tools.search_results): the chat's search takes no dates, so by rarer words. Archival ranks
every match; past ``DENSE_CAP_FROM`` passages it counts those in meaning only as far as
ranking read them (memory.tiers.archival), so its lower bound says that instead.
"""

from __future__ import annotations

from tiermem.memory.text.counts import counted
from tiermem.memory.types import SearchResult

#: How /recall reaches matches older than the newest it ranked.
OLDER_MATCHES = "older matches may exist: search rarer words to reach them"


def matches_counted(result: SearchResult, recall: bool) -> str:
    """The page's header count: exact, counted to the next page (a privacy policy's), the
    newest ranked (recall's window), or every match ranked but not every one counted
    (archival's)."""
    if result.total_exact:
        return counted(result.total, "match", "matches")
    if result.unchecked:
        return f"at least {result.total} matches (counted to the next page)"
    if not recall:
        # Its pages hold every match, best first: "the newest ranked" would send a user
        # looking for older passages that no search of archival leaves out.
        return f"at least {result.total} matches (every match ranked, not every one counted)"
    return f"at least {result.total} matches (the newest ranked)"


def older_matches_hint(result: SearchResult, recall: bool) -> str | None:
    """What /recall adds on the last page of its newest matches ranked: how to reach older
    ones (None where every match was ranked, or the count goes on to the next page)."""
    if not recall or result.total_exact or result.unchecked or result.page < result.pages:
        return None
    return OLDER_MATCHES


def past_the_last(result: SearchResult, recall: bool) -> str:
    """Why a page past the last has nothing to show: how many matches fill how many pages,
    and for /recall past its newest matches ranked, how to reach older ones."""
    page = result.page
    if result.total_exact and not result.total:
        return f"nothing matches: there is no page {page}"
    older = older_matches_hint(result, recall)
    if older is not None and not result.total:
        # "At least 0 matches fill 1 page" says nothing: none of the newest ranked showed.
        return f"no match among the newest ranked: there is no page {page}; {older}"
    matches = matches_counted(result, recall)
    fill = "fills" if matches == "1 match" else "fill"
    said = f"{matches} {fill} {counted(result.pages, 'page')}: there is no page {page}"
    return said if older is None else f"{said}; {older}"
