"""The memory tools an agent's model calls: the adapter from memory/ to function calling.

Every tool receives a ``ToolContext`` (injected, never shown to the model)
holding the memory and a log of what the turn changed, so the REPL can show
memory changes next to the reply. Search results report the tier, the number
of matches and pages, and when each item was stored; a long text shows its
first ``HIT_TEXT_CHARS`` characters, so a page is never cut mid-result. The
number is a lower bound, said so, when recall ranked only its newest matches,
archival counted its matches in meaning only as far as it ranked them, or a
privacy policy counted the matches it shows only up to the next page (so that
no total counts withheld ones). A user's message in a conversation_search
result lists the facts it states that the user asked to forget
(``FORGOTTEN_KEY``), as the message itself stays.
"""

from __future__ import annotations

import datetime as dt
import unicodedata
from dataclasses import dataclass, field
from typing import Any, Literal

from tiermem.memory import HierarchicalMemory, Hit, SearchResult
from tiermem.memory.errors import InvalidInputError
from tiermem.memory.tiers.lifecycle import OVERSIZE, SUPERSEDED_AT
from tiermem.memory.validation import clean_text, single_line
from tiermem.tools.declare import Tool, ToolError, tool
from tiermem.tools.dispatch import Toolbox

PAGE_SIZE = 5
#: The most of one stored text a search result shows, so a page of hits stays whole
#: within a tool result (tools/dispatch.py cuts results at 20,000 characters).
HIT_TEXT_CHARS = 3_000


@dataclass
class ToolContext:
    """What a memory tool may touch during one turn."""

    memory: HierarchicalMemory
    turn: int
    #: The turn's first message; conversation_search leaves out it and everything after.
    first_message_id: int | None = None
    changes: list[str] = field(default_factory=list)
    replies: list[str] = field(default_factory=list)
    #: The user's message the turn answers: a privacy policy whose recall layer judges by
    #: it showed core for it, so core_memory_replace matches the facts shown for it too.
    request: str = ""
    #: Messages the ``forget`` tool forgot: the turn's window blanks them.
    forgotten_messages: set[int] = field(default_factory=set)


def iso(stamp: float | None) -> str | None:
    """Unix seconds as a UTC ISO timestamp (minutes precision), for the model to read."""
    if stamp is None:
        return None
    return dt.datetime.fromtimestamp(stamp, tz=dt.UTC).strftime("%Y-%m-%dT%H:%MZ")


def _describe_changes(ctx: ToolContext, since: int) -> list[str]:
    notes = []
    events = ctx.memory.events_since(since)
    for event, text in zip(events, _shown_texts(ctx.memory, events, ctx.request), strict=True):
        kind = event["kind"]
        label = {
            "add": "core +",
            "evict": "core -> archival:",
            "promote": "archival -> core:",
            "bypass": "archival (core full of protected facts):",
            OVERSIZE: f"too large for core ({event['detail']}), so stored in archival, where "
                      "archival_memory_search finds it; raise the core limit to keep facts "
                      "this size in core:",
            "replace": "core edited:",
            "retire": "core -> archival (superseded):",
            "reclassify": f"core reclassified {event['detail']}:",
        }.get(kind, kind)
        notes.append(f"{label} {single_line(text)}")
    ctx.changes.extend(notes)
    return notes


def _shown_texts(memory: HierarchicalMemory, events: list[dict[str, Any]],
                 request: str = "") -> list[str]:
    """Each event's fact text as the model may see it: a privacy policy's recall layer
    withholds it here as it does in core (the result is stored in recall, too)."""
    texts = [str(event["text"]) for event in events]
    if memory.privacy is None:
        return texts
    facts = {e["fact_id"]: memory.fact(e["fact_id"]) for e in events if e["fact_id"]}
    found = [f for f in facts.values() if f is not None]
    shown = dict(zip([f.id for f in found], memory.privacy.core_view(request, found),
                     strict=True))
    return [shown.get(event["fact_id"], text) if event["fact_id"] else text
            for event, text in zip(events, texts, strict=True)]


def _core_status(memory: HierarchicalMemory) -> str:
    return f"core {memory.core.used}/{memory.core.limit} {memory.core.unit}"


def nothing_to_send(message: str) -> bool:
    """Whether ``send_message`` refuses ``message`` as empty.

    NUL is dropped from a reply (tools/safe_text.py) and control characters show as
    nothing a user can read: a reply of only those would be "Sent." yet reach no one.
    """
    return all(c.isspace() or unicodedata.category(c) == "Cc" for c in message)


@tool
def send_message(ctx: ToolContext, message: str) -> str:
    """Send a reply to the user. This ends your turn, even with request_heartbeat.

    Args:
        message: The full text of the reply, in the user's language.
    """
    if nothing_to_send(message):
        raise ToolError("message is empty (nothing but spaces or control characters); write "
                        "the reply text in 'message'")
    ctx.replies.append(message)
    return "Sent."


@tool(heartbeat=True)
def core_memory_append(
    ctx: ToolContext, content: str, durability: Literal["durable", "short-lived"] = "durable"
) -> str:
    """Add one fact to core memory, which is shown to you in every turn.

    Use durable for lasting attributes (names, allergies, roles, regions, preferences) and
    short-lived for passing states (what is happening right now). When core is full the least
    used fact moves to archival, where archival_memory_search still finds it.

    Args:
        content: One self-contained fact, e.g. "User is allergic to peanuts".
        durability: "durable" for lasting facts, "short-lived" for current states.
    """
    withheld = _withheld_fact(ctx, content)
    if withheld is not None:
        return withheld
    since = ctx.memory.last_event_id()
    fact_id = ctx.memory.add_fact(content, durability, source=f"tool:turn:{ctx.turn}",
                                  source_message_id=ctx.first_message_id)
    notes = _describe_changes(ctx, since)
    if not notes:
        return f"{_restated(ctx.memory, fact_id)} ({_core_status(ctx.memory)})."
    return "; ".join(notes) + f" ({_core_status(ctx.memory)})"


def _withheld_fact(ctx: ToolContext, content: str) -> str | None:
    """A fact the privacy policy would show the model as ``[withheld: CATEGORY]``, kept out
    of core, and the answer saying so; None for a fact it shows.

    Core holds one fact per text: appended there, a text already stored would be "already
    in core" (a guess at a withheld fact confirmed) and a new one would not. So the answer
    is the same whatever is stored: the text is filed in archival, as the policy's
    retention layer allows (where a search finds it when the policy shows it), every time,
    a passage filed earlier holding it or not: filed only when new, the next passage's id
    and count would tell whether it was stored. A text the policy shows that states a
    withheld fact again (``find_same``: differing only in case, quotes, "my" or "user's")
    gets that fact's answer and files that fact's text, which no search shows, as a
    withheld text never stored files its own. Retention is asked first, as ``add_fact``
    would: a text it drops is refused as one."""
    memory = ctx.memory
    if memory.privacy is None or not memory.privacy.recall_enabled:
        return None
    text = clean_text(content, "fact")
    memory.privacy.check_write(text, what="fact")
    [view] = memory.texts_shown([text], ctx.request)
    if view == text:
        same = memory.core.find_same(text)
        if same is None or same.text == text:
            return None
        [view] = memory.privacy.core_view(ctx.request, [same])
        if view == same.text:
            return None
        # Refused as the fact itself would be, where retention now drops it.
        text = same.text
        memory.privacy.check_write(text, what="fact")
    memory.archival_insert(text, source=f"tool:turn:{ctx.turn}",
                           source_message_id=ctx.first_message_id)
    ctx.changes.append(f"archival + {view}")
    return (f"Not added to core: the privacy policy withholds this fact from you (it would "
            f"show as {view}); memory keeps it where you are not shown it "
            f"({_core_status(memory)}).")


def _filed(hit: Hit) -> bool:
    """Whether ``hit`` is a passage filed as it is, for as long as it is kept: not a fact's
    (an edit of the fact rewrites it), nor one marked as no longer true."""
    return hit.fact_id is None and SUPERSEDED_AT not in hit.metadata


def _restated(memory: HierarchicalMemory, fact_id: int) -> str:
    """What stating a stored fact again did, when it moved nothing."""
    fact = memory.fact(fact_id)
    if fact is None or fact.tier == "core":
        return "Already in core; counted as a re-assertion"
    size = memory.core.size(fact)
    if not memory.core.holds(size):
        return (f"Already in archival, where archival_memory_search finds it: it is too large "
                f"for core ({memory.lifecycle.oversize_detail(size)}); raise the core limit "
                "to keep facts this size in core")
    # It stayed in archival: core had no room for it, so the statement was a hit.
    return (f"Already in archival, and core has no room for it; it has "
            f"{fact.hits_since_eviction} of the {memory.lifecycle.hits_needed(fact)} uses "
            f"that bring it back to core")


@tool(heartbeat=True)
def core_memory_replace(ctx: ToolContext, old_content: str, new_content: str) -> str:
    """Edit a core fact: replace old_content, which must appear exactly once in core.

    To retire a fact that is no longer true, replace it with "": it moves to archival marked
    as superseded, and searches show it with when it stopped being current.

    Args:
        old_content: Text copied exactly from one core fact; must not be empty.
        new_content: The replacement text, or "" to move the fact out of core.
    """
    if not old_content.strip():
        raise ToolError("old_content is empty; copy the exact text of the fact to change")
    since = ctx.memory.last_event_id()
    try:
        ctx.memory.replace_in_core(old_content, new_content, request=ctx.request)
    except InvalidInputError:
        left = _left_core(ctx.memory, old_content, new_content, ctx.request)
        if left is None:
            raise
        raise ToolError(left) from None
    return "; ".join(_describe_changes(ctx, since)) + f" ({_core_status(ctx.memory)})"


def _left_core(memory: HierarchicalMemory, old: str, new: str, request: str = "") -> str | None:
    """Why no core fact holds ``old`` when one did (evicted or retired since the model read
    core, as a small model reads it several turns late), and what to call instead; None
    when no fact ever held it. Copying "exactly as core shows it" cannot help there.

    Only text the privacy policy shows is matched, in core and out of it: a withheld fact
    holding ``old`` is never confirmed (the model could probe hidden text by guessing)."""
    if any(old in text for _, text in memory.core_shown(request)):
        return None
    facts = [f for f in memory.facts() if f.tier != "core" and old in f.text]
    shown = memory.texts_shown([f.text for f in facts], request)
    gone = [f for f, text in zip(facts, shown, strict=True) if text == f.text]
    if not gone:
        return None
    fact = max(gone, key=lambda f: f.evicted_at or 0.0)
    when = iso(fact.evicted_at)
    if memory.lifecycle.superseded(fact):
        why = f"was retired as no longer true ({when})"
    else:
        why = (f"left core for archival (evicted {when}), where archival_memory_search "
               "still finds it")
    then = ("nothing is left in core to retire" if not new.strip() else
            "to record the change, call core_memory_append with the new fact")
    return f"no core fact contains {old!r}: the fact holding it {why}; {then}"


@tool(heartbeat=True)
def archival_memory_insert(ctx: ToolContext, content: str, tags: list[str] | None = None) -> str:
    """File a passage in archival memory, for later search (not shown in every turn).

    Args:
        content: The text to keep; include who said it and enough context to stand alone.
        tags: Optional labels to filter searches by, e.g. ["billing", "acme"].
    """
    filed = _filed_before(ctx, content, tags)
    if filed is not None:
        return (f"Already in archival memory as passage {filed}, with this text; nothing was "
                f"filed again ({len(ctx.memory.archival)} passages).")
    # Linked to the user's message, as core_memory_append's fact is: the passage often
    # quotes it, and erasing or forgetting the message must not leave that copy behind.
    passage_id = ctx.memory.archival_insert(content, tags=tags, source=f"tool:turn:{ctx.turn}",
                                            source_message_id=ctx.first_message_id)
    ctx.changes.append(f"archival + {content[:80]}")
    return f"Filed in archival as passage {passage_id} ({len(ctx.memory.archival)} passages)."


def _filed_before(ctx: ToolContext, content: str, tags: list[str] | None) -> int | None:
    """The id of a passage filed earlier with exactly this text and these tags (among
    others) that the privacy policy shows the model, or None.

    Filing it again would store a second copy: a small model that echoes its earlier calls
    as text in a reply has them run again. A withheld one is not named, which would
    confirm its text; a text ``archival_insert`` refuses (empty, too long) is left to it
    to refuse."""
    try:
        hits = [h for h in ctx.memory.archival_holding(content) if _filed(h)]
    except InvalidInputError:
        return None
    wanted = {t.strip().lower() for t in tags or [] if isinstance(t, str) and t.strip()}
    hits = [h for h in hits if wanted <= set(h.tags)]
    privacy = ctx.memory.privacy
    if hits and privacy is not None:
        hits = [h for h, shown in zip(hits, privacy.allow_hits(ctx.request, hits), strict=True)
                if shown]
    return hits[0].id if hits else None


def _page_of(result: SearchResult, tier: str, query: str) -> dict[str, Any]:
    if result.total and result.page > result.pages:
        raise ToolError(f"page {result.page} is past the last page ({result.pages}); ask page 1")
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


@tool(heartbeat=True)
def archival_memory_search(
    ctx: ToolContext,
    query: str,
    page: int = 1,
    tags: list[str] | None = None,
    start_date: str | None = None,
    end_date: str | None = None,
) -> dict[str, Any]:
    """Search archival memory: facts evicted from core and passages filed earlier.

    A result with "superseded" is a fact that stopped being true at that time: quote it as
    past, never as current.

    Args:
        query: What to look for, in plain words.
        page: Which page of results (5 per page), starting at 1.
        tags: Only passages carrying any of these tags.
        start_date: Only passages stored on or after this date (YYYY-MM-DD).
        end_date: Only passages stored on or before this date (YYYY-MM-DD).
    """
    since = ctx.memory.last_event_id()
    # The page is what the model reads: the evicted facts it is about count as used,
    # toward their promotion back to core (memory.ops.searches.count_used).
    result = ctx.memory.archival_search(
        query, k=PAGE_SIZE, page=page, tags=tags, start=start_date, end=end_date, touch=True
    )
    out = _page_of(result, "archival", query)
    out["results"] = [_archival_item(h, ctx.memory) for h in result.hits]
    changes = _describe_changes(ctx, since)
    if changes:
        out["memory_changes"] = changes  # e.g. "archival -> core: ...": back in core now
    return out


def _hit_text(text: str) -> str:
    if len(text) <= HIT_TEXT_CHARS:
        return text
    return (f"{text[:HIT_TEXT_CHARS]}… [{len(text) - HIT_TEXT_CHARS:,} more characters not "
            "shown; search with words from further on to find a passage about them]")


def _archival_item(hit: Hit, memory: HierarchicalMemory) -> dict[str, Any]:
    item: dict[str, Any] = {
        "id": hit.id,
        "text": _hit_text(hit.text),
        "stored": iso(hit.created_at),
        "was_in_core": hit.was_in_core,
        "evicted": iso(hit.evicted_at),
        "tags": hit.tags,
    }
    superseded = hit.metadata.get(SUPERSEDED_AT)
    if isinstance(superseded, (int, float)):
        item["superseded"] = iso(superseded)  # no longer true since then
    if hit.fact_id is not None and hit.fact_id in memory.core:
        item["in_core"] = True  # a fact promoted back, so its passage is not evicted
    return item


@tool(heartbeat=True)
def conversation_search(
    ctx: ToolContext,
    query: str,
    page: int = 1,
    roles: list[Literal["user", "assistant", "tool"]] | None = None,
    start_date: str | None = None,
    end_date: str | None = None,
) -> dict[str, Any]:
    """Search the full history of this conversation (recall memory), including old sessions.

    When very many messages share the query's words, the newest of them are searched;
    add dates to reach older ones.

    Args:
        query: What to look for, in plain words.
        page: Which page of results (5 per page), starting at 1.
        roles: Only messages from these roles (default: user and assistant).
        start_date: Only messages sent on or after this date (YYYY-MM-DD).
        end_date: Only messages sent on or before this date (YYYY-MM-DD).
    """
    result = ctx.memory.recall_search(
        query,
        k=PAGE_SIZE,
        page=page,
        roles=roles or ["user", "assistant"],
        start=start_date,
        end=end_date,
        before_id=ctx.first_message_id,
    )
    out = _page_of(result, "recall", query)
    out["results"] = [_recall_item(h, ctx.memory, query) for h in result.hits]
    return out


#: A user message's facts the user asked to forget, in a conversation_search result.
FORGOTTEN_KEY = "forgotten_by_user_do_not_use"


def _recall_item(hit: Hit, memory: HierarchicalMemory, query: str) -> dict[str, Any]:
    text = _hit_text(hit.text)
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


MEMORY_TOOLS: tuple[Tool, ...] = (
    send_message,
    core_memory_append,
    core_memory_replace,
    archival_memory_insert,
    archival_memory_search,
    conversation_search,
)


def memory_toolbox() -> Toolbox:
    """The tool set given to the model."""
    from tiermem.tools.forget_tool import forget

    return Toolbox((*MEMORY_TOOLS, forget))
