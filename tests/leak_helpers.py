"""Where a memory still shows a text: every read path a user or a model can reach."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path
from typing import Any

from memory_helpers import make_memory

from tiermem.bench.fault_os import Report, run_forked
from tiermem.memory.hierarchy import HierarchicalMemory


def read_paths_showing(memory: HierarchicalMemory, text: str,
                       query: str | None = None) -> list[str]:
    """The read paths (core, query, archival and recall search, events, history,
    diagnostics, stored state, snapshot) whose output holds ``text`` (case-insensitive).

    ``query`` is what the searches ask (default: ``text`` itself).
    """
    wanted = text.casefold()
    asked = query or text
    outputs: dict[str, Any] = {
        "core": [f.text for f in memory.core],
        "facts": [f.text for f in memory.facts()],
        "query": [h.text for h in memory.query(asked, k=50, touch=False)],
        "archival_search": [h.text for h in memory.archival_search(asked, k=50).hits],
        "recall_search": [h.text for h in memory.recall_search(asked, k=50).hits],
        "events": memory.events_since(0),
        "history": [p.__dict__ for p in memory.store.history.points()],
        "diagnostics": memory.diagnostics(),
        "state": memory.store.settings.items("state."),
        "snapshot": memory.snapshot(include_vectors=False),
    }
    return [name for name, value in outputs.items()
            if wanted in json.dumps(value, default=str).casefold()]


def files_holding(home: Path, canary: str) -> list[str]:
    """The files under ``home`` whose bytes hold the canary, or the end of it (a full-text
    index stores a term after the prefix it shares with the term before it)."""
    needles = {canary.encode(), canary.upper().encode(), canary[-12:].encode()}
    return sorted(str(path.relative_to(home)) for path in home.rglob("*")
                  if path.is_file() and any(n in path.read_bytes() for n in needles))


def owe_an_erasure(home: Path, secret: str) -> None:
    """A memory at ``home`` holding ``secret`` and a fact that stays, whose forget of
    ``secret`` with ``erase=True`` committed and was killed before its erasure."""
    with make_memory(home) as memory:
        memory.add_fact(secret, "durable")
        memory.add_fact("User likes tea", "durable")

    def forget_then_die(report: Report) -> None:
        memory = make_memory(home)
        # The forget has committed when the erasure starts deleting: the process dies there.
        memory.archival.delete = lambda ids: os.kill(os.getpid(), signal.SIGKILL)  # type: ignore[method-assign]
        memory.forget(secret, erase=True)
        report("survived the kill")

    outcome = run_forked(forget_then_die)
    assert outcome.killed and outcome.lines == []
