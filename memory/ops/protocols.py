"""The parts of a memory (``HierarchicalMemory``) that several ops read, as Protocols.

Each op module names what it uses of the memory with a Protocol built from these, so
no module the facade imports imports the facade back (memory/hierarchy.py)."""

from __future__ import annotations

from typing import Protocol

from tiermem.memory.embed.embeddings import Embedder
from tiermem.memory.privacy.guard import PrivacyGuard
from tiermem.memory.search.fusion import FusionWeights
from tiermem.memory.search.query import CoreVectors
from tiermem.memory.store.contract import StorageBackend
from tiermem.memory.tiers.archival import ArchivalTier
from tiermem.memory.tiers.core import CoreTier
from tiermem.memory.tiers.recall import RecallTier


class StoredMemory(Protocol):
    """A memory's storage backend."""

    @property
    def store(self) -> StorageBackend:
        ...


class GuardedMemory(Protocol):
    """A memory's privacy policy, whether it was opened read-only, and its counters of use
    (diagnostics)."""

    @property
    def privacy(self) -> PrivacyGuard | None:
        ...

    @property
    def read_only(self) -> bool:
        ...

    @property
    def counters(self) -> dict[str, int]:
        ...


class TieredMemory(StoredMemory, Protocol):
    """A memory's backend and its three tiers."""

    @property
    def core(self) -> CoreTier:
        ...

    @property
    def archival(self) -> ArchivalTier:
        ...

    @property
    def recall(self) -> RecallTier:
        ...


class RankedMemory(TieredMemory, Protocol):
    """What ranking the items of all three tiers for a text uses (the searches, and the
    candidates of a forget request)."""

    @property
    def core_vectors(self) -> CoreVectors:
        ...

    @property
    def embedder(self) -> Embedder:
        ...

    @property
    def fusion(self) -> FusionWeights:
        ...

    def now(self) -> float:
        ...
