"""The memory tools an agent's model calls: the adapter from memory/ to function calling.

Every tool receives a ``ToolContext`` (injected, never shown to the model)
holding the memory and a log of what the turn changed, so the REPL can show
memory changes next to the reply. How a search tool's page of results reads is
in tools/search_results.py.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from tiermem.memory import HierarchicalMemory, Hit
from tiermem.memory.errors import InvalidInputError
from tiermem.memory.search.fusion import date_range
from tiermem.memory.tiers.lifecycle import OVERSIZE, SUPERSEDED_AT
from tiermem.memory.validation import clean_text, single_line
from tiermem.tools.core_edits import (
    EDITED,
    already_retired,
    done_before,
    left_core,
    left_core_error,
)
from tiermem.tools.declare import Tool, ToolError, tool
from tiermem.tools.dispatch import Toolbox
from tiermem.tools.search_results import FORGOTTEN_KEY as FORGOTTEN_KEY  # re-exported
from tiermem.tools.search_results import HIT_TEXT_CHARS as HIT_TEXT_CHARS  # re-exported
from tiermem.tools.search_results import archival_item, page_of, recall_item

PAGE_SIZE = 5


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
    #: The results the model's earlier calls of a tool with these arguments got, as its
    #: window shows them (agent/earlier_calls.py): an echoed call's work is done.
    earlier_results: Callable[[str, dict[str, Any]], list[str]] = field(
        default=lambda name, arguments: [])


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
            "replace": EDITED.rstrip(),
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
    if fact is None:
        return "Already in core; counted as a re-assertion"
    if fact.tier == "core":
        # Named: a restatement matches a fact by its key, in words that may differ
        # ("my phone is ..." for "User's phone is ..."), so the reply says which one it was.
        return f'Already in core; counted as a re-assertion of "{fact.text}"'
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
    earlier = ctx.earlier_results(core_memory_replace.name,
                                  {"old_content": old_content, "new_content": new_content})
    done = done_before(ctx.memory, earlier, old_content, new_content, ctx.request)
    if done is not None:
        return f"{done} ({_core_status(ctx.memory)})."
    since = ctx.memory.last_event_id()
    try:
        ctx.memory.replace_in_core(old_content, new_content, request=ctx.request)
    except InvalidInputError:
        gone = left_core(ctx.memory, old_content, ctx.request)
        if gone is None:
            raise
        done = None if new_content.strip() else already_retired(ctx.memory, gone, old_content)
        if done is not None:
            return f"{done} ({_core_status(ctx.memory)})."
        raise ToolError(left_core_error(ctx.memory, gone, old_content, new_content)) from None
    return "; ".join(_describe_changes(ctx, since)) + f" ({_core_status(ctx.memory)})"


@tool(heartbeat=True)
def archival_memory_insert(ctx: ToolContext, content: str, tags: list[str] | None = None) -> str:
    """File a passage in archival memory, for later search (not shown in every turn).

    Args:
        content: The text to keep; include who said it and enough context to stand alone.
        tags: Optional labels to filter searches by, e.g. ["billing", "acme"].
    """
    tags = _labels(tags)
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


def _labels(tags: list[str] | None) -> list[str] | None:
    """``tags`` without empty ones: a small model fills an optional list with "" when it
    means none, which the memory refuses (it would file or search without the label meant).
    Anything else is left to the memory to refuse."""
    if not isinstance(tags, list):
        return tags
    return [t for t in tags if not isinstance(t, str) or t.strip()]


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
    start, end = date_range(start_date, end_date, ("start_date", "end_date"))
    result = ctx.memory.archival_search(
        query, k=PAGE_SIZE, page=page, tags=_labels(tags), start=start, end=end, touch=True)
    out = page_of(result, "archival", query)
    out["results"] = [archival_item(h, ctx.memory) for h in result.hits]
    changes = _describe_changes(ctx, since)
    if changes:
        out["memory_changes"] = changes  # e.g. "archival -> core: ...": back in core now
    return out


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
    start, end = date_range(start_date, end_date, ("start_date", "end_date"))
    result = ctx.memory.recall_search(
        query,
        k=PAGE_SIZE,
        page=page,
        roles=roles or ["user", "assistant"],
        start=start,
        end=end,
        before_id=ctx.first_message_id,
    )
    out = page_of(result, "recall", query)
    out["results"] = [recall_item(h, ctx.memory, query) for h in result.hits]
    return out


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
