"""Count the work an operation does, so a complexity check never depends on machine load.

Two counters, both exact and independent of how busy the machine is:

- Python function calls (and calls into C functions) in this thread, from
  ``sys.setprofile``: an O(n) scan in Python shows up as n calls;
- SQLite virtual-machine instructions on the memory's connection, from its
  progress handler: a table scan shows up as instructions per row.

Comparing these at two sizes tells O(log n) from O(n) the way a timing ratio
would, without the noise: the same code does the same count every run.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from types import FrameType
from typing import Any

from tiermem.bench.sqlite_only import sqlite_store
from tiermem.memory import HierarchicalMemory

#: The progress handler fires once per this many SQLite VM instructions.
_SQLITE_STEP = 100


@dataclass
class Work:
    python_calls: int = 0
    sqlite_steps: int = 0

    def per(self, operations: int) -> dict[str, float]:
        return {"python_calls": round(self.python_calls / operations, 2),
                "sqlite_steps": round(self.sqlite_steps / operations, 2)}


@contextmanager
def counting_work(memory: HierarchicalMemory) -> Iterator[Work]:
    """Count the work done in this thread and on ``memory``'s connection inside the block."""
    work = Work()

    def on_event(frame: FrameType, event: str, arg: Any) -> None:
        if event in ("call", "c_call"):
            work.python_calls += 1

    def on_steps() -> int:
        work.sqlite_steps += _SQLITE_STEP
        return 0  # carry on

    connection = sqlite_store(memory).conn
    connection.set_progress_handler(on_steps, _SQLITE_STEP)
    previous = sys.getprofile()
    sys.setprofile(on_event)
    try:
        yield work
    finally:
        sys.setprofile(previous)
        connection.set_progress_handler(None, 0)


def growth(small: dict[str, float], large: dict[str, float]) -> float:
    """How many times more work per operation the larger size does, on the worse counter."""
    return round(max(large[name] / max(small[name], 1.0) for name in small), 3)
