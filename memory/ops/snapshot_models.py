"""What a snapshot may hold: an allow-list of fields, their types and bounds.

A snapshot is input from outside: it may be hand-edited, truncated or
crafted. The models below list every field it may hold (any other field is
refused by name, so no key of the JSON ever reaches SQL) and check every
value against the limits the live API applies (memory/validation.py: text
size, and the larger size of a stored state value; NUL, valid UTF-8; finite
numbers; times of dates in the years 1 to 9999; ids within SQLite's
integers). A NUL or a lone surrogate in a row's text or a state value, which an
older version could write, never reaches them: it is held as U+FFFD, as a migrate
copies it (memory/ops/snapshot_checks.py ``storable_row``). A time that is no such
date as seconds can only be milliseconds (older versions stored some): it is divided
by 1000, then checked again, and stored as seconds. So are a fact's creation and last
access on a memory whose clock is "wall" (on the default clock they count interactions,
and only have to be finite and not negative, as its eviction tick does), and the time a
passage's metadata says its fact was superseded.
``parse_snapshot`` (memory/ops/snapshot_schema.py) validates a snapshot
against them, then checks its vectors and what must hold across rows.

Derived values are never taken from the snapshot: a fact's token count and
its normalised text are computed again from its text on restore.

Format 2 (``HierarchicalMemory.snapshot()`` today) carries a ``MemoryConfig``;
format 1 kept the settings as meta strings, and ``parse_snapshot`` brings it
into format 2's shape before these models see it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    Strict,
    ValidationInfo,
)

from tiermem.memory.config import MemoryConfig
from tiermem.memory.store.records import SUPERSEDED_AT
from tiermem.memory.store.unstorable import Replaced
from tiermem.memory.validation import (
    EARLIEST_TIME,
    HASH_PATTERN,
    LATEST_TIME,
    MAX_STATE_KEY_CHARS,
    MAX_STATE_VALUE_CHARS,
    MAX_TEXT_CHARS,
    NAME_PATTERN,
    clean_text,
    seconds_of_stored,
    unescaped_json,
)

SNAPSHOT_FORMAT = "tiermem-snapshot/2"
SNAPSHOT_FORMAT_V1 = "tiermem-snapshot/1"
#: The largest embedding dimension a snapshot may declare (models in use: 384 to 3,072).
MAX_EMBEDDER_DIM = 8192
_INT64 = 2**63 - 1


# -- value types --------------------------------------------------------------------------------
def _bounded(limit: int) -> AfterValidator:
    """Text that SQLite and every later reader take as it is: UTF-8, no NUL, at most
    ``limit`` characters."""
    def check(value: str) -> str:
        if "\x00" in value:
            raise ValueError(f"contains a NUL character (at {value.index(chr(0))})")
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise ValueError(f"is not valid UTF-8 (lone surrogate at {exc.start})") from None
        if len(value) > limit:
            raise ValueError(f"is {len(value):,} characters, over the limit of {limit:,}")
        return value
    return AfterValidator(check)


def _moment(value: float) -> float:
    # A value that is a date as seconds stays seconds, so every time the live API takes
    # restores as it was.
    seconds = seconds_of_stored(value)
    # As the live API refuses (memory/validation.py): a time outside these years cannot be
    # shown as a date, so every search result that reached its row would fail.
    if not EARLIEST_TIME <= seconds <= LATEST_TIME:
        raise ValueError(f"must be Unix seconds (or milliseconds) of a date in the years 1 to "
                         f"9999, got {value!r}")
    return seconds


def _clock_reading(value: float, info: ValidationInfo) -> float:
    # A fact's creation and last access on the memory's clock: interactions, or Unix seconds
    # with clock "wall" (``parse_snapshot`` passes the config's clock as the context). Either
    # way the clock never reads below zero; a wall-clock time past any date would overflow
    # the eviction score and the diagnostics that show it.
    if value < 0:
        raise ValueError(f"must be a reading of the memory's clock, never negative, got "
                         f"{value!r}")
    if (info.context or {}).get("clock") != "wall":
        return value
    try:
        return _moment(value)
    except ValueError:
        raise ValueError(f"must be Unix seconds (or milliseconds) of a date in the years 1 to "
                         f"9999, as config.clock is 'wall', got {value!r}") from None


def _superseded_time(value: str) -> str:
    # When a fact retired as no longer true (memory/tiers/lifecycle.py), shown as a date
    # by archival search. Only a number is the engine's mark: the key in a caller's own
    # metadata holding anything else is shown by nothing.
    metadata = json.loads(value)
    when = metadata.get(SUPERSEDED_AT)
    if isinstance(when, bool) or not isinstance(when, (int, float)):
        return value
    try:
        seconds = _moment(float(when))
    except OverflowError:  # an integer past any float is past any date
        raise ValueError(f"{SUPERSEDED_AT} must be Unix seconds (or milliseconds) of a date "
                         f"in the years 1 to 9999, got an integer of {len(str(when))} "
                         f"digits") from None
    except ValueError as exc:
        raise ValueError(f"{SUPERSEDED_AT} {exc}") from None
    if seconds == when:
        return value
    # Characters kept as they are, so the rewrite stays within the bound its text was held
    # to (a number in seconds may be a few characters longer than the milliseconds were).
    rewritten = unescaped_json({**metadata, SUPERSEDED_AT: seconds})
    if len(rewritten) > MAX_TEXT_CHARS:
        rewritten = unescaped_json({**metadata, SUPERSEDED_AT: seconds}, compact=True)
    if len(rewritten) > MAX_TEXT_CHARS:
        raise ValueError(f"is {len(rewritten):,} characters once {SUPERSEDED_AT} is in "
                         f"seconds, over the limit of {MAX_TEXT_CHARS:,}")
    return rewritten


def _stored_text(value: str) -> str:
    clean_text(value, "the text")  # the live API's rule for a fact, passage or message
    return value


def _json_text(value: str) -> str:
    try:
        json.loads(value)
    except ValueError:
        raise ValueError("is not valid JSON text") from None
    return value


def _json_tags(value: str) -> str:
    tags = json.loads(value)
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        raise ValueError("must be a JSON list of strings")
    return value


def _json_object(value: str) -> str:
    if not isinstance(json.loads(value), dict):
        raise ValueError("must be a JSON object")
    return value


Text = Annotated[str, Strict(), _bounded(MAX_TEXT_CHARS)]
StoredText = Annotated[Text, AfterValidator(_stored_text)]
JsonText = Annotated[Text, AfterValidator(_json_text)]
#: A stored state value (``set_state``): JSON text of at most ``MAX_STATE_VALUE_CHARS``.
StateValue = Annotated[str, Strict(), _bounded(MAX_STATE_VALUE_CHARS),
                       AfterValidator(_json_text)]
Name = Annotated[str, Strict(), Field(pattern=f"^{NAME_PATTERN}$")]
RowId = Annotated[int, Strict(), Field(ge=1, le=_INT64)]
Count = Annotated[int, Strict(), Field(ge=0, le=_INT64)]
Real = Annotated[float, Strict()]
#: When something happened, by the wall clock.
Moment = Annotated[Real, AfterValidator(_moment)]
#: When a fact was created or last accessed, on the memory's clock (``_clock_reading``).
ClockReading = Annotated[Real, AfterValidator(_clock_reading)]
#: An interaction count, whatever the clock.
Tick = Annotated[Real, Field(ge=0)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


# -- rows ---------------------------------------------------------------------------------------
class FactRow(_Strict):
    id: RowId
    text: StoredText
    norm: Text | None = None  # derived: computed again from the text
    durability: Literal["durable", "short-lived"]
    tier: Literal["core", "archival"]
    created_at: Moment
    created_tick: ClockReading
    entered_core_seq: Count
    last_access: ClockReading
    access_count: Count
    last_counted_tick: Real
    source: Text
    tokens: Count | None = None  # derived: counted again from the text
    passage_id: RowId | None
    evicted_at: Moment | None
    evicted_tick: Tick | None
    evictions: Count
    promotions: Count
    cycles: Count
    hits_since_eviction: Count
    source_message_id: RowId | None = None  # absent from snapshots taken before it existed
    forgotten_at: Moment | None = None


class PassageRow(_Strict):
    id: RowId
    text: StoredText
    created_at: Moment
    tags: Annotated[JsonText, AfterValidator(_json_tags)]
    metadata: Annotated[JsonText, AfterValidator(_json_object),
                        AfterValidator(_superseded_time)]
    source: Text
    was_in_core: Annotated[int, Strict(), Field(ge=0, le=1)]
    evicted_at: Moment | None
    fact_id: RowId | None
    embedder_id: Text | None
    embedding: Text | None
    forgotten_at: Moment | None = None
    source_message_id: RowId | None = None  # absent from snapshots taken before it existed


class MessageRow(_Strict):
    id: RowId
    turn: Count
    role: Literal["user", "assistant", "tool", "system"]
    # Content is restored as the store held it, empty or blank whatever the role: recall
    # refuses an empty user message, but a store written otherwise (its own API) keeps one,
    # and a snapshot of such a memory must restore.
    content: Text
    tool_calls: JsonText | None
    tool_call_id: Text | None
    tool_name: Text | None
    created_at: Moment
    status: Name
    embedder_id: Text | None
    embedding: Text | None
    forgotten_at: Moment | None = None


class HistoryRow(_Strict):
    tick: Count
    created_at: Moment
    core_facts: Count
    core_size: Count
    durable_in_core: Count
    archival_passages: Count
    recall_messages: Count
    evictions: Count
    promotions: Count


class EventRow(_Strict):
    id: RowId
    tick: Count
    kind: Name
    fact_id: RowId | None
    text: Text
    detail: Text
    created_at: Moment


class ErasureRow(_Strict):
    id: RowId
    message_id: RowId
    reason: Text
    erased_at: Moment


def _id_list(value: str) -> str:
    ids = json.loads(value)
    if not isinstance(ids, list) or not all(type(i) is int and 1 <= i <= _INT64 for i in ids):
        raise ValueError("must be a JSON list of row ids")
    return value


IdList = Annotated[JsonText, AfterValidator(_id_list)]


class ForgetRequestRow(_Strict):
    id: RowId
    created_at: Moment
    request_hash: Annotated[str, Strict(), Field(pattern=f"^{HASH_PATTERN}$")]
    mode: Name
    outcome: Literal["matched", "unmatched", "ambiguous", "failed"]
    facts: IdList
    passages: IdList
    messages: IdList
    detail: Text


class ForgottenNormRow(_Strict):
    id: RowId
    norm_hash: Annotated[str, Strict(), Field(pattern=f"^{HASH_PATTERN}$")]
    forgotten_at: Moment


ROW_MODELS: dict[str, type[_Strict]] = {
    "facts": FactRow, "passages": PassageRow, "messages": MessageRow, "history": HistoryRow,
    "events": EventRow, "erasures": ErasureRow, "forget_requests": ForgetRequestRow,
    "forgotten_norms": ForgottenNormRow,
}


class Tables(_Strict):
    facts: list[FactRow] = []
    passages: list[PassageRow] = []
    messages: list[MessageRow] = []
    history: list[HistoryRow] = []
    events: list[EventRow] = []
    erasures: list[ErasureRow] = []
    forget_requests: list[ForgetRequestRow] = []
    forgotten_norms: list[ForgottenNormRow] = []


class Settings(_Strict):
    """The running state kept in ``meta`` besides the config."""

    tick: Count = 0
    core_seq: Count = 0
    embedder_id: Text | None = None
    embedder_dim: Annotated[int, Strict(), Field(ge=1, le=MAX_EMBEDDER_DIM)] | None = None
    archival_searches: Count = 0
    archival_searches_with_hits: Count = 0
    #: The forget requests whose erasure is owed (memory/ops/erase.py), when any are: the
    #: snapshot holds what they forgot as tombstones, and the memory restored from it
    #: erases that when it opens.
    erase_pending: list[RowId] = []
    #: The highest id of an erased fact, and of an erased passage (``ERASED_ID_KEYS`` of
    #: memory/store/records.py): the restored memory gives no id up to them again.
    max_erased_fact_id: Count = 0
    max_erased_passage_id: Count = 0


class Snapshot(_Strict):
    format: Literal["tiermem-snapshot/2"]
    config: dict[str, Any]  # validated by MemoryConfig, which names its own fields
    settings: Settings
    # A value is bounded as set_state bounds it, so a snapshot restores whatever it stored.
    state: dict[Annotated[str, Strict(), Field(max_length=MAX_STATE_KEY_CHARS),
                          _bounded(MAX_TEXT_CHARS)],
                StateValue] = {}
    include_vectors: Annotated[bool, Strict()]
    tables: Tables


@dataclass(frozen=True)
class CheckedSnapshot:
    """What a snapshot that passed every check holds besides its rows, which are read
    again to be written (memory/ops/snapshot_schema.py ``checked_rows``)."""

    config: MemoryConfig
    settings: Settings
    state: dict[str, str]
    include_vectors: bool
    #: Rows per table.
    rows: dict[str, int]
    #: The context its rows are validated in (the memory's clock).
    context: dict[str, Any]
    #: The tables in the order the snapshot holds them.
    order: tuple[str, ...] = ()
    #: The values restored with U+FFFD in place of a NUL or a lone surrogate.
    replaced: Replaced = field(default_factory=Replaced)
