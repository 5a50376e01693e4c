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
import dataclasses
import json
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from tiermem.memory.config import MemoryConfig
from tiermem.memory.embed.embeddings import Embedder, default_embedder
from tiermem.memory.errors import (
    EmbedderMismatchError,
    InvalidConfigError,
    InvalidInputError,
    MemoryLimitError,
    RetentionDroppedError,
    TiermemError,
)
from tiermem.memory.judge import Judge
from tiermem.memory.ops import searches
from tiermem.memory.ops.erase import ErasureReport, PurgeAfterErasure, erasure_count
from tiermem.memory.ops.erase import erase as erase_from
from tiermem.memory.ops.forget import ForgetResult, ForgottenNorms
from tiermem.memory.ops.forget_config import ForgetConfig
from tiermem.memory.ops.reindex import check_no_reindex_pending, reembed_store
from tiermem.memory.privacy.config import PrivacyConfig
from tiermem.memory.privacy.guard import PrivacyGuard
from tiermem.memory.privacy.retention import Masked
from tiermem.memory.prompt_history import PromptHistory
from tiermem.memory.search.fusion import NEAREST_MATCHES, FusionWeights
from tiermem.memory.search.hops import HopSettings
from tiermem.memory.search.query import CoreVectors
from tiermem.memory.store.contract import StorageBackend
from tiermem.memory.store.guard import guarded
from tiermem.memory.store.opening import open_store
from tiermem.memory.store.records import ForgetRequest, HistoryPoint
from tiermem.memory.store.sqlite import DB_FILE, SQLiteStore
from tiermem.memory.text.extract import extract_facts, fact_norm
from tiermem.memory.text.tokenizer import TokenCounter
from tiermem.memory.tiers.archival import ArchivalTier, NewPassage
from tiermem.memory.tiers.core import CoreTier
from tiermem.memory.tiers.journal import InteractionClock, Journal
from tiermem.memory.tiers.lifecycle import FactLifecycle
from tiermem.memory.tiers.policies import EvictionPolicy, make_policy, score_at
from tiermem.memory.tiers.recall import NewMessage, RecallTier
from tiermem.memory.types import DURABILITIES, Fact, Hit, SearchResult
from tiermem.memory.validation import check_source_message_id, clean_text

#: The source of a fact extracted from a user message, before its turn number.
EXTRACTED = "extracted:turn:"


class HierarchicalMemory:
    """Three-tier agent memory, in one SQLite file (``path``; None: in memory), in a
    PostgreSQL database (``store`` a DSN and ``agent`` a name), or in any backend of the
    storage contract (``store`` an open one).

    Its behaviour settings form a ``MemoryConfig`` (memory/config.py), stored
    with the memory and exposed as ``config``. Each one can be given as a
    keyword argument here; what is given overrides what the store holds
    (``config`` replaces it whole, single arguments then override that) and
    is stored for the next open.

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
            ReadOnlyError, ``query`` does not count accesses, and nothing on disk changes.
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
        self.judge = judge
        self.forget_config = forget if forget is not None else ForgetConfig()
        #: The privacy policy in force (refused here, before any file is made, if unusable).
        self.privacy = PrivacyGuard(privacy, judge) if privacy is not None else None
        if config is not None and not isinstance(config, MemoryConfig):
            raise InvalidInputError("config must be a MemoryConfig")
        overrides = {
            "core_limit": core_limit, "core_limit_unit": core_limit_unit, "clock": clock,
            "tau": tau, "recall_dense": recall_dense, "fusion": fusion,
            "promote_hits": promote_hits, "recent_promote_hits": recent_promote_hits,
            "hysteresis_window": hysteresis_window,
            "policy": policy if isinstance(policy, str) or policy is None else policy.name,
        }
        if store is not None and path is not None:
            raise InvalidInputError("give a path or a store, not both")
        if agent is not None and not isinstance(store, str):
            raise InvalidInputError("agent names an agent in a PostgreSQL database: give it "
                                    "with store='postgresql://...'")
        self.path = Path(path).expanduser() if path is not None else None
        if store is None and (self.path is None or not (self.path / DB_FILE).exists()):
            # A new memory: refuse bad settings before creating any file.
            (config or MemoryConfig()).updated(**overrides)
        self.now = now
        if store is not None and not isinstance(store, str) and (
                vector_index is not None or ef_search is not None):
            raise InvalidInputError("vector_index and ef_search configure a store this memory "
                                    "opens; give them to the store object you pass instead")
        if isinstance(store, str):
            (config or MemoryConfig()).updated(**overrides)  # refused before connecting
            store = open_store(store, agent, read_only=read_only, vector_index=vector_index,
                               ef_search=ef_search)
        self.store: StorageBackend = store if store is not None else SQLiteStore(
            self.path, durability=durability, read_only=read_only,
            vector_index=vector_index or "auto", ef_search=ef_search)
        self.read_only = self.store.read_only
        try:
            # Set before _setup: shrinking core on open evicts and records history.
            self.counters = {"archival_searches": 0, "archival_searches_with_hits": 0}
            for key in self.counters:
                self.counters[key] = int(self.store.settings.get(key, "0") or 0)
            # Search counters live in memory between commits; a rolled-back turn's
            # searches must not count, so they rewind with the transaction.
            self._counters_at_begin = dict(self.counters)
            self.store.on_begin(lambda: self._counters_at_begin.update(self.counters))
            self.store.on_rollback(self._rewind_counters)
            self.config = self._effective_config(config, overrides)
            #: Facts moved to archival because core was opened smaller than what it held.
            self.moved_on_open = 0
            self._setup(policy if not isinstance(policy, str) else None, embedder,
                        store_settings)
        except BaseException:
            self.store.close()
            raise
        self._closed = False

    def _effective_config(
        self, given: MemoryConfig | None, overrides: dict[str, Any]
    ) -> MemoryConfig:
        if given is not None:
            config = given.updated(**overrides)
        else:
            config = (MemoryConfig.from_meta(self.store.settings.get, overrides)
                      or MemoryConfig().updated(**overrides))
        stored_clock = self.store.settings.get("clock")
        if stored_clock is not None and config.clock != stored_clock:
            raise InvalidConfigError(
                f"invalid memory config: clock: this memory keeps time on the {stored_clock} "
                f"clock and cannot switch to {config.clock!r} (its access times would lose "
                f"their meaning); open it with clock={stored_clock!r}, or restore a snapshot "
                f"into a new memory", ("clock",))
        return config

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

    def _setup(self, policy: EvictionPolicy | None, embedder: Embedder | None,
               store_settings: bool) -> None:
        store, config = self.store, self.config
        self.policy = policy if policy is not None else make_policy(config.policy, config.tau)
        self.embedder = embedder if embedder is not None else default_embedder()
        self._check_embedder()
        self.core_vectors = CoreVectors(self.embedder)
        self.tokenizer = TokenCounter()
        if not store.read_only:
            kept = config if store_settings else self.stored_config()
            with store.transaction():
                for key, value in kept.to_meta().items():
                    store.settings.set(key, value)
                store.settings.set("embedder_id", self.embedder.id)
                store.settings.set("embedder_dim", self.embedder.dim)
        self.core = CoreTier(store, self.policy, config.core_limit, config.core_limit_unit,
                             self.tokenizer.count)
        self.archival = ArchivalTier(
            store, self.embedder, store.vectors("passages", self.embedder.dim), config.fusion)
        recall_vectors = (
            store.vectors("messages", self.embedder.dim) if config.recall_dense else None)
        self.recall = RecallTier(store, self.embedder, recall_vectors, config.fusion)
        if self.privacy is not None:
            self.recall.screen = self.privacy.screen_messages
        self.prompt_history = PromptHistory(
            store, screen=self.retained if self.privacy is not None else None)
        self.forgotten_norms = ForgottenNorms(store)
        self.interactions = InteractionClock(config.clock, self.now)
        self.journal = Journal(store, self.interactions)
        self.lifecycle = FactLifecycle(self.core, self.archival, store.settings, self.interactions,
                                       self.journal, config, self.policy, self.tokenizer.count)
        self._reload_tick()
        store.on_rollback(self._reload_tick)
        # Created after the vector indexes, whose own commit hooks must run first.
        self.purge = PurgeAfterErasure(store, self.archival.vectors, self.recall.vectors)
        if store.read_only:
            return
        # This process holds the writer lock, so no turn is running: a message still
        # pending was left by a turn that was killed, maybe before it got its vector.
        left = self.recall.mark_pending_unanswered()
        if left:
            with contextlib.suppress(TiermemError):
                # Without a vector it is still found by its words (and the diagnostics'
                # rows_without_vectors flag says to reindex), so a failing embedder
                # must not stop the memory from opening.
                self.recall.add_vectors(left)
        self._fit_core()

    def _fit_core(self) -> None:
        """Evict per policy until core is within its limit (after opening with a smaller one)."""
        if self.core.used > self.core.limit:
            held = len(self.core)
            with self.interaction():
                self.lifecycle.make_room(None, 0)  # plan_room already counts the overflow
            self.moved_on_open = held - len(self.core)

    def stored_config(self) -> MemoryConfig:
        """The settings the store keeps for the next open (``config`` is this session's)."""
        return (MemoryConfig.from_meta(self.store.settings.get)
                or MemoryConfig(clock=self.config.clock))

    def _rewind_counters(self) -> None:
        if not self.store.in_transaction:
            self.counters.update(self._counters_at_begin)

    def _check_embedder(self) -> None:
        check_no_reindex_pending(self.store)
        stored_id = self.store.settings.get("embedder_id")
        stored_dim = int(self.store.settings.get("embedder_dim", "0") or 0)
        if stored_id is None or (stored_id == self.embedder.id and stored_dim == self.embedder.dim):
            return
        # Every passage is meant to have a vector, so passages pin the embedder even
        # when their vectors are missing (search by meaning would silently skip them).
        pinned = self.store.passages.count() > 0 or self.store.messages.has_vectors()
        if pinned:
            raise EmbedderMismatchError(stored_id, stored_dim, self.embedder.id, self.embedder.dim)

    def _reload_tick(self) -> None:
        self.interactions.tick = int(self.store.settings.get("tick", "0") or 0)
        self.journal.reload()

    @property
    def totals(self) -> dict[str, int]:
        """Evictions and promotions of every fact so far."""
        return self.journal.totals

    # -- lifecycle ------------------------------------------------------------------------
    @guarded
    def close(self) -> None:
        """Save the derived indexes and release the agent home for the next writer."""
        if self._closed:
            return
        self._closed = True
        if self.store.forked or self.read_only:  # nothing to save from here
            self.store.close()
            return
        try:
            if not self.store.in_transaction:
                with self.store.transaction():
                    for key, value in self.counters.items():
                        self.store.settings.set(key, value)
            self.archival.vectors.save()
            if self.recall.vectors is not None:
                self.recall.vectors.save()
        finally:
            self.store.close()

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
    def tick(self) -> int:
        """The number of interactions so far."""
        return self.interactions.tick

    def clock_now(self) -> float:
        return self.interactions.clock_now()

    @contextlib.contextmanager
    def interaction(self) -> Iterator[int]:
        """One interaction: advances the clock, runs as one transaction, records history."""
        with self.store.transaction():
            self.interactions.tick += 1
            self.store.settings.set("tick", self.interactions.tick)
            yield self.interactions.tick
            self._record_history()

    @contextlib.contextmanager
    def _write(self, advances_clock: bool = False) -> Iterator[None]:
        if advances_clock and not self.store.in_transaction:
            with self.interaction():
                yield
        else:
            with self.store.transaction():
                yield

    def _record_history(self) -> None:
        self.store.history.record(HistoryPoint(
            tick=self.interactions.tick, created_at=self.now(), core_facts=len(self.core),
            core_size=self.core.used, durable_in_core=self.core.durable_count,
            archival_passages=len(self.archival), recall_messages=len(self.recall),
            evictions=self.totals["evictions"], promotions=self.totals["promotions"]))
        for key, value in self.counters.items():
            self.store.settings.set(key, value)

    def record_event(self, kind: str, fact: Fact | None, detail: str = "") -> None:
        """Log what happened to a fact (add, evict, promote, ...) for timelines and audits."""
        self.journal.record(kind, fact, detail)

    # -- core -----------------------------------------------------------------------------
    def core_tokens(self) -> int:
        """Tokens of all core facts' text (whatever the limit's unit)."""
        return self.core.tokens

    @guarded
    def add_fact(self, text: str, durability: str = "durable", source: str = "user", *,
                 source_message_id: int | None = None) -> int:
        """Put a fact in core, evicting per policy; returns its id.

        ``source_message_id`` names the recall message the fact was learned from:
        erasing that message erases the fact too.

        Re-adding the same normalised text counts as an access of the existing
        fact (and may update its durability) instead of duplicating it. A fact
        that alone exceeds ``core_limit`` raises MemoryLimitError and changes
        nothing. When the policy protects every possible victim (durable facts
        against a short-lived newcomer), the new fact goes to archival instead.
        A fact the privacy policy drops raises RetentionDroppedError and is stored nowhere.
        """
        text = clean_text(text, "fact")
        if durability not in DURABILITIES:
            raise InvalidInputError(
                f"durability must be 'durable' or 'short-lived', got {durability!r}"
            )
        if not isinstance(source, str):
            raise InvalidInputError("source must be a string")
        if self.privacy is not None:
            self.privacy.check_write(text, what="fact")
        check_source_message_id(source_message_id)
        norm = fact_norm(text)
        size = self.core.size_of_text(text)
        existing = self.core.find_by_norm(norm)
        if existing is None and size > self.core.limit:
            raise MemoryLimitError(
                f"this fact is {size} {self.core.unit} but core holds at most {self.core.limit}; "
                f"shorten it, or store it in archival with archival_insert"
            )
        with self._write(advances_clock=True):
            if existing is not None:
                return self.lifecycle.reassert(existing, durability)
            if not source.startswith(EXTRACTED):
                # Stated explicitly: a fact forgotten before is stored again, and extraction
                # may find it again too (memory/ops/forget.py).
                self.forgotten_norms.lift(norm)
            return self.lifecycle.admit(text, norm, durability, source, size,
                                        source_message_id)

    @guarded
    def replace_in_core(self, old_content: str, new_content: str) -> int:
        """Edit the one core fact containing ``old_content``; returns its id.

        ``old_content`` must occur exactly once across core. An empty result
        retires the fact to archival, marked superseded (never deletes it). The edit is validated
        before anything changes: if it cannot fit even after evicting what the
        policy allows, MemoryLimitError is raised and core is untouched.
        """
        old = clean_text(old_content, "old_content")
        if not isinstance(new_content, str):
            raise InvalidInputError("new_content must be a string")
        matches = [f for f in self.core if old in f.text]
        if not matches:
            raise InvalidInputError(
                f"no core fact contains {old!r}; copy the text exactly as core shows it"
            )
        if len(matches) > 1 or matches[0].text.count(old) > 1:
            listed = "; ".join(f"#{f.id}: {f.text[:60]!r}" for f in matches)
            raise InvalidInputError(
                f"{old!r} matches more than one place ({listed}); quote more of the fact"
            )
        if self.privacy is not None and new_content.strip():
            self.privacy.check_write(matches[0].text.replace(old, new_content, 1).strip(),
                                     what="fact")
        with self._write():
            return self.lifecycle.edit(matches[0], old, new_content)

    @guarded
    def fact(self, fact_id: int) -> Fact | None:
        """A fact by id, in core or archived."""
        return self.core.load(fact_id)

    @guarded
    def facts(self) -> list[Fact]:
        """Every fact ever added, in either tier."""
        return self.core.all_rows()

    def fact_score(self, fact: Fact) -> float:
        """Frequency x recency now (for display; eviction uses the policy's key)."""
        return score_at(fact, self.clock_now(), self.tau)

    # -- interactions -----------------------------------------------------------------------
    @guarded
    def process_interaction(
        self, user_input: str, agent_response: str, *, created_at: float | None = None,
        speaker: str = "User",
    ) -> list[int]:
        """Log both messages to recall and add the facts extracted from the user's text.

        Returns the ids of the facts added or re-asserted. Under a privacy policy, a
        sentence its retention layer drops is stored as ``[withheld: CATEGORY]`` and no
        fact is extracted from it.
        """
        user = self._masked(clean_text(user_input, "user_input"))
        reply = self._masked(clean_text(agent_response, "agent_response"))
        fact_ids: list[int] = []
        with self.interaction() as turn:
            user_id, _ = self.recall.append_many([
                NewMessage("user", user.text, turn, created_at=created_at),
                NewMessage("assistant", reply.text, turn, created_at=created_at),
            ])
            for extracted in extract_facts(user.kept, speaker=speaker):
                if fact_norm(extracted.text) in self.forgotten_norms:
                    continue  # forgotten on request: only an explicit add_fact stores it again
                with contextlib.suppress(MemoryLimitError, RetentionDroppedError):
                    fact_ids.append(self.add_fact(extracted.text, extracted.durability,
                                                  source=f"{EXTRACTED}{turn}",
                                                  source_message_id=user_id))
        return fact_ids

    def _masked(self, text: str) -> Masked:
        return self.privacy.mask(text) if self.privacy is not None else Masked(text, text)

    def retained(self, text: str) -> str:
        """``text`` as memory may keep it: what the privacy policy drops is withheld."""
        return self._masked(text).text

    # -- privacy ----------------------------------------------------------------------------
    def set_retention_policy(self, policies: Sequence[str]) -> None:
        """Replace the retention layer's active policy statements (never appends).

        See ``memory.privacy.guard.PrivacyGuard.set_retention_policy``; a memory opened
        without a privacy policy raises InvalidConfigError.
        """
        if self.privacy is None:
            raise InvalidConfigError(
                "this memory has no privacy policy to change: open it with privacy= "
                "(memory.privacy.load_policy), or on the command line with --policy FILE",
                ("privacy",))
        self.privacy.set_retention_policy(policies)

    def core_shown(self, request: str = "") -> list[tuple[Fact, str]]:
        """Core's facts with the text the prompt may show for ``request`` (the current
        query): a fact the privacy policy withholds shows as ``[withheld: CATEGORY]``."""
        facts = list(self.core)
        if self.privacy is None:
            return [(f, f.text) for f in facts]
        return list(zip(facts, self.privacy.core_view(request, facts), strict=True))

    # -- archival and recall ----------------------------------------------------------------
    @guarded
    def archival_insert(
        self, text: str, tags: Sequence[str] | None = None,
        metadata: dict[str, Any] | None = None, source: str = "agent",
        created_at: float | None = None, *, source_message_id: int | None = None,
    ) -> int:
        """File a passage in archival; returns its id (RetentionDroppedError, storing nothing,
        when the privacy policy drops it).

        ``source_message_id`` names the recall message the passage was filed from:
        erasing or forgetting that message takes the passage too.
        """
        if isinstance(tags, str):  # list("ops") would file it under 'o', 'p' and 's'
            raise InvalidInputError("tags must be a list of strings, like ['billing', 'acme']")
        check_source_message_id(source_message_id)
        if self.privacy is not None:
            self.privacy.check_write(clean_text(text, "passage"), metadata if isinstance(
                metadata, dict) else None, what="passage")
        return self.archival.insert_many([NewPassage(
            text=text, tags=list(tags or []), metadata=metadata or {}, source=source,
            created_at=created_at, source_message_id=source_message_id)])[0]

    @guarded
    def archival_search(
        self, query: str, k: int = 10, page: int = 1, tags: Sequence[str] | None = None,
        start: Any = None, end: Any = None, hop: HopSettings | None = None, *,
        query_embedder: Embedder | None = None, nearest: int = NEAREST_MATCHES,
        touch: bool = False,
    ) -> SearchResult:
        """Hybrid search of archival; ``hop`` adds a second round (memory.search.hops).
        ``query_embedder`` embeds the query in place of the memory's embedder (the same
        model): ``query()`` passes one that embeds each text once for all the tiers it
        searches. The ``nearest`` passages nearest in meaning match even somewhat below
        the embedder's threshold when fewer clear it (memory.search.fusion); ``query()``
        passes 0, as it ranks every tier on a scale that starts at the threshold.
        With ``touch``, the page's archived facts that match strongly count as hits toward
        promotion, as in ``query(touch=True)`` (memory.ops.searches.count_used); without,
        nothing changes."""
        result = searches.archival_page(self, query, k, page, tags, start, end, hop,
                                        query_embedder, nearest)
        self.counters["archival_searches"] += 1
        self.counters["archival_searches_with_hits"] += bool(result.total)
        if touch:
            searches.count_used(self, query, result.hits)
        return result

    @guarded
    def recall_search(
        self, query: str, k: int = 10, page: int = 1, roles: Sequence[str] | None = None,
        start: Any = None, end: Any = None, before_id: int | None = None,
        hop: HopSettings | None = None, *, query_embedder: Embedder | None = None,
    ) -> SearchResult:
        """Search the conversation log; ``before_id`` leaves out that message and later ones;
        ``hop`` adds a second round (memory.search.hops); ``query_embedder`` is as for
        ``archival_search``."""
        return searches.recall_page(self, query, k, page, roles, start, end, before_id, hop,
                                    query_embedder)

    @guarded
    def query(self, q: str, k: int = 10, touch: bool = True,
              hop: HopSettings | None = None) -> list[Hit]:
        """Search all three tiers: the best ``k`` hits on one scale, best first.

        Every tier is scored with the same hybrid formula. A core fact that
        matches strongly (it holds every content word of the query, or its
        embedding is at least ``strong_similarity(embedder)`` from the query's)
        is never cut by ``k``: it takes the place of the weakest other hit, and
        if more than ``k`` match strongly the ``k`` best-scoring are kept.
        Weaker core matches, such as facts sharing only a name with the query,
        compete on score (memory.search.query says why).

        With ``touch``, returned core facts count as accessed and archived
        facts count as hits toward promotion (each once per interaction);
        a read-only memory never counts them. Under a privacy policy, hits its
        recall layer withholds for ``q`` are left out, as from every search.
        ``hop`` adds a second round from the first's best hits (memory.search.hops);
        core's matches among the first round's ``k`` keep their places.
        """
        hits = searches.query_all(self, clean_text(q, "query", max_chars=10_000), k, hop)
        if touch and not self.read_only:
            with self._write():
                self.lifecycle.count_use(h.fact_id for h in hits if h.fact_id is not None)
        return hits

    # -- forgetting -------------------------------------------------------------------------
    @guarded
    def forget(self, request: str, *, mode: str | None = None,
               max_delete_count: int | None = None, erase: bool = False) -> ForgetResult:
        """Forget the stored items ``request`` targets (memory/ops/forget.py).

        ``mode`` (``exact``, ``top_k_llm`` or ``exact_then_top_k_llm``) and
        ``max_delete_count`` override ``forget_config`` for this request. The LLM modes
        ask ``judge``; without one they raise InvalidInputError. Nothing is forgotten
        unless the outcome is ``matched``; every request is audited. ``erase`` then
        erases what was forgotten (``erase``), with what was derived from it; the
        result's ``erasure`` reports it.
        """
        from tiermem.memory.ops.forget import run_forget

        config = self.forget_config.updated(mode=mode, max_delete_count=max_delete_count)
        result = run_forget(self, request, config, self.judge)
        if not erase or result.outcome != "matched":
            return result
        done = result.forgotten
        # The reason names the audit row, never the request, which quotes what went.
        report = self.erase(facts=done.facts, passages=done.passages, messages=done.messages,
                            reason=f"forget request #{result.audit_id}")
        return dataclasses.replace(result, erasure=report)

    def erase_forgotten(self, reason: str = "erasing what was forgotten") -> ErasureReport:
        """Erase every row forgotten so far (the audit lists them), with what was derived
        from them: for tombstones left by forget requests made without ``erase``."""
        facts: set[int] = set()
        passages: set[int] = set()
        messages: set[int] = set()
        for request in self.forget_requests():
            facts.update(request.forgotten.facts)
            passages.update(request.forgotten.passages)
            messages.update(request.forgotten.messages)
        return self.erase(facts=sorted(facts), passages=sorted(passages),
                          messages=sorted(messages), reason=reason)

    @guarded
    def forget_requests(self, newest: int | None = None) -> list[ForgetRequest]:
        """The audit of forget requests, oldest first (or the ``newest``, newest first)."""
        return self.store.forgetting.requests(newest)

    # -- state for the layers above ---------------------------------------------------------
    @guarded
    def get_state(self, key: str, default: Any = None) -> Any:
        """A JSON value that a caller (e.g. an agent runtime) stored with ``set_state``."""
        raw = self.store.settings.get(f"state.{key}")
        return default if raw is None else json.loads(raw)

    @guarded
    def set_state(self, key: str, value: Any) -> None:
        """Store a JSON value in the current transaction (or its own)."""
        with self._write():
            self.store.settings.set(f"state.{key}", json.dumps(value))

    @guarded
    def last_event_id(self) -> int:
        return self.store.history.last_event_id()

    @guarded
    def events_since(self, event_id: int) -> list[dict[str, Any]]:
        """Fact events (add, evict, promote, bypass, replace, ...) after ``event_id``.

        Events store no text; ``text`` is the fact's text as it is now ("" for a fact
        erased since), so an edit or an erasure leaves no old copy to read here.
        """
        events = self.store.history.events_since(event_id)
        texts: dict[int, str] = {}
        for fact_id in {e.fact_id for e in events if e.fact_id is not None}:
            fact = self.core.load(fact_id)
            texts[fact_id] = fact.text if fact is not None else ""
        return [{"id": e.id, "tick": e.tick, "kind": e.kind, "fact_id": e.fact_id,
                 "text": texts.get(e.fact_id, "") if e.fact_id is not None else "",
                 "detail": e.detail, "created_at": e.created_at}
                for e in events]

    # -- snapshots and diagnostics ----------------------------------------------------------
    @guarded
    def snapshot(self, include_vectors: bool = True) -> dict[str, Any]:
        """Everything in this memory as JSON-serialisable data."""
        from tiermem.memory.ops.snapshot import take_snapshot

        return take_snapshot(self, include_vectors=include_vectors)

    @classmethod
    def restore(
        cls, snapshot: dict[str, Any], path: str | Path | None = None,
        embedder: Embedder | None = None, *, replace: bool = False,
        store: StorageBackend | str | None = None, agent: str | None = None,
    ) -> HierarchicalMemory:
        """A memory rebuilt exactly from ``snapshot()`` output, at ``path``.

        The snapshot is validated first; anything wrong with it raises
        SnapshotError and writes nothing. A directory that already holds a
        memory is refused unless ``replace``; then the old memory stays
        whole until the new one is complete, and a failed or killed restore
        leaves it as it was (memory/store/sqlite/restore.py). With ``store`` (an open
        backend, or a PostgreSQL DSN with ``agent``) instead of ``path``, the rows are
        written in one transaction of it.
        """
        from tiermem.memory.ops.snapshot import restore_snapshot

        if store is not None and path is not None:
            raise InvalidInputError("give a path or a store, not both")
        if store is None and path is None:
            store = SQLiteStore(None)
        elif isinstance(store, str):
            store = open_store(store, agent)
        return restore_snapshot(cls, snapshot, path, embedder, replace, store)

    @classmethod
    def reindex(
        cls, path: str | Path | None = None, embedder: Embedder | None = None, *,
        store: str | None = None, agent: str | None = None, **options: Any
    ) -> HierarchicalMemory:
        """Re-embed every passage and message of the memory at ``path`` (or of agent
        ``agent`` in the PostgreSQL database ``store``) with ``embedder``.

        Texts are untouched; only the derived vectors change. If the process
        stops half-way, the memory refuses to open until reindex is run again,
        which continues where it stopped (memory/ops/reindex.py).
        """
        embedder = embedder if embedder is not None else default_embedder()
        if (path is None) == (store is None):
            raise InvalidInputError("give the path of an agent home or a store, one of them")
        backend = (open_store(store, agent) if store is not None
                   else SQLiteStore(Path(path).expanduser()))  # type: ignore[arg-type]
        try:
            reembed_store(backend, embedder, options.get("recall_dense", True))
        finally:
            backend.close()
        if store is not None:
            return cls(store=store, agent=agent, embedder=embedder, **options)
        return cls(path, embedder=embedder, **options)

    @guarded
    def diagnostics(self) -> dict[str, Any]:
        """Health report: core composition, eviction and promotion rates, growth, red flags."""
        from tiermem.memory.ops.diagnostics import compute_diagnostics

        return compute_diagnostics(self)
