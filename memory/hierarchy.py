"""``HierarchicalMemory``: core, recall and archival behind one object.

Time is logical by default: the clock is the interaction count, so eviction
order is deterministic in tests. ``process_interaction``, a standalone
``add_fact`` and each ``interaction()`` block advance it by one; searches and
archival inserts do not. With ``clock="wall"`` recency is measured in seconds.

Every public write runs in one transaction of the store (a savepoint when an
interaction is already open), so a failure leaves memory as it was. The store
is any backend of the storage contract (memory/store/contract/); a path
opens the SQLite one.
"""

from __future__ import annotations

import contextlib
import copy
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from tiermem.memory.config import MemoryConfig
from tiermem.memory.embed.embeddings import Embedder
from tiermem.memory.errors import InvalidInputError
from tiermem.memory.judge import Judge
from tiermem.memory.ops import privacy_view, searches, state, writes
from tiermem.memory.ops.diagnostics import compute_diagnostics
from tiermem.memory.ops.erase import ErasureReport, PurgeAfterErasure, erasure_count
from tiermem.memory.ops.erase import erase as erase_from
from tiermem.memory.ops.erase import erase_forgotten as erase_all_forgotten
from tiermem.memory.ops.forget import forget_request
from tiermem.memory.ops.forget_config import ForgetConfig
from tiermem.memory.ops.forgotten_norms import ForgottenNorms
from tiermem.memory.privacy.config import PrivacyConfig
from tiermem.memory.privacy.guard import PrivacyGuard
from tiermem.memory.prompt_history import PromptHistory
from tiermem.memory.search.fusion import FusionWeights
from tiermem.memory.search.query import CoreVectors
from tiermem.memory.session import (
    build_tiers,
    check_open_arguments,
    close_session,
    effective_config,
    follow_stored_settings,
    open_backend,
    search_counters,
)
from tiermem.memory.snapshots_and_reindex import SnapshotsAndReindex
from tiermem.memory.store.contract import StorageBackend
from tiermem.memory.store.guard import guarded, guarded_close, read_fresh
from tiermem.memory.text.tokenizer import TokenCounter
from tiermem.memory.tiers.archival import ArchivalTier
from tiermem.memory.tiers.core import CoreTier
from tiermem.memory.tiers.journal import InteractionClock, Journal
from tiermem.memory.tiers.lifecycle import FactLifecycle
from tiermem.memory.tiers.policies import EvictionPolicy, score_at
from tiermem.memory.tiers.recall import RecallTier
from tiermem.memory.types import Fact
from tiermem.memory.validation import check_flag, check_stored_id, checked_clock


class HierarchicalMemory(SnapshotsAndReindex):
    """Three-tier agent memory, in one SQLite file (``path``; None: in memory), in a
    PostgreSQL database (``store`` a DSN and ``agent`` a name), or in any backend of the
    storage contract (``store`` an open one).

    Its behaviour settings form a ``MemoryConfig`` (memory/config.py), stored
    with the memory and exposed as ``config``. Each one can be given as a
    keyword argument here; what is given overrides what the store holds
    (``config`` replaces it whole, single arguments then override its defaults; a
    setting the config sets otherwise must not be given another value, else
    InvalidConfigError) and is stored for the next open.

    Args:
        path: the agent home directory, or None for a throwaway in-memory store.
        store: a PostgreSQL DSN (``postgresql://...``, with ``agent``), or an open backend
            (memory.store.contract.StorageBackend), to use instead of ``path``; the memory
            owns it from then on and closes it.
        agent: the agent's name in the PostgreSQL database ``store`` names (one database
            holds many agents; a new name creates one).
        core_limit: core's capacity in ``core_limit_unit`` (default 2000, or as stored).
        core_limit_unit: ``"tokens"`` (cl100k tokens of the facts' text) or ``"facts"``.
        policy: an eviction policy name (see memory.tiers.policies) or an EvictionPolicy
            whose name is registered (the name is stored, and reopening looks it up).
        embedder: defaults to the local MiniLM model shipped on PyPI.
        config: every setting at once.
        clock: ``"logical"`` (interaction count) or ``"wall"`` (Unix seconds).
        tau: recency decay constant in clock units (default 50 interactions / 1 day).
        recall_dense: also embed user and assistant messages for recall search.
        fusion: weights of lexical and dense ranks in hybrid search.
        promote_hits: hits an archived fact needs to return to core.
        recent_promote_hits: hits needed when it was evicted within ``hysteresis_window``.
        hysteresis_window: interactions after an eviction during which that higher bar applies.
        durability: ``"normal"`` (a crash of the process loses no commit) or ``"full"``
            (a power loss or a lost ``-wal`` file does not either; each write is slower).
        read_only: inspect an existing home without the writer lock (so while another
            session writes to it): searches and reports work, every write raises
            ReadOnlyError, ``query`` does not count accesses, and nothing tiermem keeps on
            disk changes (SQLite may add the ``-wal`` and ``-shm`` files it reads a
            database in WAL mode through). Each call first catches up with what the
            writer has committed since the last (``StorageBackend.catch_up``).
        store_settings: store the settings given here for the next open (the default);
            False applies them to this session only and leaves the stored ones as they
            were (a new memory stores the defaults).
        privacy: a privacy policy (memory.privacy.load_policy) enforced on every write
            (retention) and read (recall) of this session; None: none.
        judge: the model asked bounded questions (memory.judge.Judge): a policy's hybrid
            and llm modes, and which items a ``forget`` request targets in its LLM modes.
        forget: how ``forget`` selects what to delete (memory.ops.forget_config), for
            this session; the default is mode ``exact``.
        vector_index: how the store this memory opens searches for the nearest vectors:
            ``"exact"``, ``"hnsw"`` (approximate) or ``"auto"`` (by size; SQLite's default),
            for this session (memory.store.vector_choice); None: the DSN's, or auto.
        ef_search: how many candidates an HNSW search keeps (default 100).
    """

    # Built on open (memory/session.py), for the ops and the layers above.
    policy: EvictionPolicy
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

    def __init__(
        self,
        path: str | Path | None = None,
        core_limit: int | None = None,
        core_limit_unit: str | None = None,
        policy: str | EvictionPolicy | None = None,
        embedder: Embedder | None = None,
        *,
        config: MemoryConfig | None = None,
        clock: str | None = None,
        tau: float | None = None,
        recall_dense: bool | None = None,
        fusion: FusionWeights | None = None,
        promote_hits: int | None = None,
        recent_promote_hits: int | None = None,
        hysteresis_window: float | None = None,
        now: Callable[[], float] = time.time,
        durability: str = "normal",
        read_only: bool = False,
        store_settings: bool = True,
        store: StorageBackend | str | None = None,
        agent: str | None = None,
        privacy: PrivacyConfig | None = None,
        judge: Judge | None = None,
        forget: ForgetConfig | None = None,
        vector_index: str | None = None,
        ef_search: int | None = None,
    ) -> None:
        check_open_arguments(judge=judge, forget=forget, config=config, embedder=embedder,
                             policy=policy)
        self.judge = judge
        self.forget_config = forget if forget is not None else ForgetConfig()
        #: The privacy policy in force (refused here, before any file is made, if unusable).
        self.privacy = PrivacyGuard(privacy, judge) if privacy is not None else None
        overrides = {
            "core_limit": core_limit, "core_limit_unit": core_limit_unit, "clock": clock,
            "tau": tau, "recall_dense": recall_dense, "fusion": fusion,
            "promote_hits": promote_hits, "recent_promote_hits": recent_promote_hits,
            "hysteresis_window": hysteresis_window,
            "policy": policy if isinstance(policy, str) or policy is None else policy.name,
        }
        if config is not None:
            config.given_once(overrides)
        self.now = checked_clock(now)
        self.path, self.store = open_backend(
            path, store, agent, config, overrides, durability=durability,
            read_only=check_flag(read_only, "read_only"), vector_index=vector_index,
            ef_search=ef_search)
        self.read_only = self.store.read_only
        try:
            # Set before the tiers: shrinking core on open evicts and records history.
            self.counters = search_counters(self.store)
            self.config = effective_config(self.store, config, overrides)
            #: Facts moved to archival because core was opened smaller than what it held.
            self.moved_on_open = 0
            #: The forget requests whose owed erasure this open finished (audit ids).
            self.erased_on_open: list[int] = []
            given_policy = policy if not isinstance(policy, str) else None
            build_tiers(self, given_policy, embedder, store_settings)
            if self.read_only:
                follow_stored_settings(self, config, overrides, given_policy)
        except BaseException:
            self.store.close()
            raise
        self._closed = False

    @property
    def config(self) -> MemoryConfig:
        """This session's settings; a reader's are its writer's as last stored (memory/
        session.py, follow_stored_settings), so it catches up first, as its calls do."""
        if self.read_only and getattr(self, "_closed", True) is False:  # opened, not closed
            read_fresh(self.store)
        return self._config

    @config.setter
    def config(self, config: MemoryConfig) -> None:
        self._config = config

    # The settings, as attributes for the tiers and the layers above.
    @property
    def clock(self) -> str:
        return self.config.clock

    @property
    def tau(self) -> float:
        return self.config.tau

    @property
    def core_limit_unit(self) -> str:
        return self.config.core_limit_unit

    @property
    def fusion(self) -> FusionWeights:
        return self.config.fusion

    @property
    def promote_hits(self) -> int:
        return self.config.promote_hits

    @property
    def recent_promote_hits(self) -> int:
        return self.config.recent_promote_hits

    @property
    def hysteresis_window(self) -> float:
        return self.config.hysteresis_window

    def stored_config(self) -> MemoryConfig:
        """The settings the store keeps for the next open (``config`` is this session's)."""
        return (MemoryConfig.from_meta(self.store.settings.get)
                or MemoryConfig(clock=self.config.clock))

    @property
    @guarded
    def totals(self) -> dict[str, int]:
        """Evictions and promotions of every fact so far (a copy)."""
        return dict(self.journal.totals)

    # -- lifecycle ------------------------------------------------------------------------
    @guarded_close
    def close(self) -> None:
        """Save the derived indexes and release the agent home for the next writer."""
        if self._closed:
            return
        self._closed = True
        close_session(self)

    # -- erasure ------------------------------------------------------------------------------
    @guarded
    def erase(self, *, facts: Sequence[int] = (), passages: Sequence[int] = (),
              messages: Sequence[int] = (), reason: str) -> ErasureReport:
        """Remove facts, passages and messages for good, with what was derived from them.

        Erasing a message erases the facts learned from it and the passages filed from
        it; erasing a fact erases the passages made from it; stored state (the agent's
        summary) loses the lines that quote what went. When no transaction is open, the
        storage is purged before this returns, so the content is in none of the files
        tiermem wrote (within a transaction, once it commits). The report holds counts
        and a digest, never the content; ``reason`` is recorded with each erased message
        (memory/ops/erase.py).
        """
        return erase_from(self, facts, passages, messages, reason)

    @guarded
    def erasure_count(self) -> int:
        """How many erasures and forget requests removed something so far (a layer above
        that keeps its own copies, such as a summary, compares it to rebuild them)."""
        return erasure_count(self)

    def __enter__(self) -> HierarchicalMemory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- clock and interactions -----------------------------------------------------------
    @property
    @guarded
    def tick(self) -> int:
        """The number of interactions so far."""
        return self.interactions.tick

    @guarded
    def clock_now(self) -> float:
        return self.interactions.clock_now()

    @contextlib.contextmanager
    def interaction(self) -> Iterator[int]:
        """One interaction: advances the clock, runs as one transaction, records history."""
        with self.store.transaction():
            self.interactions.tick += 1
            self.store.settings.set("tick", self.interactions.tick)
            yield self.interactions.tick
            writes.record_history(self)

    def record_event(self, kind: str, fact: Fact | None, detail: str = "") -> None:
        """Log what happened to a fact (add, evict, promote, ...) for timelines and audits."""
        self.journal.record(kind, fact, detail)

    # -- core -----------------------------------------------------------------------------
    @guarded
    def core_tokens(self) -> int:
        """Tokens of all core facts' text (whatever the limit's unit)."""
        return self.core.tokens

    @guarded
    def fact(self, fact_id: int) -> Fact | None:
        """A fact by id, in core or archived (a copy: changing it changes no memory)."""
        found = self.core.load(check_stored_id(fact_id, "fact_id", "a fact id"))
        return copy.copy(found) if found is not None else None

    @guarded
    def facts(self) -> list[Fact]:
        """Every fact ever added, in either tier (copies, as ``fact`` returns)."""
        # Core's own objects would let a caller's edit change the prompt and the limit's
        # accounting without the database knowing.
        return [copy.copy(f) for f in self.core.all_rows()]

    @guarded
    def fact_score(self, fact: Fact) -> float:
        """Frequency x recency now (for display; eviction uses the policy's key)."""
        if not isinstance(fact, Fact):
            raise InvalidInputError(
                f"fact must be a Fact, as facts() or fact(id) returns, got "
                f"{type(fact).__name__}; fact(id) returns None for an id that names no fact")
        return score_at(fact, self.clock_now(), self.tau)

    # -- writes of content (memory/ops/writes.py documents them) -----------------------------
    add_fact = guarded(writes.add_fact)
    replace_in_core = guarded(writes.replace_in_core)
    process_interaction = guarded(writes.process_interaction)
    archival_insert = guarded(writes.archival_insert)
    archival_holding = guarded(writes.archival_holding)

    # -- privacy (memory/ops/privacy_view.py documents these) --------------------------------
    retained = guarded(privacy_view.retained)
    set_retention_policy = guarded(privacy_view.set_retention_policy)
    core_shown = guarded(privacy_view.core_shown)
    texts_shown = guarded(privacy_view.texts_shown)

    # -- searches (memory/ops/searches.py documents them) ------------------------------------
    archival_search = guarded(searches.archival_search)
    recall_search = guarded(searches.recall_search)
    query = guarded(searches.query)

    # -- forgetting -------------------------------------------------------------------------
    forget = guarded(forget_request)

    def erase_forgotten(self, reason: str = "erasing what was forgotten") -> ErasureReport:
        """Erase every row forgotten so far (the audit lists them), with what was derived
        from them: for tombstones left by forget requests made without ``erase``."""
        return erase_all_forgotten(self, reason)

    # -- state and logs for the layers above (memory/ops/state.py documents them) -----------
    get_state = guarded(state.get_state)
    set_state = guarded(state.set_state)
    last_event_id = guarded(state.last_event_id)
    events_since = guarded(state.events_since)
    forget_requests = guarded(state.forget_requests)

    # -- diagnostics (snapshots, restore and reindex: memory/snapshots_and_reindex.py) ----
    diagnostics = guarded(compute_diagnostics)
