"""The reply to a question that matches: ranked beside it.

In a conversation the answer to a question is often in the turn after it, in
other words than the question's: "What inspired your painting?" / "I painted it
after I visited an LGBTQ center." A search for "what inspired Caroline's
painting" then ranks the question first and its answer far down (41st on
LoCoMo's conversation 26), since the answer shares none of the search's words
and little of its meaning. Full-text search sees each message's previous one as
context (memory.tiers.recall), and a passage may carry its context too, yet such
answers still ranked below turns that share the search's words.

So when one of the ``QUESTIONS_READ`` best hits of a search is a question (its
message holds a ``?``), the message after it in recall, of the conversation's
own roles with text (``user`` and ``assistant``: a tool's output, and an
assistant message that only called tools, are skipped),
ranks at least ``REPLY_SHARE`` of the question's score, and is added to the
ranking if it was not in it. A passage filed from a message
(``source_message_id``) stands for that message: the reply is the passage filed
from the reply. On LoCoMo's two dev conversations this raised R@10 on each, for
``query()`` (0.830 to 0.858 and 0.836 to 0.850) and for hybrid search over the
turns (0.828 to 0.850 and 0.831 to 0.846; README "Evaluation"). The two
constants were chosen on a grid (share 0.6-0.9, 3-5 hits read) where each
conversation's own best for ``query()`` agreed.

Only searches for evidence lift replies: ``archival_search``, ``recall_search``
and ``query()``. Forget's selection does not, as each of its candidates is
something to delete.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from tiermem.memory.search.fusion_scores import Ranked
from tiermem.memory.store.contract import MessageStore
from tiermem.memory.types import Hit

#: The share of a question's score its reply ranks at, at least.
REPLY_SHARE = 0.8
#: How many of a search's best hits are read for questions.
QUESTIONS_READ = 3
#: The roles whose messages make up the conversation itself.
CONVERSATION_ROLES = ("user", "assistant")

#: The reply of each row of ``ids`` that is a question: question row id to reply row id.
#: Only replies that pass the search's filters are given.
Replies = Callable[[Sequence[int]], Mapping[int, int]]


def is_question(text: str) -> bool:
    """Whether a message asks something (holds a question mark)."""
    return "?" in text


def lift_replies(ranked: list[Ranked], replies: Replies) -> tuple[list[Ranked], int]:
    """``ranked`` (best first) with the replies to its first questions lifted (module
    docstring), best first again, and how many rows were added to it."""
    asked = ranked[:QUESTIONS_READ]
    reply_of = replies([r.id for r in asked]) if asked else {}
    if not reply_of:
        return ranked, 0
    by_id = {r.id: r for r in ranked}
    added = 0
    for question in asked:
        reply = reply_of.get(question.id)
        if reply is None:
            continue
        lifted = REPLY_SHARE * question.score
        current = by_id.get(reply)
        if current is None:
            added += 1
            by_id[reply] = Ranked(reply, lifted)
        elif current.score < lifted:
            by_id[reply] = Ranked(reply, lifted, current.relevance, current.similarity)
    # Stable, so rows that tie keep the order the fusion gave them.
    return sorted(by_id.values(), key=lambda r: -r.score), added


def replies_to(messages: MessageStore, message_ids: Sequence[int]) -> dict[int, int]:
    """For each of ``message_ids`` that is a question of the conversation (not forgotten),
    the id of the first message of the conversation's roles with text after it, when
    there is one."""
    found: dict[int, int] = {}
    for message_id, text in messages.texts(CONVERSATION_ROLES, ids=sorted(set(message_ids))):
        if is_question(text):
            after = messages.texts(CONVERSATION_ROLES, after_id=message_id, limit=1)
            if after:
                found[message_id] = after[0][0]
    return found


def shown_ids(ids: Sequence[int], fetch: Callable[[Sequence[int]], Mapping[int, Hit]],
              shown: Callable[[list[Hit]], list[Hit]] | None) -> list[int]:
    """Those of ``ids`` whose hits (``fetch``) ``shown`` keeps; all of them without it."""
    if shown is None or not ids:
        return list(ids)
    kept = {hit.id for hit in shown(list(fetch(ids).values()))}
    return [i for i in ids if i in kept]
