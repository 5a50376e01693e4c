"""What a snapshot may hold: an allow-list of fields, their types and bounds, and the invariants.

A snapshot is input from outside: it may be hand-edited, truncated or
crafted. ``parse_snapshot`` accepts only the fields listed in the models
below (any other field is refused by name, so no key of the JSON ever
reaches SQL), checks every value against the limits the live API applies
(memory/validation.py: text size, NUL, valid UTF-8; finite numbers; ids
within SQLite's integers; vectors of the stored dimension), then checks what
must hold across rows: unique ids and facts, references between facts and
passages that resolve, counters that are consistent. Anything wrong raises
``SnapshotError`` naming the place (``tables.facts[3].text``).

Derived values are never taken from the snapshot: a fact's token count and
its normalised text are computed again from its text on restore.

Format 2 (``HierarchicalMemory.snapshot()`` today) carries a ``MemoryConfig``;
format 1 kept the settings as meta strings and still restores (its missing
settings take their defaults).
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Literal

import numpy as np
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    Strict,
    ValidationError,
    model_validator,
)

from tiermem.memory.config import MemoryConfig, decode_meta
from tiermem.memory.errors import InvalidConfigError, SnapshotError
from tiermem.memory.store.records import tombstone_norm
from tiermem.memory.text.extract import fact_norm
from tiermem.memory.validation import MAX_TEXT_CHARS, clean_text

SNAPSHOT_FORMAT = "tiermem-snapshot/2"
SNAPSHOT_FORMAT_V1 = "tiermem-snapshot/1"
#: The largest embedding dimension a snapshot may declare (models in use: 384 to 3,072).
MAX_EMBEDDER_DIM = 8192
_INT64 = 2**63 - 1
_HINT = "restore a snapshot as HierarchicalMemory.snapshot() wrote it"


# -- value types --------------------------------------------------------------------------------
def _plain(value: str) -> str:
    """Text that SQLite and every later reader take as it is: UTF-8, no NUL, bounded."""
    if "\x00" in value:
        raise ValueError(f"contains a NUL character (at {value.index(chr(0))})")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValueError(f"is not valid UTF-8 (lone surrogate at {exc.start})") from None
    if len(value) > MAX_TEXT_CHARS:
        raise ValueError(f"is {len(value):,} characters, over the limit of {MAX_TEXT_CHARS:,}")
    return value


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


Text = Annotated[str, Strict(), AfterValidator(_plain)]
StoredText = Annotated[Text, AfterValidator(_stored_text)]
JsonText = Annotated[Text, AfterValidator(_json_text)]
Name = Annotated[str, Strict(), Field(pattern=r"^[a-z_]{1,32}$")]
RowId = Annotated[int, Strict(), Field(ge=1, le=_INT64)]
Count = Annotated[int, Strict(), Field(ge=0, le=_INT64)]
Real = Annotated[float, Strict()]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


# -- rows ---------------------------------------------------------------------------------------
class FactRow(_Strict):
    id: RowId
    text: StoredText
    norm: Text | None = None  # derived: computed again from the text
    durability: Literal["durable", "short-lived"]
    tier: Literal["core", "archival"]
    created_at: Real
    created_tick: Real
    entered_core_seq: Count
    last_access: Real
    access_count: Count
    last_counted_tick: Real
    source: Text
    tokens: Count | None = None  # derived: counted again from the text
    passage_id: RowId | None
    evicted_at: Real | None
    evicted_tick: Real | None
    evictions: Count
    promotions: Count
    cycles: Count
    hits_since_eviction: Count
    source_message_id: RowId | None = None  # absent from snapshots taken before it existed
    forgotten_at: Real | None = None


class PassageRow(_Strict):
    id: RowId
    text: StoredText
    created_at: Real
    tags: Annotated[JsonText, AfterValidator(_json_tags)]
    metadata: Annotated[JsonText, AfterValidator(_json_object)]
    source: Text
    was_in_core: Annotated[int, Strict(), Field(ge=0, le=1)]
    evicted_at: Real | None
    fact_id: RowId | None
    embedder_id: Text | None
    embedding: Text | None
    forgotten_at: Real | None = None
    source_message_id: RowId | None = None  # absent from snapshots taken before it existed


class MessageRow(_Strict):
    id: RowId
    turn: Count
    role: Literal["user", "assistant", "tool", "system"]
    content: Text
    tool_calls: JsonText | None
    tool_call_id: Text | None
    tool_name: Text | None
    created_at: Real
    status: Name
    embedder_id: Text | None
    embedding: Text | None
    forgotten_at: Real | None = None

    @model_validator(mode="after")
    def _content_as_recall_takes_it(self) -> MessageRow:
        # Tool results and assistant turns that only call tools may be empty.
        if not (self.content == "" and self.role in ("tool", "assistant")):
            clean_text(self.content, f"a {self.role} message")
        return self


class HistoryRow(_Strict):
    tick: Count
    created_at: Real
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
    created_at: Real


class ErasureRow(_Strict):
    id: RowId
    message_id: RowId
    reason: Text
    erased_at: Real


def _id_list(value: str) -> str:
    ids = json.loads(value)
    if not isinstance(ids, list) or not all(type(i) is int and 1 <= i <= _INT64 for i in ids):
        raise ValueError("must be a JSON list of row ids")
    return value


IdList = Annotated[JsonText, AfterValidator(_id_list)]


class ForgetRequestRow(_Strict):
    id: RowId
    created_at: Real
    request_hash: Annotated[str, Strict(), Field(pattern=r"^[0-9a-f]{64}$")]
    mode: Name
    outcome: Literal["matched", "unmatched", "ambiguous", "failed"]
    facts: IdList
    passages: IdList
    messages: IdList
    detail: Text


class ForgottenNormRow(_Strict):
    id: RowId
    norm_hash: Annotated[str, Strict(), Field(pattern=r"^[0-9a-f]{64}$")]
    forgotten_at: Real


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


class Snapshot(_Strict):
    format: Literal["tiermem-snapshot/2"]
    config: dict[str, Any]  # validated by MemoryConfig, which names its own fields
    settings: Settings
    state: dict[Annotated[str, Strict(), Field(max_length=200), AfterValidator(_plain)],
                JsonText] = {}
    include_vectors: Annotated[bool, Strict()]
    tables: Tables


@dataclass(frozen=True)
class ValidSnapshot:
    """A snapshot that passed every check, with its vectors decoded."""

    config: MemoryConfig
    settings: Settings
    state: dict[str, str]
    include_vectors: bool
    tables: Tables
    #: (table, row id) -> float32 bytes, for rows whose embedding was included.
    vectors: dict[tuple[str, int], bytes]


# -- parsing ------------------------------------------------------------------------------------
def parse_snapshot(data: Any) -> ValidSnapshot:
    """Validate ``data`` (a snapshot dict) or raise SnapshotError naming what is wrong."""
    if not isinstance(data, dict) or data.get("format") not in (
            SNAPSHOT_FORMAT, SNAPSHOT_FORMAT_V1):
        raise SnapshotError(
            f"not a tiermem snapshot (expected format {SNAPSHOT_FORMAT!r}); pass the dict that "
            f"HierarchicalMemory.snapshot() returned, or its JSON loaded with json.load",
            ("format",))
    if data["format"] == SNAPSHOT_FORMAT_V1:
        data = _from_format_1(data)
    try:
        snapshot = Snapshot.model_validate(data)
    except ValidationError as exc:
        raise _snapshot_error(exc) from None
    try:
        config = MemoryConfig.parse(snapshot.config)
    except InvalidConfigError as exc:
        raise SnapshotError(
            str(exc).replace("invalid memory config: ", "invalid snapshot: config: ", 1),
            tuple(f"config.{f}" for f in exc.fields) or ("config",)) from None
    vectors = _decode_vectors(snapshot)
    _check_invariants(snapshot)
    return ValidSnapshot(config, snapshot.settings, dict(snapshot.state),
                         snapshot.include_vectors, snapshot.tables, vectors)


def _from_format_1(data: dict[str, Any]) -> dict[str, Any]:
    """Format 1 in format 2's shape: meta strings decoded, settings split from the config."""
    raw = data.get("settings")
    if not isinstance(raw, dict):
        raise SnapshotError("invalid snapshot: settings must be an object", ("settings",))
    present = {k: v for k, v in raw.items() if v is not None}
    try:
        config = decode_meta({k: v for k, v in present.items() if k in MemoryConfig.model_fields},
                             "the snapshot's setting")
    except InvalidConfigError as exc:
        raise SnapshotError(str(exc), tuple(f"settings.{f}" for f in exc.fields)) from None
    config["recall_dense"] = data.get("recall_dense", True)
    state_keys = {k for k in present if isinstance(k, str) and k.startswith("state.")}
    state = {k.removeprefix("state."): present[k] for k in state_keys}
    settings = {k: v if k == "embedder_id" else _meta_number(k, v) for k, v in present.items()
                if k not in MemoryConfig.model_fields and k not in state_keys}
    extra = set(data) - {"format", "settings", "recall_dense", "include_vectors", "tables"}
    if extra:
        name = sorted(map(str, extra))[0]
        raise SnapshotError(f"invalid snapshot: {name}: not a field of format 1", (name,))
    return {"format": SNAPSHOT_FORMAT, "config": config, "settings": settings, "state": state,
            "include_vectors": data.get("include_vectors"), "tables": data.get("tables")}


def _meta_number(key: Any, value: Any) -> Any:
    if not isinstance(value, str):
        return value  # the model refuses a wrong type with the field's name
    try:
        return json.loads(value)
    except ValueError:
        raise SnapshotError(f"invalid snapshot: settings.{key}: {value[:40]!r} is not a number",
                            (f"settings.{key}",)) from None


def _snapshot_error(exc: ValidationError) -> SnapshotError:
    fields: list[str] = []
    parts: list[str] = []
    # A field that is not allowed at all says the most about the input; list those first.
    errors = sorted(exc.errors(include_url=False), key=lambda e: e["type"] != "extra_forbidden")
    for error in errors:
        where = _place(error["loc"])
        fields.append(where)
        message = str(error["msg"]).removeprefix("Value error, ")
        if len(parts) < 5:
            parts.append(f"{where}: {message}")
    more = f" (and {len(errors) - 5} more)" if len(errors) > 5 else ""
    return SnapshotError(f"invalid snapshot: {'; '.join(parts)}{more}; {_HINT}", tuple(fields))


def _place(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            text = str(part)
            text = text if len(text) <= 60 else text[:57] + "..."
            out += f".{text}" if out else text
    return out


def _fail(where: str, message: str) -> SnapshotError:
    return SnapshotError(f"invalid snapshot: {where}: {message}; {_HINT}", (where,))


# -- vectors ------------------------------------------------------------------------------------
def _decode_vectors(snapshot: Snapshot) -> dict[tuple[str, int], bytes]:
    dim = snapshot.settings.embedder_dim
    out: dict[tuple[str, int], bytes] = {}
    tables: dict[str, Sequence[PassageRow | MessageRow]] = {
        "passages": snapshot.tables.passages, "messages": snapshot.tables.messages}
    for table, rows in tables.items():
        for i, row in enumerate(rows):
            if row.embedding is None:
                continue
            where = f"tables.{table}[{i}].embedding"
            if dim is None:
                raise _fail(where, "a vector, but settings.embedder_dim is missing")
            out[(table, row.id)] = _vector(row.embedding, dim, where)
    return out


def _vector(encoded: str, dim: int, where: str) -> bytes:
    try:
        blob = base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError):
        raise _fail(where, "is not base64") from None
    if len(blob) != 4 * dim:
        raise _fail(where, f"holds {len(blob)} bytes, not {dim} float32 values")
    vector = np.frombuffer(blob, dtype=np.float32)
    if not np.isfinite(vector).all():
        raise _fail(where, "holds a value that is not a finite number")
    norm = float(np.linalg.norm(vector))
    if norm != 0 and abs(norm - 1) > 1e-3:  # embedders return unit rows (or zero for no words)
        raise _fail(where, f"has length {norm:.4g}; vectors are unit length")
    return blob


# -- invariants across rows ---------------------------------------------------------------------
def _check_invariants(snapshot: Snapshot) -> None:
    tables = snapshot.tables
    for table in ROW_MODELS:
        key = "tick" if table == "history" else "id"
        _unique(table, key, [getattr(r, key) for r in getattr(tables, table)])
    # A forgotten norm is blocked once (the stores keep each hash once).
    _unique("forgotten_norms", "norm_hash", [r.norm_hash for r in tables.forgotten_norms])
    passages = {p.id for p in tables.passages}
    facts = {f.id for f in tables.facts}
    norms: dict[str, int] = {}
    for i, fact in enumerate(tables.facts):
        where = f"tables.facts[{i}]"
        # A forgotten fact no longer holds its norm: the same text may be stated again.
        norm = fact_norm(fact.text) if fact.forgotten_at is None else tombstone_norm(fact.id)
        if norm in norms:
            raise _fail(f"{where}.text", f"states the same fact as tables.facts[{norms[norm]}]")
        norms[norm] = i
        if fact.passage_id is not None and fact.passage_id not in passages:
            raise _fail(f"{where}.passage_id", f"passage {fact.passage_id} is not in the snapshot")
        if fact.tier == "archival" and fact.passage_id is None and fact.forgotten_at is None:
            raise _fail(f"{where}.passage_id", "an archived fact needs its passage")
    for i, passage in enumerate(tables.passages):
        if passage.fact_id is not None and passage.fact_id not in facts:
            raise _fail(f"tables.passages[{i}].fact_id",
                        f"fact {passage.fact_id} is not in the snapshot")
    settings = snapshot.settings
    if settings.archival_searches_with_hits > settings.archival_searches:
        raise _fail("settings.archival_searches_with_hits", "exceeds archival_searches")
    seq = max((f.entered_core_seq for f in tables.facts), default=0)
    if settings.core_seq < seq:
        raise _fail("settings.core_seq", f"is {settings.core_seq}, below a fact's {seq}")
    last = max((h.tick for h in tables.history), default=0)
    if settings.tick < last:
        raise _fail("settings.tick", f"is {settings.tick}, below the history's {last}")


def _unique(table: str, key: str, values: Sequence[int | str]) -> None:
    seen: dict[int | str, int] = {}
    for i, value in enumerate(values):
        if value in seen:
            raise _fail(f"tables.{table}[{i}].{key}",
                        f"{value} is also the {key} of tables.{table}[{seen[value]}]")
        seen[value] = i


