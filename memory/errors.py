"""The exceptions tiermem raises to its caller.

Every message says what went wrong and what to do about it. Tool-level errors
that go back to a language model are plain text produced by ``tools/``; these
classes are for Python callers.
"""

from __future__ import annotations

from typing import Any

#: How to get a newer tiermem: it is installed from its checkout, not from a package
#: index, where the name may be another project's.
NEWER_TIERMEM = ("install a newer tiermem the way this one was installed (update the "
                 "checkout and run `python -m pip install .` in it)")


class TiermemError(Exception):
    """Base class of every error tiermem raises on purpose."""


class InvalidInputError(TiermemError, ValueError):
    """Text, arguments or names that tiermem cannot accept as given."""


class MemoryLimitError(TiermemError):
    """An edit that could not fit in core even after eviction; nothing changed."""


class StoreError(TiermemError):
    """The agent home or its database cannot be used as asked; the message says why."""


class StoreLockedError(StoreError):
    """Another live process holds the agent home for writing."""

    def __init__(self, path: str, holder_pid: int | None, *,
                 exited_pid: int | None = None) -> None:
        self.path = path
        self.holder_pid = holder_pid
        self.exited_pid = exited_pid
        if holder_pid:
            who = f"process {holder_pid}"
        elif exited_pid:
            # The lock outlived the process that took it: something it started holds it.
            who = (f"another process (process {exited_pid}, which took the lock, has exited; "
                   f"a process it started still holds it)")
        else:
            who = "another process"
        #: What is held and by whom, without the advice (the command line gives its own).
        self.situation = f"agent home {path} is open for writing by {who}"
        super().__init__(
            f"{self.situation}; close that session (or wait for it to exit) and try again, "
            f"or open it with read_only=True to inspect it"
        )

    def __reduce__(self) -> tuple[Any, ...]:
        # By its parts: the default rebuilds an exception from its message alone.
        return (_rebuild_store_locked,
                (type(self), self.path, self.holder_pid, self.exited_pid))


def _rebuild_store_locked(cls: type[StoreLockedError], path: str, holder_pid: int | None,
                          exited_pid: int | None) -> StoreLockedError:
    return cls(path, holder_pid, exited_pid=exited_pid)


class WriterLockError(StoreError):
    """The agent home's writer lock file cannot be opened (its permissions, a read-only
    file system); ``path`` is the lock file and ``reason`` what the system said."""

    def __init__(self, path: str, reason: str) -> None:
        self.path, self.reason = path, reason
        #: What failed, without the advice (the command line gives its own).
        self.situation = f"cannot open the writer lock {path}: {reason}"
        super().__init__(
            f"{self.situation}; check that the agent home is writable by this user, or open "
            f"it with read_only=True to inspect it")

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.path, self.reason))


class EmbedderMismatchError(TiermemError):
    """The store was built with a different embedder than the one given."""

    def __init__(self, stored: str, stored_dim: int, given: str, given_dim: int) -> None:
        self.stored, self.stored_dim = stored, stored_dim
        self.given, self.given_dim = given, given_dim
        super().__init__(
            f"this memory was embedded with '{stored}' (dim {stored_dim}) but the embedder "
            f"given is '{given}' (dim {given_dim}); open it with the original embedder, or "
            f"re-embed it first with HierarchicalMemory.reindex(path, embedder) (a "
            f"PostgreSQL memory: reindex(embedder=embedder, store=dsn, agent=name))"
        )

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.stored, self.stored_dim, self.given, self.given_dim))


class EmbedderOutputError(TiermemError):
    """An embedder returned vectors tiermem cannot store or search with: the wrong shape
    or number of rows, or values that are not finite numbers. Nothing was stored."""


class ReindexIncompleteError(TiermemError):
    """A reindex was started and not finished; the store holds vectors of two embedders.
    ``running``: the process running it still holds the memory (a reader was told)."""

    def __init__(self, target: str, done: int, total: int, running: bool = False) -> None:
        self.target, self.done, self.total, self.running = target, done, total, running
        if running:
            super().__init__(
                f"a reindex of this memory to the embedder '{target}' is running ({done} of "
                f"{total} passages so far); search by meaning cannot work until it finishes: "
                f"wait for it, then open the memory again")
            return
        super().__init__(
            f"a reindex of this memory to the embedder '{target}' was interrupted after "
            f"{done} of {total} passages; search by meaning cannot work until it finishes. "
            f"Call HierarchicalMemory.reindex(path, embedder) again (a PostgreSQL memory: "
            f"reindex(embedder=embedder, store=dsn, agent=name)) with the embedder it was "
            f"started with, '{target}'; it continues where it stopped")

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.target, self.done, self.total, self.running))


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


class ConnectionLostError(StoreError):
    """The database connection of a memory ended (a server restart, a network cut): what
    the last transaction wrote was not committed. ``situation`` says what was lost and
    ``check`` how to look at the server; opening the memory again connects anew."""

    def __init__(self, situation: str, check: str) -> None:
        self.situation, self.check = situation, check
        super().__init__(f"{situation}. Check the server ({check}) and open the memory again")

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.situation, self.check))


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


class TargetHoldsMemoryError(StoreError):
    """A migration into a store that already holds a memory; nothing was copied. ``where``
    names the target, ``tables`` the tables that hold rows there."""

    def __init__(self, where: str, tables: tuple[str, ...]) -> None:
        self.where, self.tables = where, tuple(tables)
        #: What was found, without the advice (the command line gives its own).
        self.situation = f"{where} already holds a memory ({', '.join(self.tables)})"
        super().__init__(
            f"{self.situation}; migrate into a new agent or an empty database, or delete "
            f"that agent first (PostgreSQL: delete_agent(dsn, name) from "
            f"tiermem.memory.store.postgres.removal; an agent home: remove its directory)")

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.where, self.tables))


class StoreClosedError(StoreError):
    """The memory was closed; it must be opened again before use."""


class StoreCorruptError(StoreError):
    """The SQLite database itself is unreadable (the derived index is rebuilt instead)."""


class StoreBusyError(StoreError):
    """Another process holds a lock on the memory's database file itself (a program that
    opened it without tiermem, such as the sqlite3 shell inside a transaction), so SQLite
    could not read or write it in time; what was being done was not saved."""


class ReadOnlyError(StoreError):
    """A write to a memory opened with ``read_only=True``; nothing changed."""


class StoreFullError(StoreError):
    """The disk holding the agent home is full; the write that hit it was rolled back."""


class InvalidConfigError(InvalidInputError):
    """A memory setting out of range or of the wrong type; ``fields`` names each one."""

    def __init__(self, message: str, fields: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.fields = fields


class ClockChangeError(InvalidConfigError):
    """A session asked for another clock than the one the memory keeps time on; the clock
    is fixed when a memory is created. ``stored`` and ``asked`` name the two clocks."""

    def __init__(self, stored: str, asked: str) -> None:
        self.stored, self.asked = stored, asked
        #: What cannot be done and why, without the advice (the command line gives its own).
        self.situation = (f"keeps time on the {stored} clock and cannot switch to {asked!r} "
                          f"(its access times would lose their meaning)")
        super().__init__(
            f"invalid memory config: clock: this memory {self.situation}; open it with "
            f"clock={stored!r}, or restore a snapshot into a new memory", ("clock",))

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.stored, self.asked))


def forget_mode_asks(mode: str) -> str:
    """When forget ``mode`` (one that asks a model) asks one: always in top_k_llm, only for a
    request no stored text equals in exact_then_top_k_llm."""
    if mode == "exact_then_top_k_llm":
        return "asks a model when no stored text equals the request"
    return "asks a model which stored items the request targets"


class JudgeMissingError(InvalidConfigError):
    """A forget request that ``mode`` would have a model judge, on a memory with no judge;
    it was audited as failed and nothing was forgotten."""

    def __init__(self, mode: str) -> None:
        self.mode = mode
        super().__init__(
            f"mode {mode!r} {self.asks}, and none is configured: give HierarchicalMemory a "
            f"judge (judge=ModelJudge(client)), configure a model for the agent (TIERMEM_MODEL, "
            f"and OPENAI_BASE_URL for a local server), or use mode 'exact', which needs none",
            ("judge",))

    @property
    def asks(self) -> str:
        """When the mode asks a model, for each entry point's own remedies to follow."""
        return forget_mode_asks(self.mode)

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.mode,))


class ForgetRequestTooLongError(InvalidInputError):
    """A forget request of ``chars`` characters that ``mode`` would have a model judge, over
    the ``limit`` a model is asked to judge; nothing was forgotten or audited.

    ``situation`` says what was refused, without the remedies, so that a command line or a
    chat can name its own ways to forget a text this long."""

    def __init__(self, chars: int, mode: str, limit: int) -> None:
        self.chars, self.mode, self.limit = chars, mode, limit
        super().__init__(
            f"{self.situation}; a longer text is forgotten in mode 'exact', which needs no "
            f"model, given whole as stored, or erased by its id (HierarchicalMemory.erase)")

    @property
    def situation(self) -> str:
        unmatched = ", and no stored text equals it" if self.mode == "exact_then_top_k_llm" else ""
        return (f"forget request is {self.chars:,} characters, over the {self.limit:,} a model "
                f"is asked to judge (mode {self.mode!r}{unmatched})")

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.chars, self.mode, self.limit))


class SnapshotError(InvalidInputError):
    """A snapshot that cannot be restored as given; ``fields`` names each place at fault.

    Nothing was written: a restore into a directory leaves it as it was.
    """

    def __init__(self, message: str, fields: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.fields = fields


class RetentionDroppedError(TiermemError):
    """The privacy policy's retention layer refused to store an item; nothing was written.

    ``category`` is what the item was dropped for and ``rule_id`` the rule that
    matched it (None when a judge decided alone).
    """

    def __init__(self, what: str, category: str, rule_id: str | None, by: str) -> None:
        self.what, self.category, self.rule_id, self.by = what, category, rule_id, by
        reason = f"rule {rule_id!r}" if rule_id and by == "rules" else by
        super().__init__(
            f"not stored: the privacy policy keeps {category} information out of memory "
            f"({reason}); nothing was written. Leave that detail out of the {what}, or "
            f"change the policy's rules")

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.what, self.category, self.rule_id, self.by))
