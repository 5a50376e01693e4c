"""What every battery check runs with: its options and a memory to run them on."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tiermem.memory import HashingEmbedder, HierarchicalMemory

DEFAULT_POLICY = "freq_recency_durable"


@dataclass(frozen=True)
class BatteryOptions:
    seed: int = 0
    quick: bool = False
    policy: str = DEFAULT_POLICY


def open_memory(path: Path | None, policy: str, **options: Any) -> HierarchicalMemory:
    """A memory on the deterministic hashing embedder."""
    return HierarchicalMemory(path, policy=policy, embedder=HashingEmbedder(), **options)
