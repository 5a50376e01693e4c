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

The checks run a row at a time (``check_snapshot``), over a dict or a file read in a
stream (memory/ops/snapshot_source.py), keeping of each row what the checks across rows
need (its id, its references, a fact's key), never its text or vector; the error raised is
the one checking the whole snapshot at once raised, the same for a dict and its file.
``checked_rows`` reads the rows again to write them.

Format 1 snapshots are brought into format 2's shape first: their settings
were meta strings, and their missing settings take their defaults.
"""

from __future__ import annotations

import base64
import binascii
import json
from array import array
from collections.abc import Callable, Iterator
from typing import Any, Protocol, cast

import numpy as np
from pydantic import ValidationError

from tiermem.memory.config import MemoryConfig, decode_meta
from tiermem.memory.errors import NEWER_TIERMEM, InvalidConfigError, SnapshotError
from tiermem.memory.ops.snapshot_models import (
    ROW_MODELS,
    SNAPSHOT_FORMAT,
    SNAPSHOT_FORMAT_V1,
    CheckedSnapshot,
    FactRow,
    Settings,
    Snapshot,
    Tables,
)
from tiermem.memory.ops.snapshot_source import DictSource, NotStreamable, Table
from tiermem.memory.store.records import DumpTable, tombstone_norm
from tiermem.memory.text.extract import fact_norms

# The models live in memory.ops.snapshot_models; callers may import them from here too.
__all__ = ["ROW_MODELS", "SNAPSHOT_FORMAT", "CheckedSnapshot", "check_snapshot",
           "checked_rows", "parse_snapshot"]

#: ``on_read(bytes read, size)``: how far a walk of a snapshot file has read it.
OnRead = Callable[[int, int], None]


class SnapshotSource(Protocol):
    """A snapshot walked member by member (memory/ops/snapshot_source.py)."""

    def members(self, on_read: OnRead | None = None) -> Iterator[tuple[str, Any]]:
        ...

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


# -- checking -----------------------------------------------------------------------------------
def parse_snapshot(data: Any) -> CheckedSnapshot:
    """Validate ``data`` (a snapshot dict) or raise SnapshotError naming what is wrong."""
    if not isinstance(data, dict):
        _header({"format": None}, _ABSENT)  # raises: no snapshot
    return check_snapshot(DictSource(data))


def check_snapshot(source: SnapshotSource, on_read: OnRead | None = None) -> CheckedSnapshot:
    """Validate the snapshot ``source`` walks, a row at a time, or raise SnapshotError naming
    what is wrong: the same error, for the same snapshot, whether it is a dict or a file.
    ``on_read(bytes read, size)`` is called as a file is read."""
    header: dict[str, Any] = {}
    checks: _Checks | None = None
    for key, value in source.members(on_read):
        if key != "tables":
            header[key] = value
            continue
        streamed = isinstance(value, Iterator)
        if streamed and not _complete(header) and not isinstance(source, DictSource):
            # Members after the tables, which checking the rows may need: read it whole.
            raise NotStreamable
        checks = _Checks(_header(header, {} if streamed else value))
        if streamed:
            for table, member in value:
                checks.member(table, member)
    if checks is None:
        checks = _Checks(_header(header, _ABSENT))
    return checks.result()


_ABSENT = object()
#: The members a snapshot tiermem wrote has before its tables, by format.
_BEFORE_TABLES = {SNAPSHOT_FORMAT: {"config", "settings", "state", "include_vectors"},
                  SNAPSHOT_FORMAT_V1: {"settings", "include_vectors"}}


def _complete(header: dict[str, Any]) -> bool:
    """Whether ``header`` holds every member its format has before the tables."""
    given = header.get("format")
    wanted = _BEFORE_TABLES.get(given) if isinstance(given, str) else None
    return wanted is not None and wanted <= set(header)


def _header(header: dict[str, Any], tables: Any) -> dict[str, Any]:
    """The snapshot's members (``tables`` in place of its tables), in format 2's shape; raises
    SnapshotError for no snapshot, or one of a format this version cannot read."""
    data = dict(header)
    if tables is not _ABSENT:
        data["tables"] = tables
    given = data.get("format")
    if _newer_format(given):
        raise SnapshotError(
            f"the snapshot is in format {given!r}, which a newer version of tiermem wrote "
            f"(this version reads {SNAPSHOT_FORMAT_V1!r} and {SNAPSHOT_FORMAT!r}); "
            f"{NEWER_TIERMEM}, or restore it with the version that wrote it", ("format",))
    if given not in (SNAPSHOT_FORMAT, SNAPSHOT_FORMAT_V1):
        raise SnapshotError(
            f"not a tiermem snapshot (expected format {SNAPSHOT_FORMAT!r}); pass the dict that "
            f"HierarchicalMemory.snapshot() returned, or its JSON loaded with json.load",
            ("format",))
    if given == SNAPSHOT_FORMAT_V1:
        data = _from_format_1(data)
    return data


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


# -- the checks, a row at a time ------------------------------------------------------------------
class _Norms:
    """The key each fact is restored under, fact by fact.

    A forgotten fact holds no key (``tombstone_norm``): the same text may be stated again.
    A live fact whose key another holds takes the key its spelling had before keys were
    composed (``earlier_fact_norms``): such versions kept "Café" typed composed and typed
    decomposed as two facts, and their snapshots restore as they were taken.
    """

    def __init__(self) -> None:
        self._holder: dict[str, int] = {}

    def of(self, i: int, fact: Any) -> str:
        """Fact ``i``'s key; SnapshotError when an earlier fact states the same."""
        if fact.forgotten_at is not None:
            return tombstone_norm(fact.id)
        keys = fact_norms(fact.text)
        norm = next((key for key in keys if key not in self._holder), None)
        if norm is None:
            raise _fail(f"tables.facts[{i}].text",
                        f"states the same fact as tables.facts[{self._holder[keys[0]]}]")
        self._holder[norm] = i
        return norm


class _Checks:
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
        self._failed: dict[str, SnapshotError] = {}
        self._norms = _Norms()
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
                row = model.model_validate(raw, context=self.context)
            except ValidationError as exc:
                found.extend(_slim(e, ("tables", table, i))
                             for e in exc.errors(include_url=False))
                continue
            self._row(table, i, row)
        self.rows[table] = count

    def _first(self, check: str, error: SnapshotError) -> None:
        self._failed.setdefault(check, error)

    def _row(self, table: str, i: int, row: Any) -> None:
        self._ids[table].append(row.tick if table == "history" else row.id)
        if table == "facts":
            self._fact(i, row)
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

    def _fact(self, i: int, fact: FactRow) -> None:
        try:
            self._norms.of(i, fact)
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
                               tuple(self.order))

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


# -- the rows, to write -------------------------------------------------------------------------
def checked_rows(source: SnapshotSource, checked: CheckedSnapshot,
                 on_read: OnRead | None = None
                 ) -> Iterator[tuple[DumpTable, Iterator[tuple[Any, str | None]]]]:
    """The tables of a snapshot ``check_snapshot`` passed, walked again: each table with its
    rows, each row validated again with the key it is restored under (facts; else None).
    A row that no longer passes (the file changed since), or a file that cannot be read
    again, raises SnapshotError."""
    try:
        for key, value in source.members(on_read):
            if key != "tables":
                continue
            members = value if isinstance(value, Iterator) else iter(())
            for table, member in members:
                if table not in ROW_MODELS:
                    raise _changed()
                rows = member.rows if isinstance(member, Table) else iter(member)
                yield cast(DumpTable, table), _rows_again(table, rows, checked)
    except (OSError, ValueError, NotStreamable) as exc:  # ValueError: JSON, UTF-8
        raise _unreadable(exc) from None


def _rows_again(table: str, rows: Iterator[Any], checked: CheckedSnapshot
                ) -> Iterator[tuple[Any, str | None]]:
    model = ROW_MODELS[table]
    norms = _Norms()
    try:
        for i, raw in enumerate(rows):
            try:
                row = model.model_validate(raw, context=checked.context)
                norm = norms.of(i, row) if table == "facts" else None
            except (ValidationError, SnapshotError):
                raise _changed() from None
            yield row, norm
    except (OSError, ValueError, NotStreamable) as exc:  # ValueError: JSON, UTF-8
        raise _unreadable(exc) from None


def _unreadable(exc: Exception) -> SnapshotError:
    if isinstance(exc, SnapshotError):
        return exc
    return SnapshotError(f"the snapshot could not be read again as it was restored ({exc}); "
                         f"nothing was restored: restore it again", ("tables",))


def _changed() -> SnapshotError:
    return SnapshotError("the snapshot changed while it was restored (it no longer holds what "
                         "was checked); nothing was restored: restore it again", ("tables",))


def vector_of(encoded: str) -> bytes:
    """A checked row's vector as float32 bytes."""
    return base64.b64decode(encoded, validate=True)
