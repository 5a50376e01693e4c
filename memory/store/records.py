"""The plain values that cross the storage contract (memory/store/contract/).

Every backend takes and returns these: dataclasses and literals, never SQL,
cursors or driver rows. A fact is ``memory.types.Fact``, the same record the
tiers and policies use. Vectors are float32 numpy arrays of the embedder's
dimension, unit length (or zero for a text without words).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

import numpy as np

from tiermem.memory.types import Fact

__all__ = [
    "DUMP_TABLES",
    "ERASED_ID_KEYS",
    "STATE_PREFIX",
    "SUPERSEDED_AT",
    "DumpRow",
    "DumpTable",
    "Event",
    "Fact",
    "FactTotals",
    "ForgetRequest",
    "Forgotten",
    "HistoryPoint",
    "Message",
    "Passage",
    "RowFilter",
    "TextTable",
    "VectorTable",
    "tombstone_norm",
]

#: The tables with a full-text index: one lexical search each (``LexicalIndex``).
TextTable = Literal["facts", "passages", "messages"]
#: The tables whose rows carry vectors: one dense index each (``VectorIndex``).
VectorTable = Literal["passages", "messages"]
#: Every table that carries the state of a memory, as a snapshot holds it.
DumpTable = Literal["facts", "passages", "messages", "history", "events", "erasures",
                    "forget_requests", "forgotten_norms"]
DUMP_TABLES: tuple[DumpTable, ...] = (
    "facts", "passages", "messages", "history", "events", "erasures", "forget_requests",
    "forgotten_norms")
#: One row of a ``DumpTable`` in the snapshot's column form (memory/ops/snapshot_models.py):
#: JSON columns (``tags``, ``metadata``, ``tool_calls``) as JSON text, ``was_in_core`` as
#: 0 or 1, ``embedding`` as the float32 bytes or None.
DumpRow = dict[str, Any]
#: The settings that keep the highest id of an erased fact and of an erased passage, set in
#: the erasure's transaction: a new row's id is past it, so no id ever names two rows
#: (an erased message's id is kept by its erasure record). Snapshots and migrations carry them.
ERASED_ID_KEYS: dict[str, str] = {"facts": "max_erased_fact_id",
                                  "passages": "max_erased_passage_id"}


@dataclass
class Passage:
    """One archival passage. ``id`` is 0 until the store gives it one.

    ``embedding`` is the passage's vector by ``embedder_id``; reads for search
    (``PassageStore.get_many``) leave it None, since a page of hits never needs it.
    ``source_message_id`` is the recall message the passage was filed from, if any:
    erasing or forgetting that message takes the passage with it.
    """

    text: str
    created_at: float
    id: int = 0
    tags: list[str] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)
    source: str = ""
    was_in_core: bool = False
    evicted_at: float | None = None
    fact_id: int | None = None
    embedder_id: str | None = None
    embedding: np.ndarray | None = None
    source_message_id: int | None = None


@dataclass
class Message:
    """One recall message. ``id`` is 0 until the store gives it one.

    ``status`` is the one field that may change after the message is stored
    (``pending`` while its turn runs, then ``ok`` or ``unanswered``).
    """

    turn: int
    role: str
    content: str
    created_at: float
    id: int = 0
    tool_calls: list[dict[str, Any]] | None = None
    tool_call_id: str | None = None
    tool_name: str | None = None
    status: str = "ok"
    embedder_id: str | None = None
    embedding: np.ndarray | None = None


@dataclass(frozen=True)
class HistoryPoint:
    """The memory's size after one interaction (one row per tick)."""

    tick: int
    created_at: float
    core_facts: int
    core_size: int
    durable_in_core: int
    archival_passages: int
    recall_messages: int
    evictions: int
    promotions: int


@dataclass(frozen=True)
class Event:
    """What happened to a fact (add, evict, promote, bypass, replace, ...). ``id`` is 0 until
    the store gives it one.

    An event never holds a fact's text: the fact's row holds it, so an edit or an
    erasure leaves no copy here. ``detail`` names texts by digest and length
    (memory/text/digest.py).
    """

    tick: int
    kind: str
    fact_id: int | None
    detail: str
    created_at: float
    id: int = 0


#: The passage metadata key, set to when it happened, of a fact retired as no longer true.
SUPERSEDED_AT = "superseded_at"
#: A cheap first test of stored metadata text for the mark, which ``marked_superseded``
#: then reads.
SUPERSEDED_LIKE = f"%{SUPERSEDED_AT}%"


def marked_superseded(metadata: str) -> bool:
    """Whether a passage's stored metadata text marks its fact superseded (json.loads
    reads the NaN an older version may have stored, which SQL's JSON functions refuse)."""
    held = json.loads(metadata)
    return isinstance(held, dict) and SUPERSEDED_AT in held

#: The setting a migrate into a store holds until its copy commits (memory/store/transfer.py):
#: where it copies from.
MIGRATING_KEY = "migrating_from"
#: The setting a restore into an empty store holds until its rows commit
#: (memory/ops/snapshot.py): what it restores from.
RESTORING_KEY = "restoring_from"
#: Either copy that fills a store removes both marks: the store then holds a whole memory.
UNFINISHED_COPY_KEYS = (MIGRATING_KEY, RESTORING_KEY)
#: The setting a reindex holds until it ends (memory/ops/reindex.py): the embedder it
#: re-embeds the memory with.
REINDEX_TARGET_KEY = "reindex_to"
#: What the keys of the values ``set_state`` stores start with (memory/ops/state.py).
STATE_PREFIX = "state."


@dataclass(frozen=True)
class FactTotals:
    """Sums over every fact, in either tier; ``max_cycles`` over the facts not forgotten."""

    evictions: int = 0
    promotions: int = 0
    cycles: int = 0
    max_cycles: int = 0


@dataclass(frozen=True)
class RowFilter:
    """Which rows a search may return, as values; each backend turns it into its own query.

    Conditions for another table are ignored (``tags`` on messages, ``roles`` on
    passages). ``below`` keeps rows whose id is below it; backends with a full-text
    index apply it as a bound on the index's own row ids, where that is cheaper.
    """

    #: ``created_at`` at or after this (Unix seconds).
    start: float | None = None
    #: ``created_at`` at or before this (Unix seconds).
    end: float | None = None
    #: Only ids below this one.
    below: int | None = None
    #: Passages carrying any of these tags (tags are stored lowercased).
    tags: tuple[str, ...] = ()
    #: Passages that were (True) or were not (False) in core; None for either.
    was_in_core: bool | None = None
    #: Messages of these roles (empty: any role).
    roles: tuple[str, ...] = ()
    #: Leave out tool messages that this tool returned (``conversation_search``).
    hide_tool: str | None = None

    @property
    def on_rows(self) -> bool:
        """Whether a condition needs the row itself (anything besides ``below``)."""
        return bool(self.start is not None or self.end is not None or self.tags
                    or self.was_in_core is not None or self.roles or self.hide_tool)


@dataclass(frozen=True)
class Forgotten:
    """The ids a forget request tombstoned, per table."""

    facts: tuple[int, ...] = ()
    passages: tuple[int, ...] = ()
    messages: tuple[int, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.facts or self.passages or self.messages)


@dataclass(frozen=True)
class ForgetRequest:
    """One forget request in the audit: never its text (it quotes what is to be forgotten),
    only a hash of it, how it was decided and which rows it tombstoned. ``id`` is 0 until
    the store gives it one."""

    created_at: float
    request_hash: str
    mode: str
    #: ``matched``, ``unmatched``, ``ambiguous`` or ``failed``.
    outcome: str
    forgotten: Forgotten = Forgotten()
    #: Why, for an outcome other than ``matched`` (never the request's text).
    detail: str = ""
    id: int = 0

    #: The columns of the audit table, in the order ``from_row`` reads them.
    COLUMNS: ClassVar[tuple[str, ...]] = (
        "id", "created_at", "request_hash", "mode", "outcome", "facts", "passages", "messages",
        "detail")

    @classmethod
    def from_row(cls, row: tuple[Any, ...]) -> ForgetRequest:
        """A request from its row in ``COLUMNS`` order (the id lists as JSON text)."""
        rid, created_at, request_hash, mode, outcome, facts, passages, messages, detail = row
        return cls(created_at=float(created_at), request_hash=str(request_hash),
                   mode=str(mode), outcome=str(outcome), detail=str(detail), id=int(rid),
                   forgotten=Forgotten(*(tuple(int(i) for i in json.loads(ids))
                                         for ids in (facts, passages, messages))))

    def id_lists(self) -> tuple[str, str, str]:
        """The forgotten ids of each table as JSON text, as the audit table stores them."""
        done = self.forgotten
        return (json.dumps(list(done.facts)), json.dumps(list(done.passages)),
                json.dumps(list(done.messages)))


def tombstone_norm(fact_id: int) -> str:
    """The ``norm`` a forgotten fact keeps, so its text's norm is free for the fact to be
    stated again. Real norms never start with a space (texts are stripped first)."""
    return f" forgotten {int(fact_id)}"
