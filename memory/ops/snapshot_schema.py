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
(``SnapshotChecks._fact``). Anything wrong
raises ``SnapshotError`` naming the place (``tables.facts[3].text``).

The checks run a row at a time (``check_snapshot``; the checks themselves are in
memory/ops/snapshot_checks.py), over a dict or a file read in a
stream (memory/ops/snapshot_source.py), keeping of each row what the checks across rows
need (its id, its references, a fact's key), never its text or vector; the error raised is
the one checking the whole snapshot at once raised, the same for a dict and its file.
``checked_rows`` reads the rows again to write them.

Format 1 snapshots are brought into format 2's shape first: their settings
were meta strings, and their missing settings take their defaults.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Iterator
from typing import Any, Protocol, cast

from pydantic import ValidationError

from tiermem.memory.config import MemoryConfig, decode_meta
from tiermem.memory.errors import NEWER_TIERMEM, InvalidConfigError, SnapshotError
from tiermem.memory.ops.snapshot_checks import SnapshotChecks, storable_row
from tiermem.memory.ops.snapshot_models import (
    ROW_MODELS,
    SNAPSHOT_FORMAT,
    SNAPSHOT_FORMAT_V1,
    CheckedSnapshot,
)
from tiermem.memory.ops.snapshot_norms import FactNorms
from tiermem.memory.ops.snapshot_source import DictSource, NotStreamable, Table
from tiermem.memory.store.records import DumpTable
from tiermem.memory.store.unstorable import Replaced

# The models live in memory.ops.snapshot_models; callers may import them from here too.
__all__ = ["ROW_MODELS", "SNAPSHOT_FORMAT", "CheckedSnapshot", "check_snapshot",
           "checked_rows", "parse_snapshot"]

#: ``on_read(bytes read, size)``: how far a walk of a snapshot file has read it.
OnRead = Callable[[int, int], None]


class SnapshotSource(Protocol):
    """A snapshot walked member by member (memory/ops/snapshot_source.py)."""

    def members(self, on_read: OnRead | None = None) -> Iterator[tuple[str, Any]]:
        ...


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
    checks: SnapshotChecks | None = None
    for key, value in source.members(on_read):
        if key != "tables":
            header[key] = value
            continue
        streamed = isinstance(value, Iterator)
        if streamed and not _complete(header) and not isinstance(source, DictSource):
            # Members after the tables, which checking the rows may need: read it whole.
            raise NotStreamable
        checks = SnapshotChecks(_header(header, {} if streamed else value))
        if streamed:
            for table, member in value:
                checks.member(table, member)
    if checks is None:
        checks = SnapshotChecks(_header(header, _ABSENT))
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
    norms = FactNorms()
    try:
        for i, raw in enumerate(rows):
            try:
                # Held as the check held it; the values changed were named then.
                row = model.model_validate(storable_row(table, i, raw, Replaced()),
                                           context=checked.context)
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
