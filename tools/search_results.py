"""How a page of search results reads to the model, for archival_memory_search and
conversation_search (tools/memory_tools.py).

A page reports the tier, the number of matches and pages, and when each item was stored; a
long text shows its first ``HIT_TEXT_CHARS`` characters, so a page is never cut mid-result.
The number is a lower bound, said so, when recall ranked only its newest matches, archival
counted its matches in meaning only as far as it ranked them, or a privacy policy counted the
matches it shows only up to the next page (so that no total counts withheld ones). A page past
the last is an error saying where the pages end, unless nothing matched at all. A user's
message in a conversation_search result lists the facts it states that the user asked to
forget (``FORGOTTEN_KEY``), as the message itself stays.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from tiermem.memory import HierarchicalMemory, Hit, SearchResult
from tiermem.memory.tiers.lifecycle import SUPERSEDED_AT
from tiermem.tools.declare import ToolError

#: The most of one stored text a search result shows, so a page of hits stays whole
#: within a tool result (tools/dispatch.py cuts results at 20,000 characters).
HIT_TEXT_CHARS = 3_000


def iso(stamp: float | None) -> str | None:
    """Unix seconds as a UTC ISO timestamp (minutes precision), for the model to read."""
    if stamp is None:
        return None
    return dt.datetime.fromtimestamp(stamp, tz=dt.UTC).strftime("%Y-%m-%dT%H:%MZ")


def page_of(result: SearchResult, tier: str, query: str) -> dict[str, Any]:
    """A page's header, its ``results`` left empty for the caller's items."""
    # A search that matched nothing answers any page with no results; one whose total is a
    # lower bound may count none on the pages it ranked, and "page 2 of 1" would hide why.
    if result.page > result.pages and (result.total or not result.total_exact):
        raise ToolError(past_the_last(result, tier))
    out: dict[str, Any] = {
        "tier": tier,
        "query": query,
        "page": f"{result.page} of {result.pages}",
        "total": result.total,
    }
    if result.unchecked:
        # The privacy policy counted shown matches only up to the next page: saying how many
        # more it holds would count the withheld ones too.
        out["total"] = f"at least {result.total}"
        out["more"] = (f"matches are counted up to page {result.pages}; ask it to see "
                       "whether more follow")
    elif not result.total_exact:
        # A bare number would read as "that is all there is"; say there may be more and how
        # to reach them.
        out["total"] = f"at least {result.total}"
        # Archival ranks every match and counts only those in meaning partly; recall ranks
        # a window of the newest.
        out["ranked"] = ("every match, best first; only the count of matches in meaning stops"
                         " short" if tier == "archival" else
                         "the newest matches of the words and the nearest in meaning; older ones"
                         " may exist: narrow the dates or the words to reach them")
    out["results"] = []
    return out

def past_the_last(result: SearchResult, tier: str) -> str:
    """Where the pages end, for a page asked past them; for recall's window of newest
    matches, how to reach older ones too, as its pages say."""
    past = f"page {result.page} is past the last page ({result.pages})"
    if result.total_exact or tier != "recall":
        return f"{past}; ask page 1"
    if not result.total:
        return (f"{past}, which found no match among the newest ranked; older ones may exist: "
                f"narrow the dates or the words to reach them")
    return (f"{past} of the newest matches ranked; ask page 1, or narrow the dates or the "
            f"words to reach older ones")


def hit_text(text: str) -> str:
    """``text`` as a search result shows it: cut at ``HIT_TEXT_CHARS``, saying how to read on."""
    if len(text) <= HIT_TEXT_CHARS:
        return text
    return (f"{text[:HIT_TEXT_CHARS]}… [{len(text) - HIT_TEXT_CHARS:,} more characters not "
            "shown; search with words from further on to find a passage about them]")


def archival_item(hit: Hit, memory: HierarchicalMemory) -> dict[str, Any]:
    """One passage of an archival_memory_search page."""
    item: dict[str, Any] = {
        "id": hit.id,
        "text": hit_text(hit.text),
        "stored": iso(hit.created_at),
        "was_in_core": hit.was_in_core,
        "evicted": iso(hit.evicted_at),
        "tags": hit.tags,
    }
    superseded = hit.metadata.get(SUPERSEDED_AT)
    if isinstance(superseded, (int, float)):
        # No longer true since then. Only a core fact is retired, and it leaves core as it
        # is: an eviction date beside would read as core letting a current fact go.
        del item["evicted"]
        item["superseded"] = iso(superseded)
    if hit.fact_id is not None and hit.fact_id in memory.core:
        item["in_core"] = True  # a fact promoted back, so its passage is not evicted
    return item

#: A user message's facts the user asked to forget, in a conversation_search result.
FORGOTTEN_KEY = "forgotten_by_user_do_not_use"


def recall_item(hit: Hit, memory: HierarchicalMemory, query: str) -> dict[str, Any]:
    """One message of a conversation_search page for ``query``."""
    text = hit_text(hit.text)
    item: dict[str, Any] = {"id": hit.id, "role": hit.role, "text": text,
                            "sent": iso(hit.created_at), "turn": hit.turn}
    if hit.role == "user":
        # Forgetting a fact leaves the message it was learned from: the user asked for the
        # fact to be forgotten, and the message would bring it back. Read from the text
        # shown, so nothing the privacy policy or the cut withholds is named. The key says
        # what to do with them, so the tool's description (in every prompt) need not.
        forgotten = memory.forgotten_norms.stated_in(text[:HIT_TEXT_CHARS], hit.id)
        if forgotten and memory.privacy is not None:
            # One the model stored in its own words may hold words the message shown does
            # not: only those the policy shows for the query the message was shown for.
            forgotten = [fact for fact, view in zip(
                forgotten, memory.privacy.text_view(query, forgotten), strict=True)
                if view == fact]
        if forgotten:
            item[FORGOTTEN_KEY] = forgotten
    return item
