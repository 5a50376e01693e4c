"""Ranking hits as evidence, in a search across the tiers (memory/search/query.py).

Facts yield to the turns they came from. A fact (in core, or an archived
fact's passage) weighs ``FACT_WEIGHT`` of its score, and the hits that stand for
one message (the message and the facts learned from it, ``source_message_id``)
take one place: the best of them, with ``SOURCE_BONUS`` of the second best's score
added. Listed at full weight, short extracted facts outscored the turns holding
the evidence and spent two places on one turn. The two constants were chosen on
LoCoMo's dev conversations where each conversation's own best agreed (0.4 and
0.5 on both; README "Evaluation"). Forget's candidate list does not merge
(``Tiers.by_source``): each item there is a thing to delete.

Before that merge, and before the re-ranking by time, the reply to a
question among the first ``QUESTIONS_READ`` hits (a message, a fact learned from
one, or a passage filed from one) ranks at least ``REPLY_SHARE`` of that
question's score at that point: the hit that stands for the reply's message is
lifted, or the message is added to the hits (memory.search.replies).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from tiermem.memory.search.replies import QUESTIONS_READ, REPLY_SHARE
from tiermem.memory.types import Hit

#: The replies to some hits that are questions, given the message each fact among the
#: candidates was learned from (``Tiers.replies``).
Replies = Callable[[Sequence[Hit], Mapping[int, int]], dict[int, tuple[int, Hit]]]
#: What a fact weighs against a message on the common scale (module docstring).
FACT_WEIGHT = 0.4
#: The share of a second hit's score that a hit standing for the same message gains.
SOURCE_BONUS = 0.5


def facts_with_their_sources(ranked: list[Hit], sources: Mapping[int, int],
                             strong: set[int]) -> list[Hit]:
    """One place for the hits that stand for one message: the message and the facts
    learned from it (in core or archived; ``sources``: fact id to message id). The best of
    them keeps the place and gains ``SOURCE_BONUS`` of the second best's score; the list is
    sorted again. A core fact that matches strongly (``strong``) keeps its own place
    whatever stands beside it."""
    groups: dict[int, list[Hit]] = {}
    for hit in ranked:
        source = _message_of(hit, sources)
        if source is not None:
            groups.setdefault(source, []).append(hit)
    dropped: set[int] = set()
    for group in groups.values():
        if len(group) < 2:
            continue
        group.sort(key=lambda h: -h.score)
        group[0].score += SOURCE_BONUS * group[1].score
        dropped.update(id(h) for h in group[1:] if not (h.tier == "core" and h.id in strong))
    kept = [h for h in ranked if id(h) not in dropped]
    kept.sort(key=lambda h: -h.score)
    return kept


def _message_of(hit: Hit, sources: Mapping[int, int]) -> int | None:
    """The recall message ``hit`` stands for: itself, or the one its fact was learned
    from (``sources``: fact id to message id)."""
    if hit.fact_id is not None:
        return sources.get(hit.fact_id)
    return hit.id if hit.tier == "recall" else None


def with_replies(ranked: list[Hit], sources: Mapping[int, int], replies: Replies
                 ) -> list[Hit]:
    """``ranked`` with the reply to each of its first ``QUESTIONS_READ`` hits that is a
    question ranked at least ``REPLY_SHARE`` of its score (memory.search.replies). The
    hit that stands for the reply (the message, or a fact learned from it; ``sources``:
    fact id to message id) is lifted; the message is added when none does."""
    asked = ranked[:QUESTIONS_READ]
    found = replies(asked, sources) if asked else {}
    if not found:
        return ranked
    standing: dict[int, Hit] = {}
    for hit in ranked:
        message = _message_of(hit, sources)
        if message is not None:
            standing.setdefault(message, hit)
    lifted = list(ranked)
    shares = [REPLY_SHARE * hit.score for hit in asked]  # before any is raised below
    for position, (message, reply) in sorted(found.items()):
        share = shares[position]
        current = standing.get(message)
        if current is None:
            reply.score = share
            standing[message] = reply
            lifted.append(reply)
        elif current.score < share:
            current.score = share
    lifted.sort(key=lambda h: -h.score)
    return lifted
