"""Validating a snapshot: the allow-list, the vectors and the invariants across rows.

A snapshot is input from outside: it may be hand-edited, truncated or
crafted. ``parse_snapshot`` accepts only the fields listed in the models of
memory/ops/snapshot_models.py (any other field is refused by name, so no key
of the JSON ever reaches SQL), checks every value against the limits the live
API applies (memory/validation.py: text size, NUL, valid UTF-8; finite
numbers; times of dates in the years 1 to 9999; ids within SQLite's
integers; vectors of the stored dimension), then
checks what must hold across rows: unique ids and facts, references that
resolve (between facts and passages, from an owed erasure to its forget
request), no archived fact whose passage is forgotten without it, counters
that are consistent, no fact read after its memory's clock
(``_check_clock_readings``). Anything wrong
raises ``SnapshotError`` naming the place (``tables.facts[3].text``).

Format 1 snapshots are brought into format 2's shape first: their settings
were meta strings, and their missing settings take their defaults.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Sequence
from typing import Any

import numpy as np
from pydantic import ValidationError

from tiermem.memory.config import MemoryConfig, decode_meta
from tiermem.memory.errors import NEWER_TIERMEM, InvalidConfigError, SnapshotError
from tiermem.memory.ops.snapshot_models import (
    ROW_MODELS,
    SNAPSHOT_FORMAT,
    SNAPSHOT_FORMAT_V1,
    MessageRow,
    PassageRow,
    Snapshot,
    ValidSnapshot,
)
from tiermem.memory.store.records import tombstone_norm
from tiermem.memory.text.extract import fact_norms

# The models live in memory.ops.snapshot_models; callers may import them from here too.
__all__ = ["ROW_MODELS", "SNAPSHOT_FORMAT", "ValidSnapshot", "parse_snapshot"]

_HINT = "restore a snapshot as HierarchicalMemory.snapshot() wrote it"
_FAMILY, _NUMBER = SNAPSHOT_FORMAT.rsplit("/", 1)


def _newer_format(given: Any) -> bool:
    """Whether ``given`` names a snapshot format of a later version (``tiermem-snapshot/3``)."""
    if not isinstance(given, str) or not given.startswith(_FAMILY + "/"):
        return False
    number = given[len(_FAMILY) + 1:]
    if not (number.isascii() and number.isdigit()):
        return False
    # int() refuses 4,300 digits and more; a number that long is later than ours anyway.
    number = number.lstrip("0")
    return len(number) > 9 or int(number or "0") > int(_NUMBER)


# -- parsing ------------------------------------------------------------------------------------
def parse_snapshot(data: Any) -> ValidSnapshot:
    """Validate ``data`` (a snapshot dict) or raise SnapshotError naming what is wrong."""
    given = data.get("format") if isinstance(data, dict) else None
    if _newer_format(given):
        raise SnapshotError(
            f"the snapshot is in format {given!r}, which a newer version of tiermem wrote "
            f"(this version reads {SNAPSHOT_FORMAT_V1!r} and {SNAPSHOT_FORMAT!r}); "
            f"{NEWER_TIERMEM}, or restore it with the version that wrote it", ("format",))
    if not isinstance(data, dict) or given not in (SNAPSHOT_FORMAT, SNAPSHOT_FORMAT_V1):
        raise SnapshotError(
            f"not a tiermem snapshot (expected format {SNAPSHOT_FORMAT!r}); pass the dict that "
            f"HierarchicalMemory.snapshot() returned, or its JSON loaded with json.load",
            ("format",))
    if data["format"] == SNAPSHOT_FORMAT_V1:
        data = _from_format_1(data)
    # A fact's access times are on the memory's clock, so how they are checked depends on it.
    raw_config = data.get("config")
    clock = raw_config.get("clock") if isinstance(raw_config, dict) else None
    try:
        snapshot = Snapshot.model_validate(data, context={"clock": clock})
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
    _check_clock_readings(snapshot, config.clock)
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
def restored_norms(facts: Sequence[Any]) -> list[str]:
    """The key each fact is restored under, in order; raises SnapshotError for a fact that
    states one another already states.

    A forgotten fact holds no key (``tombstone_norm``): the same text may be stated again.
    A live fact whose key another holds takes the key its spelling had before keys were
    composed (``earlier_fact_norms``): such versions kept "Café" typed composed and typed
    decomposed as two facts, and their snapshots restore as they were taken.
    """
    holder: dict[str, int] = {}
    norms = []
    for i, fact in enumerate(facts):
        if fact.forgotten_at is not None:
            norms.append(tombstone_norm(fact.id))
            continue
        keys = fact_norms(fact.text)
        norm = next((key for key in keys if key not in holder), None)
        if norm is None:
            raise _fail(f"tables.facts[{i}].text",
                        f"states the same fact as tables.facts[{holder[keys[0]]}]")
        holder[norm] = i
        norms.append(norm)
    return norms


def _check_invariants(snapshot: Snapshot) -> None:
    tables = snapshot.tables
    for table in ROW_MODELS:
        key = "tick" if table == "history" else "id"
        _unique(table, key, [getattr(r, key) for r in getattr(tables, table)])
    # A forgotten norm is blocked once (the stores keep each hash once).
    _unique("forgotten_norms", "norm_hash", [r.norm_hash for r in tables.forgotten_norms])
    passages = {p.id: p for p in tables.passages}
    facts = {f.id for f in tables.facts}
    restored_norms(tables.facts)
    for i, fact in enumerate(tables.facts):
        where = f"tables.facts[{i}]"
        if fact.passage_id is not None and fact.passage_id not in passages:
            raise _fail(f"{where}.passage_id", f"passage {fact.passage_id} is not in the snapshot")
        if fact.tier == "archival" and fact.forgotten_at is None:
            if fact.passage_id is None:
                raise _fail(f"{where}.passage_id", "an archived fact needs its passage")
            # Forgetting takes a fact and its passage together; a forgotten passage would
            # leave the fact in archival where no search can find it.
            if passages[fact.passage_id].forgotten_at is not None:
                raise _fail(f"{where}.passage_id",
                            f"passage {fact.passage_id} is forgotten but its fact is not")
    for i, passage in enumerate(tables.passages):
        if passage.fact_id is not None and passage.fact_id not in facts:
            raise _fail(f"tables.passages[{i}].fact_id",
                        f"fact {passage.fact_id} is not in the snapshot")
    settings = snapshot.settings
    audited = {r.id for r in tables.forget_requests}
    for i, audit_id in enumerate(settings.erase_pending):
        if audit_id not in audited:
            raise _fail(f"settings.erase_pending[{i}]",
                        f"forget request {audit_id} is not in the snapshot")
    if settings.archival_searches_with_hits > settings.archival_searches:
        raise _fail("settings.archival_searches_with_hits", "exceeds archival_searches")
    seq = max((f.entered_core_seq for f in tables.facts), default=0)
    if settings.core_seq < seq:
        raise _fail("settings.core_seq", f"is {settings.core_seq}, below a fact's {seq}")
    last = max((h.tick for h in tables.history), default=0)
    if settings.tick < last:
        raise _fail("settings.tick", f"is {settings.tick}, below the history's {last}")


def _check_clock_readings(snapshot: Snapshot, clock: str) -> None:
    # On the interaction clock a fact cannot have been created or accessed after the
    # snapshot's tick, which is stored with the facts in one transaction: one read past it
    # is damage, and would outrank every fact accessed since for as long as the memory
    # lives. A wall clock has no such bound: a clock set back since, another machine's
    # clock, or a simulated one can each leave readings in the future, and a memory scores
    # them as just read (memory.tiers.policies.score_at), so they restore as they are.
    if clock == "wall":
        return
    latest = float(snapshot.settings.tick)
    for i, fact in enumerate(snapshot.tables.facts):
        for field in ("created_tick", "last_access"):
            value = getattr(fact, field)
            if value > latest:
                raise _fail(f"tables.facts[{i}].{field}",
                            f"is {value!r}, past the snapshot's settings.tick ({latest:g}): "
                            f"no fact is read after its memory's clock")


def _unique(table: str, key: str, values: Sequence[int | str]) -> None:
    seen: dict[int | str, int] = {}
    for i, value in enumerate(values):
        if value in seen:
            raise _fail(f"tables.{table}[{i}].{key}",
                        f"{value} is also the {key} of tables.{table}[{seen[value]}]")
        seen[value] = i
