"""The exceptions tiermem raises to its caller.

Every message says what went wrong and what to do about it. Tool-level errors
that go back to a language model are plain text produced by ``tools/``; these
classes are for Python callers. The roots (memory/error_base.py) and the refusals of a
schema or a creation that is not this version's (memory/schema_errors.py) are defined apart
and imported from here like the rest.
"""

from __future__ import annotations

from typing import Any

from tiermem.memory.error_base import (  # noqa: F401
    NEWER_TIERMEM,
    InvalidInputError,
    MemoryLimitError,
    StoreError,
    TiermemError,
)
from tiermem.memory.schema_errors import (  # noqa: F401
    EMPTY_FILE_CAUSES,
    EmptyStoreFileError,
    NewerSchemaError,
    OlderSchemaError,
    UnfinishedCopyError,
    UnfinishedMigrationError,
    UnfinishedRestoreError,
    UnfinishedStoreError,
)

#: Said of a lock's holder that is the process refused.
THIS_PROCESS = ", this process: a memory it opened there is not closed"


class StoreLockedError(StoreError):
    """Another live process holds the agent home for writing."""

    def __init__(self, path: str, holder_pid: int | None, *,
                 exited_pid: int | None = None, this_process: bool = False) -> None:
        self.path = path
        self.holder_pid = holder_pid
        self.exited_pid = exited_pid
        #: Whether the holder is a memory the refused process itself still has open.
        self.this_process = this_process
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
        # Waiting for one's own process to exit never ends: the memory must be closed.
        advice = ("close() that memory (or end its with block) before opening the home again"
                  if this_process else "close that session (or wait for it to exit) and try again")
        super().__init__(f"{self.situation}{THIS_PROCESS if this_process else ''}; {advice}, "
                         f"or open it with read_only=True to inspect it")

    def __reduce__(self) -> tuple[Any, ...]:
        # By its parts: the default rebuilds an exception from its message alone.
        return (_rebuild_store_locked, (type(self), self.path, self.holder_pid,
                                        self.exited_pid, self.this_process))


def _rebuild_store_locked(cls: type[StoreLockedError], path: str, holder_pid: int | None,
                          exited_pid: int | None, this_process: bool = False
                          ) -> StoreLockedError:
    return cls(path, holder_pid, exited_pid=exited_pid, this_process=this_process)


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


class ConnectionLostError(StoreError):
    """The database connection of a memory ended (a server restart, a network cut): what
    the last transaction wrote was not committed. ``situation`` says what was lost and
    ``check`` how to look at the server; opening the memory again connects anew."""

    def __init__(self, situation: str, check: str) -> None:
        self.situation, self.check = situation, check
        super().__init__(f"{situation}. Check the server ({check}) and open the memory again")

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.situation, self.check))


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


class StoreUnreachableError(StoreError):
    """The memory's database server could not be connected to (down, unreachable, or
    refusing this user or database): another attempt at once would wait and fail again."""


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


class StoredConfigError(InvalidConfigError):
    """A setting the memory stores cannot be read (no version writes such a value: its
    database was edited by hand). ``settings`` names each one; ``situation`` is the message
    without the advice (the command line gives its own)."""

    def __init__(self, situation: str, fields: tuple[str, ...],
                 settings: tuple[str, ...]) -> None:
        self.situation, self.settings = situation, settings
        given = ", ".join(f"{name}=..." for name in settings)
        super().__init__(f"{situation}, as the memory stores it; open the memory with an "
                         f"explicit {given} to replace it", fields)

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.situation, self.fields, self.settings))


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
