"""Recall memory: every message of every conversation, append-only.

Messages are never edited; the store refuses it. Only ``erase`` removes
a message, and it records who asked and why first. Search is hybrid like
archival's, over user and assistant text, and never returns the output of a
``conversation_search`` tool call (searching earlier searches feeds on itself).

Full-text search sees each user or assistant message together with the text of
the one before it (its context), as BM25 over the two joined. Evidence is often
split across a question and its answer ("What did you research?" / "Adoption
agencies"), and the answer's topic words are in the question: on LoCoMo's two dev
conversations this raised ``recall_search`` alone from R@10 0.731 to 0.816, on
both (README "Evaluation"). Only the words see it; a message's vector is of its
own text. The stores keep every context equal to the neighbour's current text:
erasing or forgetting a message gives the next one the context before it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from tiermem.memory.embed.embeddings import Embedder
from tiermem.memory.errors import InvalidInputError
from tiermem.memory.prompt_history import PromptHistory
from tiermem.memory.search.fusion import FusionWeights, date_range, dense_query_of, search_page
from tiermem.memory.search.lexical import lexical_query_text, query_terms
from tiermem.memory.search.replies import replies_to, shown_ids
from tiermem.memory.store.contract import StorageBackend, VectorIndex
from tiermem.memory.store.guard import read_fresh
from tiermem.memory.store.records import Message, RowFilter
from tiermem.memory.types import Hit, SearchResult
from tiermem.memory.validation import (
    MAX_TEXT_CHARS,
    check_created_at,
    check_label,
    check_message_id,
    check_stored_json,
    clean_text,
)

ROLES = ("user", "assistant", "tool", "system")
#: How many of a query's newest word matches BM25 ranks (RecallTier.window).
RECALL_WINDOW = 2000
EMBEDDED_ROLES = ("user", "assistant")
SEARCH_TOOL_NAME = "conversation_search"


@dataclass
class NewMessage:
    role: str
    content: str
    turn: int
    created_at: float | None = None
    tool_calls: list[dict[str, Any]] | None = None
    tool_call_id: str | None = None
    tool_name: str | None = None
    status: str = "ok"


def _check_call_fields(message: NewMessage) -> None:
    """Refuse tool-call fields a store or a snapshot's restore would not take."""
    if message.tool_calls:
        if not isinstance(message.tool_calls, list) or not all(
                isinstance(c, dict) for c in message.tool_calls):
            raise InvalidInputError("tool_calls must be a list of dicts, as the model sent them")
        check_stored_json(message.tool_calls, "tool_calls",
                          "the list of tool calls the model sent")
    # Stored as the model sent them, blank or not: the call's error goes back to the model,
    # and only what a store cannot hold (a NUL, a lone surrogate, an overlong text) is refused.
    for name, example in (("tool_call_id", "the id the model gave the call"),
                          ("tool_name", "the name of the tool the model called")):
        value = getattr(message, name)
        if value is not None:
            check_label(value, name, example)


class RecallTier:
    """The recall tier of one memory.

    ``window`` bounds the work of a search: when more messages match a
    query's words, BM25 ranks only the newest ``window`` of them (``search``).
    """

    def __init__(
        self,
        store: StorageBackend,
        embedder: Embedder,
        vectors: VectorIndex | None,
        weights: FusionWeights,
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.vectors = vectors
        self.weights = weights
        self.window = RECALL_WINDOW
        #: What every message passes through before it is stored (a privacy policy's
        #: retention layer masks what it may not keep); None: stored as given.
        self.screen: Callable[[Sequence[NewMessage]], list[NewMessage]] | None = None
        self._count = 0
        self.reload()
        store.on_rollback(self.reload)

    def reload(self) -> None:
        self._count = self.store.messages.count()

    def __len__(self) -> int:
        read_fresh(self.store)
        return self._count

    def append_many(self, messages: Sequence[NewMessage], *, bulk: bool = False,
                    embed: bool = True) -> list[int]:
        """Store messages in order (in the current transaction); returns their ids.

        ``embed=False`` stores them without vectors, at once: embedding a long
        text is the slow part of storing it, and ``add_vectors`` can do it later.
        ``bulk=True`` says many are loaded at once (an import); the stores
        index them as they index any others: SQLite's full-text index takes
        every message a transaction appends in one statement, before it
        commits or recall is searched.
        """
        if self.screen is not None:
            messages = self.screen(messages)
        prepared = []
        for m in messages:
            if m.role not in ROLES:
                raise InvalidInputError(f"role must be one of {', '.join(ROLES)}, got {m.role!r}")
            # Stored as the float the check returns: a numpy integer would go in as a blob.
            stamp = check_created_at(m.created_at)
            # Tool results and assistant turns that only call tools may be empty.
            content = m.content if m.role in ("tool", "assistant") and m.content == "" else (
                clean_text(m.content, f"{m.role} message", MAX_TEXT_CHARS)
            )
            _check_call_fields(m)
            prepared.append((m, content, stamp))
        to_embed = [
            # ``is not None``: an empty VectorIndex is falsy (it has __len__).
            (i, c) for i, (m, c, _) in enumerate(prepared)
            if embed and self.vectors is not None and m.role in EMBEDDED_ROLES and c
        ]
        matrix = self.embedder.embed_documents([c for _, c in to_embed]) if to_embed else None
        vector_of = (
            {i: matrix[j] for j, (i, _) in enumerate(to_embed)} if matrix is not None else {}
        )
        now = time.time()
        embedder_id = self.embedder.id
        records = [
            Message(turn=m.turn, role=m.role, content=content,
                    created_at=stamp if stamp is not None else now,
                    tool_calls=m.tool_calls or None, tool_call_id=m.tool_call_id,
                    tool_name=m.tool_name, status=m.status, embedder_id=embedder_id,
                    embedding=vector_of.get(i))
            for i, (m, content, stamp) in enumerate(prepared)
        ]
        with self.store.transaction():
            ids = self.store.messages.append_many(records, bulk=bulk)
            if self.vectors is not None and vector_of:
                chosen = sorted(vector_of)
                self.vectors.add(
                    np.asarray([ids[i] for i in chosen], dtype=np.int64),
                    np.stack([vector_of[i] for i in chosen]),
                )
            self._count += len(ids)
        return ids

    def append(self, role: str, content: str, turn: int, *, embed: bool = True,
               **fields: Any) -> int:
        return self.append_many([NewMessage(role=role, content=content, turn=turn, **fields)],
                                embed=embed)[0]

    def add_vectors(self, message_ids: Sequence[int]) -> int:
        """Embed those of ``message_ids`` that are searched by meaning and have no vector
        yet (stored with ``embed=False``); returns how many were embedded."""
        if self.vectors is None or not message_ids:
            return 0
        rows = self.store.messages.texts(EMBEDDED_ROLES, ids=message_ids, without_vector=True)
        if not rows:
            return 0
        matrix = self.embedder.embed_documents([text for _, text in rows])
        ids = [i for i, _ in rows]
        with self.store.transaction():
            self.store.messages.set_embeddings(ids, matrix, self.embedder.id)
            self.vectors.add(np.asarray(ids, dtype=np.int64), matrix)
        return len(rows)

    def set_status(self, message_id: int, status: str) -> None:
        """Status (e.g. ``unanswered``) is the one column that may change."""
        with self.store.transaction():
            self.store.messages.set_status(message_id, status)

    def mark_pending_unanswered(self) -> list[int]:
        """Mark ``unanswered`` every message a turn left ``pending``; returns their ids.

        Call it only when no turn can be running (the writer has just opened).
        """
        with self.store.transaction():
            return self.store.messages.resolve_pending("unanswered")

    def erase(self, message_ids: Sequence[int], reason: str) -> int:
        """Remove messages for good, recording the erasure first. Returns how many.

        A user message typed at the chat prompt leaves the prompt history too.
        This erases the messages alone; ``HierarchicalMemory.erase`` also erases what
        was learned from them and leaves no copy in the files.
        """
        return len(self.erase_messages(message_ids, reason))

    def erase_messages(self, message_ids: Sequence[int], reason: str) -> list[Message]:
        """``erase``, returning the messages erased (without vectors)."""
        reason = clean_text(reason, "erasure reason", 1000)
        now = time.time()
        with self.store.transaction():
            erased = self.store.messages.erase(message_ids, reason, now)
            present = [m.id for m in erased]
            PromptHistory(self.store).forget(m.content for m in erased if m.role == "user")
            if self.vectors is not None and present:
                self.vectors.remove(np.asarray(present, dtype=np.int64))
            if present:
                # Recounted: a forgotten message had left the count already.
                self.reload()
        return erased

    def search(
        self,
        query: str,
        k: int = 10,
        page: int = 1,
        roles: Sequence[str] | None = None,
        start: Any = None,
        end: Any = None,
        query_vector: np.ndarray | None = None,
        before_id: int | None = None,
        weights: FusionWeights | None = None,
        query_embedder: Embedder | None = None,
        lift_replies: bool = False,
        shown: Callable[[list[Hit]], list[Hit]] | None = None,
        window: int | None = None,
    ) -> SearchResult:
        """Hybrid search over messages; ``total`` counts every match, up to a window.

        When more than ``window`` messages (and at least ``page * k``) match
        the words, BM25 ranks only the newest of them, ``total`` is the number
        ranked (plus dense matches outside them) and ``total_exact`` is False:
        there are more matches, older ones, which a date range reaches. With
        vectors, the dense side takes the ``window`` nearest messages rather
        than every one above the threshold, and a total past that is a lower
        bound too (memory/search/fusion.py). Like
        Letta's conversation_search, newest first is what a conversation
        wants, and it bounds a query to about 20 ms at 1M messages, where
        ranking every match of a word in most messages took 2.5 s. Pages
        are slices of one order: a page deeper than the window reads windows
        doubling from it, each adding its new matches after the narrower one's
        (memory.search.window_order). Below it, ranking and totals are exact.

        ``weights`` replaces the memory's fusion weights for this search.
        ``query_embedder`` is as for ``ArchivalTier.search``.
        ``before_id`` keeps only messages older than that id, so the turn in
        progress (whose question would find itself) is left out. With
        ``prune_common`` (the default), a word found in more than half of the
        messages is left out of a query that has other words: FTS5's BM25
        gives it an idf of almost zero, so it ranks nothing, yet it would make
        most messages matches, crowding the window with rows that match only it.
        With ``lift_replies``, the reply to a question among the best hits ranks beside
        it (memory.search.replies).
        ``shown`` gives the hits a privacy policy lets this search show: a question it
        withholds lifts no reply, whose place would tell that the question matched.
        ``window`` replaces ``self.window`` for this search (a policy's withheld matches
        widen it: memory.privacy.recall).
        """
        before_id = check_message_id(before_id, "before_id")
        filt = _filters(roles, start, end, before_id)
        return search_page(
            self.store.lexical("messages"), passing=self.store.messages.passing,
            # Only user and assistant messages have vectors; a search for tool messages
            # alone has no dense side.
            vectors=self.vectors if not roles or any(r in EMBEDDED_ROLES for r in roles)
            else None,
            embedder=query_embedder or self.embedder, weights=weights or self.weights,
            rows=self._count,
            query=query, k=k, page=page, filt=filt,
            fetch=self.get_many,
            query_vector=query_vector, window=self.window if window is None else window,
            dense_filt=_dense_filter(roles, start, end, before_id),
            replies=(lambda ids: self._replies(shown_ids(ids, self.get_many, shown), filt))
            if lift_replies else None)

    def _replies(self, ids: Sequence[int], filt: RowFilter) -> dict[int, int]:
        """For each message of ``ids`` that is a question, the message after it, when that
        passes ``filt`` (memory.search.replies)."""
        reply_to = replies_to(self.store.messages, ids)
        shown = set(self.store.messages.passing(list(reply_to.values()), filt))
        return {q: r for q, r in reply_to.items() if r in shown}

    def searched_terms(self, query: str) -> list[str]:
        """The words full-text search matches for ``query``: its content words, less those
        found in most messages (memory.search.lexical.lexical_query_text)."""
        return query_terms(lexical_query_text(self.store.lexical("messages"), query,
                                              self.weights, self._count))

    def dense_query(self, query: str) -> str | None:
        """The text ``search`` embeds for ``query`` when no roles are asked for
        (memory.search.fusion.dense_query_of)."""
        return dense_query_of(self.store.lexical("messages"), vectors=self.vectors,
                              weights=self.weights, rows=self._count, query=query)

    def get_many(self, ids: Sequence[int]) -> dict[int, Hit]:
        return {
            i: Hit(text=m.content, tier="recall", score=0.0, created_at=m.created_at, id=m.id,
                   role=m.role, turn=m.turn)
            for i, m in self.store.messages.get_many(ids).items()
        }

    def rows(self, ids: Sequence[int]) -> list[dict[str, Any]]:
        """Full message rows for ``ids``, in the order given (missing ids are skipped)."""
        found = self.store.messages.get_many(ids)
        return [_row(found[i]) for i in ids if i in found]

    def iter_rows(self) -> Iterator[dict[str, Any]]:
        """Every message as stored (memory.store.records.DumpRow), in id order."""
        return self.store.export_rows("messages")


def _row(m: Message) -> dict[str, Any]:
    return {"id": m.id, "turn": m.turn, "role": m.role, "content": m.content,
            "tool_calls": m.tool_calls, "tool_call_id": m.tool_call_id,
            "tool_name": m.tool_name, "created_at": m.created_at, "status": m.status}


def _dense_filter(
    roles: Sequence[str] | None, start: Any, end: Any, before_id: int | None
) -> RowFilter | None:
    """The filter for rows with vectors, when it is only ``before_id``; else None (the full one).

    Only user and assistant messages have vectors, so the role conditions pass
    every one of them unless a role is left out; checking them costs an SQL
    query per 900 dense matches (7 ms a search at 1M messages).
    """
    if start is not None or end is not None or (roles and not set(EMBEDDED_ROLES) <= set(roles)):
        return None
    return RowFilter(below=before_id)


def _filters(
    roles: Sequence[str] | None, start: Any, end: Any, before_id: int | None = None
) -> RowFilter:
    if roles is not None and (isinstance(roles, str) or not isinstance(roles, Collection)
                              or any(r not in ROLES for r in roles)):
        raise InvalidInputError(f"roles must be a list drawn from {', '.join(ROLES)}")
    below = check_message_id(before_id, "before_id")
    lo, hi = date_range(start, end)
    return RowFilter(start=lo, end=hi, below=below, roles=tuple(roles or ()),
                     hide_tool=SEARCH_TOOL_NAME)
