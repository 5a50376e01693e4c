"""tiermem's memory engine: core, recall and archival tiers on SQLite and FAISS.

``from memory import HierarchicalMemory`` is the entry point. This package
knows nothing of agents or language models.
"""

from memory.config import MemoryConfig
from memory.embed.embeddings import Embedder, HashingEmbedder
from memory.errors import (
    EmbedderMismatchError,
    InvalidConfigError,
    InvalidInputError,
    MemoryLimitError,
    ReadOnlyError,
    ReindexIncompleteError,
    SnapshotError,
    StoreCorruptError,
    StoreError,
    StoreFullError,
    StoreLockedError,
    TiermemError,
)
from memory.hierarchy import HierarchicalMemory
from memory.types import Fact, Hit, SearchResult

__all__ = [
    "Embedder",
    "EmbedderMismatchError",
    "Fact",
    "HashingEmbedder",
    "HierarchicalMemory",
    "Hit",
    "InvalidConfigError",
    "InvalidInputError",
    "MemoryConfig",
    "MemoryLimitError",
    "ReadOnlyError",
    "ReindexIncompleteError",
    "SearchResult",
    "SnapshotError",
    "StoreCorruptError",
    "StoreError",
    "StoreFullError",
    "StoreLockedError",
    "TiermemError",
]
