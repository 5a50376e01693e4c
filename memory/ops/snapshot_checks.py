"""Checking a snapshot a row at a time: each row against its model, then what must hold
across rows, from what is kept of each (its id, its references; never its text or vector).

``SnapshotChecks`` takes the members memory/ops/snapshot_schema.py walks (``check_snapshot``)
and raises the error the whole snapshot has, as checking it whole raised it;
the key each fact is restored under is memory/ops/snapshot_norms.py's ``FactNorms``.
Errors name the place (``tables.facts[3].text``).
"""

from __future__ import annotations

import base64
import binascii
from array import array
from typing import Any

import numpy as np
from pydantic import ValidationError

from tiermem.memory.config import MemoryConfig
from tiermem.memory.errors import InvalidConfigError, SnapshotError
from tiermem.memory.ops.snapshot_models import (
    ROW_MODELS,
    CheckedSnapshot,
    FactRow,
    Settings,
    Snapshot,
    Tables,
)
from tiermem.memory.ops.snapshot_norms import RESTORE_ADVICE, FactNorms
from tiermem.memory.ops.snapshot_norms import refused as _fail
from tiermem.memory.ops.snapshot_source import Table
from tiermem.memory.store.unstorable import (
    Replaced,
    is_storable,
    merged_keys,
    storable_text,
)
from tiermem.memory.validation import UNIT_TOLERANCE


def _snapshot_error(found: list[Any]) -> SnapshotError:
    fields: list[str] = []
    parts: list[str] = []
    # A field that is not allowed at all says the most about the input; list those first.
    errors = sorted(found, key=lambda e: e["type"] != "extra_forbidden")
    for error in errors:
        where = _place(error["loc"])
        fields.append(where)
        message = str(error["msg"]).removeprefix("Value error, ")
        if len(parts) < 5:
            parts.append(f"{where}: {message}")
    more = f" (and {len(errors) - 5} more)" if len(errors) > 5 else ""
    return SnapshotError(f"invalid snapshot: {'; '.join(parts)}{more}; {RESTORE_ADVICE}",
                         tuple(fields))


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


# -- vectors ------------------------------------------------------------------------------------
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
    if norm != 0 and abs(norm - 1) > UNIT_TOLERANCE:  # or zero, for a text without words
        raise _fail(where, f"has length {norm:.4g}; vectors are unit length")
    return blob


# -- the checks, a row at a time ------------------------------------------------------------------
class SnapshotChecks:
    """What a snapshot must hold, checked as its rows come: each row against its model,
    then what must hold across rows from what is kept of each (its id, its references;
    never its text or vector). ``result`` raises the error the whole snapshot has, as
    checking it whole raised it: every field's, else the first of the others in the order
    of the checks."""

    def __init__(self, data: dict[str, Any]) -> None:
        raw_config = data.get("config")
        # A fact's access times are on the memory's clock, so how they are checked depends
        # on it.
        self.context = {"clock": raw_config.get("clock") if isinstance(raw_config, dict)
                        else None}
        self.header: Snapshot | None = None
        #: Each value held with U+FFFD in place of a NUL or a lone surrogate, which an older
        #: version wrote into a snapshot and no store of this version holds.
        self.replaced = Replaced()
        self._failed: dict[str, SnapshotError] = {}
        if isinstance(data.get("state"), dict):
            data = {**data, "state": self._storable_state(data["state"])}
        errors: list[Any] = []
        try:
            self.header = Snapshot.model_validate(data, context=self.context)
        except ValidationError as exc:
            errors = exc.errors(include_url=False)
        # In the order checking it whole gives: the members, its tables among them, then
        # members that are no field.
        self._errors = [e for e in errors if e["loc"][0] in Snapshot.model_fields]
        self._extra_errors = [e for e in errors if e["loc"][0] not in Snapshot.model_fields]
        self._table_errors: dict[str, list[Any]] = {table: [] for table in ROW_MODELS}
        self._unknown_tables: list[Any] = []
        self.rows = dict.fromkeys(ROW_MODELS, 0)
        self.order: list[str] = []
        self._ids = {table: array("q") for table in ROW_MODELS}
        self._norms = FactNorms()
        self._norm_hashes: dict[str, int] = {}
        self._fact_passages: list[tuple[int, int | None, bool]] = []
        self._forgotten_passages = array("b")
        self._passage_facts: list[tuple[int, int]] = []
        self._core_seq = 0
        self._last_tick = 0
        settings = self.header.settings if self.header is not None else None
        self._dim = settings.embedder_dim if settings is not None else None
        self._tick = float(settings.tick) if settings is not None else 0.0

    def member(self, table: str, value: Any) -> None:
        """A member of the snapshot's tables: a ``Table`` of rows, or a value."""
        if table not in ROW_MODELS:
            if isinstance(value, Table):
                value = []  # its rows are skipped, unread
            self._unknown_tables.append({"type": "extra_forbidden", "loc": ("tables", table),
                                         "msg": "Extra inputs are not permitted"})
            return
        self.order.append(table)
        if isinstance(value, list):
            value = Table(iter(value))
        if not isinstance(value, Table):
            try:
                Tables.model_validate({table: value}, context=self.context)
            except ValidationError as exc:
                # No list (a list's rows are checked below, the same way).
                self._table_errors[table] = [_slim(e, ("tables",))
                                             for e in exc.errors(include_url=False)]
                return
            value = Table(iter(value))
        model = ROW_MODELS[table]
        found = self._table_errors[table]
        count = 0
        for i, raw in enumerate(value.rows):
            count = i + 1
            try:
                row = model.model_validate(storable_row(table, i, raw, self.replaced),
                                           context=self.context)
            except ValidationError as exc:
                found.extend(_slim(e, ("tables", table, i))
                             for e in exc.errors(include_url=False))
                continue
            self._row(table, i, row, _text_held_as_fffd(raw))
        self.rows[table] = count

    def _storable_state(self, state: dict[Any, Any]) -> dict[Any, Any]:
        merged = merged_keys(key for key in state if isinstance(key, str))
        if merged is not None:
            # One value would silently take the other's place.
            self._first("state keys", _merged_keys(*merged))
        held = {}
        for key, value in state.items():
            if any(isinstance(v, str) and not is_storable(v) for v in (key, value)):
                self.replaced.add("setting", repr(f"state.{key}"))
            held[storable_text(key) if isinstance(key, str) else key] = (
                storable_text(value) if isinstance(value, str) else value)
        return held

    def _first(self, check: str, error: SnapshotError) -> None:
        self._failed.setdefault(check, error)

    def _row(self, table: str, i: int, row: Any, text_replaced: bool) -> None:
        self._ids[table].append(row.tick if table == "history" else row.id)
        if table == "facts":
            self._fact(i, row, text_replaced)
        elif table == "passages":
            self._forgotten_passages.append(row.forgotten_at is not None)
            if row.fact_id is not None:
                self._passage_facts.append((i, row.fact_id))
        elif table == "history":
            self._last_tick = max(self._last_tick, row.tick)
        elif table == "forgotten_norms":
            if row.norm_hash in self._norm_hashes:
                self._first("norm_hash", _fail(
                    f"tables.forgotten_norms[{i}].norm_hash",
                    f"{row.norm_hash} is also the norm_hash of "
                    f"tables.forgotten_norms[{self._norm_hashes[row.norm_hash]}]"))
            else:
                self._norm_hashes[row.norm_hash] = i
        if table in ("passages", "messages") and row.embedding is not None:
            where = f"tables.{table}[{i}].embedding"
            try:
                if self._dim is None:
                    raise _fail(where, "a vector, but settings.embedder_dim is missing")
                _vector(row.embedding, self._dim, where)
            except SnapshotError as exc:
                self._first(f"vector {table}", exc)

    def _fact(self, i: int, fact: FactRow, text_replaced: bool) -> None:
        try:
            self._norms.of(i, fact, text_replaced)
        except SnapshotError as exc:
            self._first("norms", exc)
        self._fact_passages.append(
            (i, fact.passage_id, fact.tier == "archival" and fact.forgotten_at is None))
        self._core_seq = max(self._core_seq, fact.entered_core_seq)
        # On the interaction clock a fact cannot have been created or accessed after the
        # snapshot's tick, which is stored with the facts in one transaction: one read past
        # it is damage, and would outrank every fact accessed since for as long as the
        # memory lives. A wall clock has no such bound: a clock set back since, another
        # machine's clock, or a simulated one can each leave readings in the future, and a
        # memory scores them as just read (memory.tiers.policies.score_at), so they restore
        # as they are.
        if self.header is None or self.header.config.get("clock") == "wall":
            return
        for field in ("created_tick", "last_access"):
            value = getattr(fact, field)
            if value > self._tick:
                self._first("clock", _fail(
                    f"tables.facts[{i}].{field}",
                    f"is {value!r}, past the snapshot's settings.tick ({self._tick:g}): "
                    f"no fact is read after its memory's clock"))
                return

    def result(self) -> CheckedSnapshot:
        errors = [*self._errors]
        for table in ROW_MODELS:
            errors.extend(self._table_errors[table])
        errors.extend(self._unknown_tables)
        errors.extend(self._extra_errors)
        if errors or self.header is None:
            raise _snapshot_error(errors)
        if "state keys" in self._failed:
            raise self._failed["state keys"]
        snapshot = self.header
        try:
            config = MemoryConfig.parse(snapshot.config)
        except InvalidConfigError as exc:
            raise SnapshotError(
                str(exc).replace("invalid memory config: ", "invalid snapshot: config: ", 1),
                tuple(f"config.{f}" for f in exc.fields) or ("config",)) from None
        for check in ("vector passages", "vector messages"):
            if check in self._failed:
                raise self._failed[check]
        self._check_across_rows(snapshot.settings)
        if "clock" in self._failed and config.clock != "wall":
            raise self._failed["clock"]
        return CheckedSnapshot(config, snapshot.settings, dict(snapshot.state),
                               snapshot.include_vectors, dict(self.rows), self.context,
                               tuple(self.order), self.replaced)

    def _check_across_rows(self, settings: Settings) -> None:
        for table in ROW_MODELS:
            key = "tick" if table == "history" else "id"
            repeated = _first_repeat(self._ids[table])
            if repeated is not None:
                i, j, value = repeated
                raise _fail(f"tables.{table}[{i}].{key}",
                            f"{value} is also the {key} of tables.{table}[{j}]")
        # A forgotten norm is blocked once (the stores keep each hash once).
        for check in ("norm_hash", "norms"):
            if check in self._failed:
                raise self._failed[check]
        passages = np.frombuffer(self._ids["passages"], dtype=np.int64)
        order = np.argsort(passages, kind="stable")
        by_id = passages[order]
        forgotten = np.frombuffer(self._forgotten_passages, dtype=np.int8)[order]
        for i, passage_id, archived in self._fact_passages:
            where = f"tables.facts[{i}]"
            at = int(np.searchsorted(by_id, passage_id)) if passage_id is not None else -1
            if passage_id is not None and (at >= len(by_id) or by_id[at] != passage_id):
                raise _fail(f"{where}.passage_id", f"passage {passage_id} is not in the snapshot")
            if archived:
                if passage_id is None:
                    raise _fail(f"{where}.passage_id", "an archived fact needs its passage")
                # Forgetting takes a fact and its passage together; a forgotten passage
                # would leave the fact in archival where no search can find it.
                if forgotten[at]:
                    raise _fail(f"{where}.passage_id",
                                f"passage {passage_id} is forgotten but its fact is not")
        facts = set(self._ids["facts"])
        for i, fact_id in self._passage_facts:
            if fact_id not in facts:
                raise _fail(f"tables.passages[{i}].fact_id",
                            f"fact {fact_id} is not in the snapshot")
        audited = set(self._ids["forget_requests"])
        for i, audit_id in enumerate(settings.erase_pending):
            if audit_id not in audited:
                raise _fail(f"settings.erase_pending[{i}]",
                            f"forget request {audit_id} is not in the snapshot")
        if settings.archival_searches_with_hits > settings.archival_searches:
            raise _fail("settings.archival_searches_with_hits", "exceeds archival_searches")
        if settings.core_seq < self._core_seq:
            raise _fail("settings.core_seq",
                        f"is {settings.core_seq}, below a fact's {self._core_seq}")
        if settings.tick < self._last_tick:
            raise _fail("settings.tick", f"is {settings.tick}, below the history's "
                                         f"{self._last_tick}")


def _merged_keys(first: str, second: str) -> SnapshotError:
    storable = storable_text(first)
    where = f"state.{storable}"
    return SnapshotError(
        f"invalid snapshot: state keys {first!r} and {second!r} are both {storable!r} once "
        f"U+FFFD is held in place of each NUL or lone surrogate, which no store of this "
        f"version holds, so one value would be lost: rename or remove one of them in the "
        f"snapshot file and restore it again", (where,))


def _text_held_as_fffd(raw: Any) -> bool:
    """Whether row ``raw``'s text holds a NUL or a lone surrogate, held as U+FFFD."""
    text = raw.get("text") if isinstance(raw, dict) else None
    return isinstance(text, str) and not is_storable(text)


def storable_row(table: str, i: int, raw: Any, replaced: Replaced) -> Any:
    """Row ``i`` of ``table`` as it is restored: a NUL or a lone surrogate an older version
    wrote held as U+FFFD, as a migrate and a snapshot hold it, each value changed added to
    ``replaced`` by the row's id (its place when it has none)."""
    if not isinstance(raw, dict):
        return raw
    given = raw.get("id")
    name = str(given) if isinstance(given, int) and not isinstance(given, bool) else \
        f"row {i + 1}"
    return replaced.row(table, name, raw)


def _slim(error: Any, place: tuple[Any, ...]) -> dict[str, Any]:
    """What an error says, placed in the snapshot; not the input it quotes, which may be
    a whole row (and every row of a large snapshot may be wrong the same way)."""
    return {"type": error["type"], "loc": (*place, *error["loc"]), "msg": error["msg"]}


def _first_repeat(ids: array[int]) -> tuple[int, int, int] | None:
    """The first place whose value an earlier place holds: (that place, the earlier one,
    the value), or None when every value is unique."""
    values = np.frombuffer(ids, dtype=np.int64)
    if len(values) < 2:
        return None
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    same = ordered[1:] == ordered[:-1]
    if not same.any():
        return None
    i = int(order[1:][same].min())
    j = int(order[np.searchsorted(ordered, values[i])])
    return i, j, int(values[i])
