"""The refusals of a memory whose schema or creation is not this version's to use: written
by an older or a newer tiermem, or left unfinished by a creation or a copy that stopped.
memory/errors.py exports them beside the others."""

from __future__ import annotations

from typing import Any

from tiermem.memory.error_base import NEWER_TIERMEM, StoreError


class OlderSchemaError(StoreError):
    """A read-only open of a memory an older version of tiermem wrote: it cannot be read
    until a writer's open upgrades it (which runs the migrations it lacks).

    ``found`` is the schema version stored, ``current`` the one this version reads.
    """

    def __init__(self, where: str, found: int, current: int) -> None:
        self.where, self.found, self.current = where, found, current
        super().__init__(
            f"{where} was written by an older version of tiermem (schema {found}; this "
            f"version reads {current}); open it once for writing (without read_only) to "
            f"upgrade it")

    def __reduce__(self) -> tuple[Any, ...]:
        # By its parts: the default rebuilds an exception from its message alone.
        return (type(self), (self.where, self.found, self.current))


class UnfinishedStoreError(StoreError):
    """A memory database the process creating it stopped before finishing: it holds nothing
    yet, and an open for writing finishes creating it (a read-only open cannot).

    ``found`` is the schema version it was created up to.
    """

    def __init__(self, where: str, found: int) -> None:
        self.where, self.found = where, found
        super().__init__(
            f"{where} was never finished being created (the process creating it stopped "
            f"first) and holds nothing yet; open it once for writing (without read_only) to "
            f"finish creating it")

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.where, self.found))


#: What an empty memory database file is, and the way to keep a memory it should hold.
EMPTY_FILE_CAUSES = ("nothing was ever written to it (a process creating the memory stopped "
                     "at its very start, or the file was made outside tiermem: `touch`, a "
                     "copy or download cut short by a full disk)")


class EmptyStoreFileError(UnfinishedStoreError):
    """A memory database that is an empty file (0 bytes): as an unfinished creation, an
    open for writing creates a new, empty memory in it; but the file may be a copy cut
    short, whose memory is still where it was copied from. ``path`` is the file."""

    def __init__(self, path: str, found: int = 0) -> None:
        self.path = path
        self.where, self.found = f"the memory database {path}", found
        StoreError.__init__(
            self, f"{self.where} is an empty file (0 bytes): {EMPTY_FILE_CAUSES}. If it "
                  f"should hold a memory, that memory is not in it: copy it again from where "
                  f"it came (with no session open), or restore a snapshot; else open it once "
                  f"for writing (without read_only) to create a new, empty memory in it")

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.path, self.found))


class UnfinishedCopyError(StoreError):
    """A copy into this memory (``operation``) marked it and stopped before its rows
    committed: it holds no memory yet (the copy rolled back), and running the copy again
    makes it whole. ``source`` is what it copied from; ``running``: the copy still holds it
    (a reader was told to wait)."""

    operation = "copy"
    again = "run it again"

    def __init__(self, where: str, source: str, running: bool = False) -> None:
        self.where, self.source, self.running = where, source, running
        if running:
            super().__init__(
                f"a {self.operation} into {where} (from {source}) is running, so it holds no "
                f"memory yet; wait for it to finish")
            return
        super().__init__(
            f"a {self.operation} into {where} (from {source}) stopped before it finished, so "
            f"it holds no memory yet; {self.again}")

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.where, self.source, self.running))


class UnfinishedMigrationError(UnfinishedCopyError):
    """A ``migrate`` into this memory stopped before its copy committed."""

    operation = "migrate"
    again = "run the migrate again, which copies it whole"


class UnfinishedRestoreError(UnfinishedCopyError):
    """A restore into this empty memory stopped before its rows committed."""

    operation = "restore"
    again = ("run the restore again (tiermem restore FILE with the same --store and "
             "--agent), which writes it whole")


class NewerSchemaError(StoreError):
    """A memory a newer version of tiermem wrote. This version neither reads nor writes it
    (writing could break the columns and invariants the newer one added) and leaves it as
    it was.

    ``found`` is the schema version stored, ``current`` the newest this version knows.
    """

    def __init__(self, where: str, found: int, current: int) -> None:
        self.where, self.found, self.current = where, found, current
        super().__init__(
            f"{where} was written by a newer version of tiermem (schema {found}; this "
            f"version knows schemas up to {current}) and was left as it was; "
            f"{NEWER_TIERMEM}, or use the version that wrote it")

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.where, self.found, self.current))
