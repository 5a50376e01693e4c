"""Characters an older version stored that no store of this version holds.

PostgreSQL's text holds no NUL, UTF-8 no lone surrogate, and this version stores neither
anywhere, yet an agent home an older version wrote, or a snapshot it took, may hold them.
No command can rewrite such a value (none can be typed), so a migrate, a snapshot and a
restore each hold U+FFFD in place of every one, and say which values they changed
(``Replaced``): a count per table and column with the first few ids, so that thousands of
changed messages make one short line, not one naming each.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from tiermem.memory.errors import StoreError

__all__ = ["REPLACEMENT_CHARACTER", "Replaced", "is_storable", "merged_keys",
           "merged_settings_error", "storable_text"]

#: What is held in place of a character no store of this version holds.
REPLACEMENT_CHARACTER = "\ufffd"
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")
#: The ids named of each table and column; the rest are counted.
NAMED_IDS = 3


def storable_text(value: str) -> str:
    """``value`` with U+FFFD in place of each NUL and lone surrogate."""
    return _UNSTORABLE.sub(REPLACEMENT_CHARACTER, value)


def is_storable(value: str) -> bool:
    """Whether ``value`` holds no NUL and no lone surrogate."""
    return _UNSTORABLE.search(value) is None


def merged_keys(keys: Iterable[str]) -> tuple[str, str] | None:
    """The first two of ``keys`` that are one key once each NUL and lone surrogate is held
    as U+FFFD (``"a\\0"`` and ``"a\\ud800"``), or None: holding both would keep one value
    and lose the other."""
    seen: dict[str, str] = {}
    for key in keys:
        held = storable_text(key)
        if held in seen:
            return seen[held], key
        seen[held] = key
    return None


def merged_settings_error(first: str, second: str, what: str) -> StoreError:
    """The refusal of ``what`` (``"a snapshot"``, ``"a copy"``) of a memory holding the
    settings ``first`` and ``second`` (``merged_keys``)."""
    return StoreError(
        f"cannot take {what}: the memory holds the settings {first!r} and {second!r}, an "
        f"older version stored them, and they are one key, {storable_text(first)!r}, once "
        f"U+FFFD is held in place of each NUL or lone surrogate, which no store of this "
        f"version holds, so one value would be lost: delete one of them from the meta "
        f"table of the agent home's memory.sqlite3 (sqlite3), then run this again")


class Replaced:
    """The values held with U+FFFD in place of a NUL or a lone surrogate, said as
    ``messages 1, 2, 3 and 4,997 more (content)``; a setting as ``setting 'KEY'``. Only
    the first few ids of each table and column are kept, so memory stays bounded however
    many rows changed."""

    def __init__(self) -> None:
        self._named: dict[tuple[str, str], list[str]] = {}
        self._counts: dict[tuple[str, str], int] = {}

    def add(self, table: str, name: str, column: str = "") -> None:
        """``table``'s value ``name`` (an id, or a setting's key) changed, in ``column``."""
        group = (table, column)
        named = self._named.setdefault(group, [])
        if len(named) < NAMED_IDS:
            named.append(name)
        self._counts[group] = self._counts.get(group, 0) + 1

    def row(self, table: str, name: str, row: dict[str, Any]) -> dict[str, Any]:
        """``row`` with each text value storable, each one changed added under ``name``;
        ``row`` itself when none is."""
        changed = [column for column, value in row.items()
                   if isinstance(value, str) and not is_storable(value)]
        if not changed:
            return row
        for column in changed:
            self.add(table, name, column)
        return {column: storable_text(value) if column in changed else value
                for column, value in row.items()}

    def __bool__(self) -> bool:
        return bool(self._counts)

    def __str__(self) -> str:
        parts = []
        for (table, column), named in self._named.items():
            more = self._counts[(table, column)] - len(named)
            ids = ", ".join(named) + (f" and {more:,} more" if more else "")
            parts.append(f"{table} {ids}" + (f" ({column})" if column else ""))
        return ", ".join(parts)
