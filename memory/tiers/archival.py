"""Archival memory: passages with embeddings, searchable by words and by meaning together.

It holds what the agent files away and every fact core evicts. Nothing here
is ever deleted by eviction; ``created_at`` is when the passage was learned,
``evicted_at`` when core let it go (None again once the fact is back in core).
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tiermem.memory.embed.embeddings import Embedder
from tiermem.memory.errors import InvalidInputError
from tiermem.memory.search.fusion import FusionWeights, date_range, dense_query_of, search_page
from tiermem.memory.search.replies import replies_to, shown_ids
from tiermem.memory.store.contract import StorageBackend, VectorIndex
from tiermem.memory.store.guard import read_fresh
from tiermem.memory.store.records import Passage, RowFilter
from tiermem.memory.types import Hit, SearchResult
from tiermem.memory.validation import (
    MAX_TEXT_CHARS,
    check_created_at,
    check_stored_json,
    clean_text,
)

#: From this many passages with vectors, a search takes the ``DENSE_CAP`` nearest in meaning
#: (widened as needed, memory.search.fusion.hybrid_search) instead of every passage above
#: the embedder's match threshold: at 100k passages a query clears it with 500 to 25,000,
#: and finding and fusing them all cost more than the rest of the search. The ranking is
#: the same; ``total`` is then a lower bound when more may clear the threshold.
DENSE_CAP_FROM = 20_000
DENSE_CAP = 200
#: The passage of a fact an older version stored blank: a passage needs some text. It says
#: nothing, so searches pass it by; nearest in meaning to vague questions, it would be
#: their only answer.
BLANK_FACT_PASSAGE = "(a fact stored without text)"


@dataclass
class NewPassage:
    text: str
    tags: list[str] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)
    source: str = ""
    created_at: float | None = None
    was_in_core: bool = False
    evicted_at: float | None = None
    fact_id: int | None = None
    #: The recall message the passage was filed from (erasing it erases the passage).
    source_message_id: int | None = None


class ArchivalTier:
    """The archival tier of one memory."""

    def __init__(
        self, store: StorageBackend, embedder: Embedder, vectors: VectorIndex,
        weights: FusionWeights,
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.vectors = vectors
        self.weights = weights
        self._count = 0
        self.reload()
        store.on_rollback(self.reload)

    def reload(self) -> None:
        self._count = self.store.passages.count()

    def __len__(self) -> int:
        read_fresh(self.store)
        return self._count

    def insert_many(self, items: Sequence[NewPassage]) -> list[int]:
        """Embed and store passages in the current transaction; returns their ids."""
        if not items:
            return []
        texts = [clean_text(p.text, "archival text") for p in items]
        for p in items:
            _check_json_object(p.metadata)
        # Stored as the float the check returns: a numpy integer would go in as a blob.
        stamps = [check_created_at(p.created_at) for p in items]
        tags = [_clean_tags(p.tags) for p in items]
        matrix = self.embedder.embed_documents(texts)
        now = time.time()
        embedder_id = self.embedder.id
        records = [
            Passage(text=text, created_at=stamp if stamp is not None else now,
                    tags=t, metadata=p.metadata or {}, source=p.source,
                    was_in_core=p.was_in_core, evicted_at=p.evicted_at, fact_id=p.fact_id,
                    embedder_id=embedder_id, embedding=vector,
                    source_message_id=p.source_message_id)
            for p, text, t, vector, stamp in zip(items, texts, tags, matrix, stamps, strict=True)
        ]
        with self.store.transaction():
            ids = self.store.passages.insert_many(records)
            self.vectors.add(np.asarray(ids, dtype=np.int64), matrix)
            self._count += len(ids)
        return ids

    def insert(self, text: str, **fields: Any) -> int:
        return self.insert_many([NewPassage(text=text, **fields)])[0]

    def mark_evicted(self, passage_id: int, evicted_at: float) -> None:
        """Record a (re-)eviction of the passage's fact."""
        with self.store.transaction():
            self.store.passages.mark_evicted(passage_id, evicted_at)

    def clear_evicted(self, passage_id: int) -> None:
        """Record that the passage's fact is back in core: no longer evicted."""
        with self.store.transaction():
            self.store.passages.clear_evicted(passage_id)

    def replace_text(self, passage_id: int, text: str) -> None:
        """Give a fact's passage the fact's current text: its row, its full-text entry and
        its vector all change together (nothing when the text is already that)."""
        stored = self.store.passages.get_many([passage_id]).get(passage_id)
        if stored is None or stored.text == text:
            return
        vector = self.embedder.embed_documents([text])
        with self.store.transaction():
            self.store.passages.replace_text(passage_id, text, vector[0], self.embedder.id)
            ids = np.asarray([passage_id], dtype=np.int64)
            self.vectors.remove(ids)
            self.vectors.add(ids, vector)

    def delete(self, ids: Sequence[int]) -> list[Passage]:
        """Remove passages for good, with their vectors (an erasure); returns them."""
        with self.store.transaction():
            deleted = self.store.passages.delete(ids)
            if deleted:
                self.vectors.remove(np.asarray([p.id for p in deleted], dtype=np.int64))
                # Recounted: a forgotten passage had left the count already.
                self.reload()
        return deleted

    def update_metadata(self, passage_id: int, changes: dict[str, Any]) -> None:
        """Merge ``changes`` into the passage's metadata; a None value removes its key."""
        passage = self.store.passages.get_many([passage_id]).get(passage_id)
        if passage is None:
            return
        # An older version (or raw SQL) may have stored a NaN or an infinity, which no
        # write takes now: kept as the string the store's refusal advises, not lost.
        metadata = _not_finite_named(passage.metadata)
        for key, value in changes.items():
            if value is None:
                metadata.pop(key, None)
            else:
                metadata[key] = value
        _check_json_object(metadata)
        with self.store.transaction():
            self.store.passages.set_metadata(passage_id, metadata)

    def search(
        self,
        query: str,
        k: int = 10,
        page: int = 1,
        tags: Sequence[str] | None = None,
        start: Any = None,
        end: Any = None,
        was_in_core: bool | None = None,
        query_vector: np.ndarray | None = None,
        weights: FusionWeights | None = None,
        query_embedder: Embedder | None = None,
        nearest: int = 0,
        lift_replies: bool = False,
        shown: Callable[[list[Hit]], list[Hit]] | None = None,
    ) -> SearchResult:
        """Hybrid search; ``total`` is the number of matches across all pages.

        ``weights`` replaces the memory's fusion weights for this search (``forget``
        retrieves its candidates by words or by meaning alone).
        ``query_embedder`` embeds the query in place of the tier's embedder (the same
        model): a search across the tiers passes one that embeds each text once.
        ``nearest`` passages nearest in meaning match even somewhat below the
        embedder's threshold when fewer clear it (memory.search.fusion.hybrid_search);
        ``HierarchicalMemory.archival_search`` asks for ``NEAREST_MATCHES``.
        With ``lift_replies``, a passage filed from the reply to a message whose passage
        ranks among the best ranks beside it (memory.search.replies).
        ``shown`` gives the hits a privacy policy lets this search show: a question it
        withholds lifts no reply, whose place would tell that the question matched.

        With ``prune_common`` (the default), a word found in more than half
        of the passages is left out of a query that has other words: BM25
        gives it an idf of almost zero, so it ranks nothing, yet it would make
        most passages matches to score, sort and count.

        ``total`` is exact below ``DENSE_CAP_FROM`` passages with vectors; past
        it, the passages matching in meaning are counted only as far as ranking
        read them, and ``total_exact`` says whether that was all of them.
        """
        filt = _filters(tags, start, end, was_in_core)
        return search_page(
            self.store.lexical("passages"), passing=self.store.passages.passing,
            vectors=self.vectors,
            embedder=query_embedder or self.embedder, weights=weights or self.weights,
            rows=self._count,
            query=query, k=k, page=page, filt=filt,
            fetch=self.get_many,
            query_vector=query_vector,
            dense_cap=DENSE_CAP if len(self.vectors) >= DENSE_CAP_FROM else None,
            nearest=nearest,
            hidden=frozenset(self.store.passages.holding(BLANK_FACT_PASSAGE)),
            replies=(lambda ids: self._replies(shown_ids(ids, self.get_many, shown), filt))
            if lift_replies else None)

    def _replies(self, ids: Sequence[int], filt: RowFilter) -> dict[int, int]:
        """For each passage of ``ids`` filed from a question, the passage filed from the
        reply to it, when that passes ``filt`` (memory.search.replies)."""
        sources = {i: p.source_message_id for i, p in self.store.passages.get_many(ids).items()
                   if p.source_message_id is not None}
        if not sources:
            return {}
        reply_to = replies_to(self.store.messages, list(sources.values()))
        if not reply_to:
            return {}
        filed = self.store.passages.filed_from(sorted(set(reply_to.values())))
        kept = self.store.passages.get_many(self.store.passages.passing(filed, filt))
        by_message: dict[int, int] = {}
        for passage_id in filed:  # in id order: the first passage filed from each reply
            passage = kept.get(passage_id)  # forgotten ones and those filtered out are not
            if passage is not None and passage.source_message_id is not None:
                by_message.setdefault(passage.source_message_id, passage_id)
        return {passage_id: by_message[reply_to[message_id]]
                for passage_id, message_id in sources.items()
                if message_id in reply_to and reply_to[message_id] in by_message}

    def dense_query(self, query: str) -> str | None:
        """The text ``search`` embeds for ``query`` (memory.search.fusion.dense_query_of)."""
        return dense_query_of(self.store.lexical("passages"), vectors=self.vectors,
                              weights=self.weights, rows=self._count, query=query)

    def get_many(self, ids: Sequence[int]) -> dict[int, Hit]:
        return {i: _hit(p) for i, p in self.store.passages.get_many(ids).items()}

    def holding(self, text: str) -> list[Hit]:
        """The passages not forgotten whose text is ``text``, in id order."""
        found = self.get_many(self.store.passages.holding(text))
        return [found[i] for i in sorted(found)]

    def iter_rows(self) -> Iterator[dict[str, Any]]:
        """Every passage as stored (memory.store.records.DumpRow), in id order."""
        return self.store.export_rows("passages")


def _hit(passage: Passage) -> Hit:
    return Hit(
        text=passage.text,
        tier="archival",
        score=0.0,
        created_at=passage.created_at,
        id=passage.id,
        was_in_core=passage.was_in_core,
        evicted_at=passage.evicted_at,
        fact_id=passage.fact_id,
        tags=passage.tags,
        metadata=passage.metadata,
    )


def _filters(
    tags: Sequence[str] | None, start: Any, end: Any, was_in_core: bool | None
) -> RowFilter:
    lo, hi = date_range(start, end)
    return RowFilter(start=lo, end=hi, tags=tuple(_clean_tags(tags)) if tags else (),
                     was_in_core=was_in_core)


def _clean_tags(tags: Sequence[str] | None) -> list[str]:
    if tags is None:
        return []
    if (isinstance(tags, str) or not isinstance(tags, Collection)
            or not all(isinstance(t, str) for t in tags)):
        raise InvalidInputError("tags must be a list of strings, like ['billing', 'acme']")
    for place, tag in enumerate(tags, 1):
        if not tag.strip():
            # Left out, an empty tag would file the passage without the label meant, and
            # make a search filtered by it a search of everything.
            raise InvalidInputError(
                f"tag {place} of tags is empty ({tag!r}); give each tag some text, like "
                f"'billing', or leave the empty ones out")
    # A tag is stored text too: a NUL or a lone surrogate would be kept, and a search
    # filtering by it would fail to encode it.
    cleaned = sorted({clean_text(t, "tag").lower() for t in tags})
    if 12 * sum(len(t) + 4 for t in cleaned) >= MAX_TEXT_CHARS:
        check_stored_json(cleaned, "tags", "a list of strings such as ['billing', 'acme']")
    return cleaned


#: Value types JSON always encodes.
_PLAIN = (str, int, float, bool, type(None))


def _not_finite_named(value: Any) -> Any:
    """``value`` with each NaN or infinity in it, at any depth, as its name ('NaN',
    'Infinity', '-Infinity')."""
    if isinstance(value, float) and not math.isfinite(value):
        return json.dumps(value)
    if isinstance(value, dict):
        return {key: _not_finite_named(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_not_finite_named(item) for item in value]
    return value


def _check_json_object(metadata: dict[str, Any] | None) -> None:
    """Refuse metadata that is not a JSON object (a dict of JSON values) of at most
    ``MAX_TEXT_CHARS`` characters as JSON."""
    if metadata is None:
        return
    if not isinstance(metadata, dict):
        raise InvalidInputError("metadata must be a JSON object (a dict)")
    # The common case, checked without encoding it here (the store encodes it to bound
    # it, then to write it): flat, finite, and short enough even if every character took
    # twelve (an emoji, written as two \u escapes).
    if all(type(k) is str and type(v) in _PLAIN and (type(v) is not float or math.isfinite(v))
           for k, v in metadata.items()) and 12 * sum(
            len(k) + len(str(v)) + 4 for k, v in metadata.items()) < MAX_TEXT_CHARS:
        return
    if not all(isinstance(k, str) for k in metadata):
        raise InvalidInputError("metadata keys must be strings, like {'team': 'ops'}")
    check_stored_json(metadata, "metadata", "a dict such as {'team': 'ops'}")
