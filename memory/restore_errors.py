"""The refusal of a restore into a place that already holds a memory.

Beside ``SnapshotError`` (memory/errors.py) rather than in that module, which is full: a
caller catches either as ``SnapshotError``, and ``tiermem.memory`` exports both.
"""

from __future__ import annotations

from typing import Any

from tiermem.memory.errors import SnapshotError


class RestoreTargetHoldsMemoryError(SnapshotError):
    """A restore without ``replace`` into ``where``, which already holds a memory; nothing
    was written. ``tables`` are the tables holding rows there (empty when the place could
    not be read to tell), ``empty`` what the advice says to restore into instead."""

    def __init__(self, where: str, tables: tuple[str, ...] = (),
                 empty: str = "an empty one") -> None:
        self.where, self.tables, self.empty = where, tuple(tables), empty
        shown = f" ({', '.join(self.tables)})" if self.tables else ""
        #: What was found, without the advice (the command line gives its own).
        self.situation = f"{where} already holds a memory{shown}"
        super().__init__(
            f"{self.situation}; restore into {empty} so nothing stored there is "
            f"overwritten, or pass replace=True to replace it")

    def __reduce__(self) -> tuple[Any, ...]:
        # By its parts: the default rebuilds an exception from its message alone.
        return (type(self), (self.where, self.tables, self.empty))
