"""Query rewriting with a language model: several searches for one question, fused.

A question often names what it wants in other words than the memory holds
("What activities does Melanie partake in?" against turns about pottery and
camping). A model asked for up to ``MAX_QUERIES`` short search queries can
name the likely topics; each query is searched, and so is the question
itself, and the rankings are summed: a hit's score is the sum of its
scores in every ranking it is in (each ranking's scores lie in (0, 1]), so
what several phrasings agree on rises, and the question's own ranking keeps
counting in full.

The model is any ``ask(prompt) -> reply`` function, so this module knows
nothing of model clients. When it fails (raises a ``TiermemError``, as the
clients do when an endpoint is unreachable) or its reply holds no query, the
question is searched alone and the failure is counted (``failures``).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Hashable, Sequence

from tiermem.memory.errors import TiermemError
from tiermem.memory.search.hops import HitSearch, same_item
from tiermem.memory.types import Hit

MAX_QUERIES = 3
REWRITE_PROMPT = """\
A memory of past conversations is searched with full-text and semantic search. Write up to \
{most} short search queries (a few words each) that would find the messages answering the \
question below: name the likely topics, people, places and events, in words the messages \
themselves would use. Reply with one query per line and nothing else.

Question: {question}"""
_BULLET = re.compile(r"^\s*(?:(?:[-*•]|\d+[.)]|query\s*\d*:)\s*)+", re.IGNORECASE)


def parse_queries(reply: str, question: str, most: int = MAX_QUERIES) -> list[str]:
    """The distinct queries of a model's reply, one per line, without list marks or quotes;
    the question itself and empty lines left out."""
    seen: dict[str, str] = {}
    for line in reply.splitlines():
        text = _BULLET.sub("", line).strip().strip("\"'`").strip()
        if text and text.lower() != question.strip().lower():
            seen.setdefault(text.lower(), text)
    return list(seen.values())[:most]


class QueryRewriter:
    """Asks a model for search queries; counts the questions it could not rewrite."""

    def __init__(self, ask: Callable[[str], str], most: int = MAX_QUERIES,
                 model: str = "") -> None:
        if isinstance(most, bool) or not isinstance(most, int) or most < 1:
            raise ValueError(f"most must be a positive integer, got {most!r}")
        self.ask = ask
        self.most = most
        #: Which model writes the queries (and where), so results can say what they came from.
        self.model = model
        self.asked = 0
        self.failures = 0
        self.last_error: str | None = None

    def queries(self, question: str) -> list[str]:
        """Up to ``most`` rewrites of ``question``; none when the model failed."""
        self.asked += 1
        try:
            reply = self.ask(REWRITE_PROMPT.format(most=self.most, question=question))
        except TiermemError as exc:
            self.failures += 1
            self.last_error = str(exc)
            return []
        found = parse_queries(reply, question, self.most)
        if not found:
            self.failures += 1
            self.last_error = "the model's reply held no search query"
        return found


def fuse_queries(rankings: Sequence[Sequence[Hit]], k: int,
                 key: Callable[[Hit], Hashable] = same_item) -> list[Hit]:
    """The best ``k`` items of several rankings by the sum of their scores (module
    docstring); on a tie, the earlier ranking's order."""
    scores: dict[Hashable, float] = {}
    hits: dict[Hashable, Hit] = {}
    for ranking in rankings:
        for hit in ranking:
            name = key(hit)
            hits.setdefault(name, hit)
            scores[name] = scores.get(name, 0.0) + hit.score
    order = sorted(scores, key=lambda name: -scores[name])[:k]
    return [dataclasses.replace(hits[name], score=scores[name]) for name in order]


def rewritten_search(search: HitSearch, question: str, k: int, rewriter: QueryRewriter
                     ) -> tuple[list[Hit], list[str]]:
    """The best ``k`` hits of ``question`` and its rewrites, fused, and the rewrites used."""
    queries = rewriter.queries(question)
    rankings = [search(text, k) for text in (question, *queries)]
    return fuse_queries(rankings, k), queries
