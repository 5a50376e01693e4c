"""tiermem's memory engine: core, recall and archival tiers on SQLite and FAISS.

``from tiermem.memory import HierarchicalMemory`` is the entry point. This package
knows nothing of agents or language models.
"""

from tiermem.memory.config import MemoryConfig
from tiermem.memory.embed.embeddings import Embedder, HashingEmbedder
from tiermem.memory.errors import (
    ClockChangeError,
    ConnectionLostError,
    EmbedderMismatchError,
    EmbedderOutputError,
    EmptyStoreFileError,
    ForgetRequestTooLongError,
    InvalidConfigError,
    InvalidInputError,
    JudgeMissingError,
    MemoryLimitError,
    NewerSchemaError,
    OlderSchemaError,
    ReadOnlyError,
    ReindexIncompleteError,
    RetentionDroppedError,
    SnapshotError,
    StoreBusyError,
    StoreClosedError,
    StoreCorruptError,
    StoredConfigError,
    StoreError,
    StoreFullError,
    StoreLockedError,
    StoreUnreachableError,
    TargetHoldsMemoryError,
    TiermemError,
    UnfinishedCopyError,
    UnfinishedMigrationError,
    UnfinishedRestoreError,
    UnfinishedStoreError,
    WriterLockError,
)
from tiermem.memory.hierarchy import HierarchicalMemory
from tiermem.memory.output_file import OutputPathError
from tiermem.memory.restore_errors import RestoreTargetHoldsMemoryError
from tiermem.memory.types import Fact, Hit, SearchResult

__all__ = [
    "ClockChangeError",
    "ConnectionLostError",
    "Embedder",
    "EmbedderMismatchError",
    "EmbedderOutputError",
    "EmptyStoreFileError",
    "Fact",
    "ForgetRequestTooLongError",
    "HashingEmbedder",
    "HierarchicalMemory",
    "Hit",
    "InvalidConfigError",
    "InvalidInputError",
    "JudgeMissingError",
    "MemoryConfig",
    "MemoryLimitError",
    "NewerSchemaError",
    "OlderSchemaError",
    "OutputPathError",
    "ReadOnlyError",
    "ReindexIncompleteError",
    "RestoreTargetHoldsMemoryError",
    "RetentionDroppedError",
    "SearchResult",
    "SnapshotError",
    "StoreBusyError",
    "StoreClosedError",
    "StoreCorruptError",
    "StoreError",
    "StoreFullError",
    "StoreLockedError",
    "StoreUnreachableError",
    "StoredConfigError",
    "TargetHoldsMemoryError",
    "TiermemError",
    "UnfinishedCopyError",
    "UnfinishedMigrationError",
    "UnfinishedRestoreError",
    "UnfinishedStoreError",
    "WriterLockError",
]
