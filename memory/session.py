"""A ``HierarchicalMemory``'s session: opening it (the backend its arguments name, the
settings in force, and the tiers, indexes and hooks built on them) and closing it.

The facade's constructor runs the opening steps in order. Bad arguments and, for a new
memory, bad settings are refused before any file is made or any connection opened; a
store that cannot be used with the embedder given is refused before anything is written
to it.

They build and read the memory through ``OpenedMemory``, the part of it they use, so this
module does not import the facade that imports it.
"""

from __future__ import annotations

import contextlib
import os
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, Protocol

from tiermem.memory.config import MemoryConfig
from tiermem.memory.embed.checked import checked
from tiermem.memory.embed.embeddings import Embedder, check_embedder_argument, default_embedder
from tiermem.memory.errors import (
    ClockChangeError,
    EmbedderMismatchError,
    InvalidConfigError,
    InvalidInputError,
    StoreError,
    TiermemError,
)
from tiermem.memory.judge import Judge
from tiermem.memory.ops.erase import ErasedMemory, PurgeAfterErasure, resume_erasures
from tiermem.memory.ops.forget_config import ForgetConfig
from tiermem.memory.ops.forgotten_norms import ForgottenNorms
from tiermem.memory.ops.protocols import GuardedMemory
from tiermem.memory.ops.reindex import check_no_reindex_pending
from tiermem.memory.prompt_history import PromptHistory
from tiermem.memory.search.query import CoreVectors
from tiermem.memory.store.contract import StorageBackend
from tiermem.memory.store.opening import open_store
from tiermem.memory.store.sqlite import DB_FILE, SQLiteStore
from tiermem.memory.store.transfer import check_filled
from tiermem.memory.text.tokenizer import TokenCounter
from tiermem.memory.tiers.archival import ArchivalTier
from tiermem.memory.tiers.core import CoreTier
from tiermem.memory.tiers.journal import InteractionClock, Journal
from tiermem.memory.tiers.lifecycle import FactLifecycle
from tiermem.memory.tiers.policies import EvictionPolicy, make_policy, policy_names
from tiermem.memory.tiers.recall import RecallTier
from tiermem.user_paths import expanded, unknown_home


class OpenedMemory(ErasedMemory, GuardedMemory, Protocol):
    """What opening and closing use of a memory (``HierarchicalMemory``): the members
    ``build_tiers`` sets, and those it and ``close_session`` read."""

    policy: EvictionPolicy
    config: MemoryConfig
    embedder: Embedder
    core_vectors: CoreVectors
    tokenizer: TokenCounter
    core: CoreTier
    archival: ArchivalTier
    recall: RecallTier
    prompt_history: PromptHistory
    forgotten_norms: ForgottenNorms
    interactions: InteractionClock
    journal: Journal
    lifecycle: FactLifecycle
    purge: PurgeAfterErasure
    moved_on_open: int
    erased_on_open: list[int]

    def now(self) -> float:
        ...

    def stored_config(self) -> MemoryConfig:
        ...

    def retained(self, text: str) -> str:
        ...

    def interaction(self) -> AbstractContextManager[int]:
        ...


def check_open_arguments(*, judge: object, forget: object, config: object, embedder: object,
                         policy: object) -> None:
    """Refuse an argument of ``HierarchicalMemory`` of the wrong kind, before anything is
    opened or made: used unchecked, a wrong judge or forget setting surfaced only at the
    first forget, as an AttributeError or a failed request."""
    if judge is not None and not isinstance(judge, Judge):
        raise InvalidInputError(
            f"judge must have an ask(system, user) method that returns the model's answer "
            f"(memory.judge.Judge; tiermem.agent.judge.ModelJudge(client) is one), or be "
            f"None; got {type(judge).__name__}")
    if forget is not None and not isinstance(forget, ForgetConfig):
        raise InvalidInputError(
            f"forget must be a ForgetConfig (memory.ops.forget_config; "
            f"forget_config_from_file(path) reads one from a policy file), or None for "
            f"mode exact; got {type(forget).__name__}")
    if config is not None and not isinstance(config, MemoryConfig):
        raise InvalidInputError("config must be a MemoryConfig")
    check_embedder_argument(embedder)
    if policy is None or isinstance(policy, str):
        return
    name = getattr(policy, "name", None)
    if not isinstance(name, str):
        raise InvalidInputError(f"policy must be a policy's name or an EvictionPolicy; got "
                                f"{type(policy).__name__}")
    if name not in policy_names():
        # Only its name is stored, and a reopen finds the policy by it.
        raise InvalidConfigError(
            f"eviction policy {name!r} is not registered; register it first with "
            f"tiermem.memory.tiers.policies.register_policy({name!r}, lambda tau: "
            f"{type(policy).__name__}(...)), then pass it or its name", ("policy",))


def open_backend(
    path: str | Path | None, store: StorageBackend | str | None, agent: str | None,
    config: MemoryConfig | None, overrides: dict[str, Any], *, durability: str,
    read_only: bool, vector_index: str | None, ef_search: int | None,
) -> tuple[Path | None, StorageBackend]:
    """The agent home (``path`` expanded) and the backend the constructor's arguments name:
    ``store`` itself, the PostgreSQL agent its DSN and ``agent`` name, or the SQLite file
    at ``path`` (in memory when None)."""
    if store is not None and path is not None:
        raise InvalidInputError("give a path or a store, not both")
    if agent is not None and not isinstance(store, str):
        raise InvalidInputError("agent names an agent in a PostgreSQL database: give it "
                                "with store='postgresql://...'")
    if path is not None and not isinstance(path, (str, os.PathLike)):
        raise InvalidInputError(f"path must be a directory path (str or Path), or None for a "
                                f"memory held in RAM; got {type(path).__name__}")
    if path is not None and not str(path).strip():
        # An unset variable expanded to "": the working directory is never meant.
        raise InvalidInputError("path is empty; give the agent home's directory, or None "
                                "for a memory held in RAM")
    if path is not None and str(path).strip() == ":memory:":
        # SQLite's name for a database in RAM: read as a directory, it became one in the
        # working directory, kept after the process ended.
        raise InvalidInputError("path ':memory:' is SQLite's name for a database in RAM; "
                                "here path is the agent home's directory: give None for a "
                                "memory held in RAM")
    home = expanded(path) if path is not None else None
    if path is not None and (unknown := unknown_home(path)) is not None:
        raise InvalidInputError(f"path {str(path)!r}: {unknown}; give the agent home's "
                                f"directory")
    if store is None and (home is None or not (home / DB_FILE).exists()):
        # A new memory: refuse bad settings before creating any file.
        (config or MemoryConfig()).updated(**overrides)
    if store is not None and not isinstance(store, str) and (
            vector_index is not None or ef_search is not None):
        raise InvalidInputError("vector_index and ef_search configure a store this memory "
                                "opens; give them to the store object you pass instead")
    if isinstance(store, str):
        (config or MemoryConfig()).updated(**overrides)  # refused before connecting
        store = open_store(store, agent, read_only=read_only, vector_index=vector_index,
                           ef_search=ef_search)
    backend = store if store is not None else SQLiteStore(
        home, durability=durability, read_only=read_only,
        vector_index=vector_index or "auto", ef_search=ef_search)
    return home, backend


def search_counters(store: StorageBackend) -> dict[str, int]:
    """Archival's search counters as ``store`` keeps them, rewound with its transactions."""
    counters = {"archival_searches": 0, "archival_searches_with_hits": 0}

    def read() -> None:
        for key in counters:
            counters[key] = int(store.settings.get(key, "0") or 0)

    read()
    store.on_change_elsewhere(read)  # a read-only session: the counts the writer last saved
    # The counters live in memory between commits; a rolled-back turn's searches must
    # not count, so they rewind with the transaction.
    at_begin = dict(counters)
    store.on_begin(lambda: at_begin.update(counters))

    def rewind() -> None:
        if not store.in_transaction:
            counters.update(at_begin)

    store.on_rollback(rewind)
    return counters


def effective_config(
    store: StorageBackend, given: MemoryConfig | None, overrides: dict[str, Any]
) -> MemoryConfig:
    """This session's settings: ``given`` (else what ``store`` holds, else the defaults)
    with ``overrides`` applied; a change of clock is refused, and so is a core of another
    size on a read-only memory, which could not evict to fit it."""
    if given is not None:
        config = given.updated(**overrides)
    else:
        config = (MemoryConfig.from_meta(store.settings.get, overrides)
                  or MemoryConfig().updated(**overrides))
    stored_clock = store.settings.get("clock")
    if stored_clock is not None and config.clock != stored_clock:
        raise ClockChangeError(stored_clock, config.clock)
    stored = _stored_core(store, overrides) if store.read_only else None
    if stored is not None and (config.core_limit, config.core_limit_unit) != (
            stored.core_limit, stored.core_limit_unit):
        raise InvalidConfigError(
            f"this memory is open read-only, so its core keeps the size its writer set "
            f"({stored.core_limit} {stored.core_limit_unit}), not {config.core_limit} "
            f"{config.core_limit_unit}: a reader shows the core its writer keeps and cannot "
            f"resize it; leave core_limit and core_limit_unit out, or open it for writing to "
            f"change them",
            ("core_limit",))
    return config


def follow_stored_settings(memory: OpenedMemory, given: MemoryConfig | None,
                           overrides: dict[str, Any], policy: EvictionPolicy | None) -> None:
    """Make a read-only ``memory`` take the settings its writer stores, whenever it catches
    up: a writer opened since with another ``core_limit`` has a core of that size, and a
    reader measuring it by the old one reported it at 350% of its limit. The settings the
    reader was opened with explicitly still win, as they did at the open, but for the
    core's size (its writer's), and ``recall_dense`` stays the open's: whether recall has
    a vector index is decided when it opens. ``policy`` is the policy object it was
    given, if any."""
    store = memory.store

    def follow() -> None:
        try:
            stored = MemoryConfig.from_meta(store.settings.get)
        except InvalidConfigError:
            stored = None
        if stored is None:
            return  # none stored, or damaged: the open's settings stand
        kept = {"core_limit": stored.core_limit, "core_limit_unit": stored.core_limit_unit,
                "recall_dense": memory.lifecycle.config.recall_dense}
        try:
            config = (given or stored).updated(**overrides).updated(**kept)
        except InvalidConfigError:
            config = stored.updated(**kept)  # the reader's own no longer fit: the writer's
        if config == memory.lifecycle.config:  # memory.config's value, read without a catch-up
            return
        memory.config = memory.lifecycle.config = config
        if policy is None:
            memory.policy = memory.lifecycle.policy = make_policy(config.policy, config.tau)
        memory.archival.weights = memory.recall.weights = config.fusion
        memory.core.reconfigure(config.core_limit, config.core_limit_unit, memory.policy)

    store.on_change_elsewhere(follow)


def _stored_core(store: StorageBackend, overrides: dict[str, Any]) -> MemoryConfig | None:
    """The stored settings, with the caller's explicit ones but the core size, to compare
    the core size with; None when there are none, or when the stored core size is itself
    damaged (then nothing can be compared)."""
    others = {k: v for k, v in overrides.items() if k not in ("core_limit", "core_limit_unit")}
    try:
        return MemoryConfig.from_meta(store.settings.get, others)
    except InvalidConfigError:
        return None


def check_embedder(store: StorageBackend, embedder: Embedder) -> None:
    """Refuse ``embedder`` when ``store`` holds vectors of another one (or a reindex, or a
    migrate or restore into it, is unfinished)."""
    check_filled(store)
    check_no_reindex_pending(store)
    stored_id = store.settings.get("embedder_id")
    stored_dim = int(store.settings.get("embedder_dim", "0") or 0)
    if stored_id is None or (stored_id == embedder.id and stored_dim == embedder.dim):
        return
    # Every passage is meant to have a vector, so passages pin the embedder even
    # when their vectors are missing (search by meaning would silently skip them).
    pinned = store.passages.count() > 0 or store.messages.has_vectors()
    if pinned:
        raise EmbedderMismatchError(stored_id, stored_dim, embedder.id, embedder.dim)


def build_tiers(memory: OpenedMemory, policy: EvictionPolicy | None,
                embedder: Embedder | None, store_settings: bool) -> None:
    """Give ``memory`` (its store and config set) its tiers, indexes and hooks, store its
    settings, and tidy what an earlier session left: a killed turn's pending messages,
    and a core larger than the limit it is opened with."""
    store, config = memory.store, memory.config
    memory.policy = policy if policy is not None else make_policy(config.policy, config.tau)
    memory.embedder = checked(embedder if embedder is not None else default_embedder())
    check_embedder(store, memory.embedder)
    # A read-only session whose writer re-embedded the memory cannot read its vectors.
    store.on_change_elsewhere(lambda: check_embedder(store, memory.embedder), check=True)
    memory.core_vectors = CoreVectors(memory.embedder)
    memory.tokenizer = TokenCounter()
    kept = None if store.read_only else (config if store_settings else memory.stored_config())
    # Before core, whose eviction keys read the clock: a fact read after it counts as read
    # now. The tick is loaded here too, so core's first keys are taken at the right time.
    memory.interactions = InteractionClock(config.clock, memory.now)
    memory.interactions.tick = int(store.settings.get("tick", "0") or 0)
    memory.core = CoreTier(store, memory.policy, config.core_limit, config.core_limit_unit,
                           memory.tokenizer.count, memory.interactions.clock_now)
    memory.archival = ArchivalTier(
        store, memory.embedder, store.vectors("passages", memory.embedder.dim), config.fusion)
    recall_vectors = (
        store.vectors("messages", memory.embedder.dim) if config.recall_dense else None)
    memory.recall = RecallTier(store, memory.embedder, recall_vectors, config.fusion)
    if memory.privacy is not None:
        memory.recall.screen = memory.privacy.screen_messages
    memory.prompt_history = PromptHistory(
        store, screen=memory.retained if memory.privacy is not None else None)
    memory.forgotten_norms = ForgottenNorms(store)
    memory.journal = Journal(store, memory.interactions)
    memory.lifecycle = FactLifecycle(memory.core, memory.archival, store.settings,
                                     memory.interactions, memory.journal, config,
                                     memory.policy, memory.tokenizer.count)
    _reload_tick(memory)
    store.on_rollback(lambda: _reload_tick(memory))
    # Created after the vector indexes, whose own commit hooks must run first.
    memory.purge = PurgeAfterErasure(store, memory.archival.vectors, memory.recall.vectors)
    if store.read_only:
        return
    # Before the pending messages get their vectors: the store refuses a vector whose size
    # is not the stored dimension, and an embedder check_embedder let in may have another.
    with store.transaction():
        _store_changed(store, {"embedder_id": memory.embedder.id,
                               "embedder_dim": str(memory.embedder.dim)})
    # This process holds the writer lock, so no turn is running: a message still
    # pending was left by a turn that was killed, maybe before it got its vector.
    left = memory.recall.mark_pending_unanswered()
    if left:
        with contextlib.suppress(TiermemError):
            # Without a vector it is still found by its words (and the diagnostics'
            # rows_without_vectors flag says to reindex), so a failing embedder
            # must not stop the memory from opening.
            memory.recall.add_vectors(left)
    # A forget asked to erase that committed without its erasure (the process was killed
    # between them) is erased now, before anything can read or copy what it forgot.
    memory.erased_on_open = resume_erasures(memory)
    # The settings and the evictions a smaller core needs commit together: stored alone,
    # a kill between the two left a core over its stored limit.
    with store.transaction():
        assert kept is not None
        _store_changed(store, kept.to_meta())
        _fit_core(memory)


def _store_changed(store: StorageBackend, values: dict[str, str]) -> None:
    """Write each of ``values`` the store does not already hold: one setting changed is
    one written, and the others stand as they were written."""
    for key, value in values.items():
        if store.settings.get(key) != value:
            store.settings.set(key, value)


def _fit_core(memory: OpenedMemory) -> None:
    """Evict per policy until core is within its limit (after opening with a smaller one)."""
    if memory.core.used > memory.core.limit:
        held = len(memory.core)
        with memory.interaction():
            memory.lifecycle.make_room(None, 0)  # plan_room already counts the overflow
        memory.moved_on_open = held - len(memory.core)


def _reload_tick(memory: OpenedMemory) -> None:
    memory.interactions.tick = int(memory.store.settings.get("tick", "0") or 0)
    memory.journal.reload()


def close_session(memory: OpenedMemory) -> None:
    """Save the search counters and the derived indexes, then close the store (a forked or
    read-only session has nothing to save)."""
    store = memory.store
    if store.forked or memory.read_only:
        store.close()
        return
    try:
        if not store.in_transaction:
            # The search counters feed diagnostics only: a session that may no longer write
            # (its writer lock taken over) closes without them rather than failing.
            with contextlib.suppress(StoreError), store.transaction():
                for key, value in memory.counters.items():
                    store.settings.set(key, value)
        for vectors in (memory.archival.vectors, memory.recall.vectors):
            if vectors is not None:
                # The saved index only spares the next open a rebuild from the database,
                # which it does when the files are missing or do not match: a full disk
                # here is no reason for the close to fail.
                with contextlib.suppress(OSError):
                    vectors.save()
    finally:
        store.close()
