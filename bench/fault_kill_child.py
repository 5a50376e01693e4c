"""The writers that the SIGKILL loops kill, run in a forked child (bench/fault_os.py).

Each writer reports ``READY`` once its memory is open, then ``KIND MARKER``
after every operation returned, that is, after its transaction committed.
Every text it writes carries ``[MARKER]``, so the parent can look each
operation up after the kill.

A writer dies in one of two ways, both fixed by the seed and blind to machine
load: the parent kills it after reading N reports, or a ``Tripwire`` kills it
from inside, just before its K-th step. Steps are SQL statements (COMMIT
included; sqlite3's, or those psycopg sends to PostgreSQL), FAISS index writes
and file renames, so K lands anywhere in an operation: mid-transaction, before
COMMIT, between an index file and its sidecar.

A writer's place is an agent home (a directory) or a ``PgAgent`` (an agent in
a PostgreSQL database); the workloads are the same on both.
"""

from __future__ import annotations

import itertools
import os
import random
import signal
import sqlite3
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import faiss

from tiermem.agent.loop import Agent
from tiermem.agent.scripted import ScriptedModel, call, calls
from tiermem.bench.fault_audit import Place, stored_embedder
from tiermem.bench.postgres_only import PgAgent
from tiermem.bench.workload import durable_sentence, short_lived_sentence
from tiermem.memory import HashingEmbedder, HierarchicalMemory

Report = Callable[[str], None]
CORE_LIMIT = 120
DIM = 64
UNIT_FACTS = 6
UNIT_PASSAGES = 3
#: Share of operations after which a writer closes and reopens (kills then land in saves).
REOPEN_SHARE = 0.05


class Tripwire:
    """Counts this process's steps and SIGKILLs it just before step ``at``."""

    def __init__(self, at: int) -> None:
        self.at = at
        self.steps = 0

    def step(self) -> None:
        self.steps += 1
        if self.steps == self.at:
            os.kill(os.getpid(), signal.SIGKILL)

    def counting(self, function: Callable[..., Any]) -> Callable[..., Any]:
        def counted(*args: Any, **kwargs: Any) -> Any:
            self.step()
            return function(*args, **kwargs)
        return counted

    def arm(self) -> None:
        """Count every statement, index write and rename from now on (in this process only)."""
        connect = sqlite3.connect
        sqlite3.connect = lambda *a, **k: _CountedConnection(connect(*a, **k), self)  # type: ignore[assignment]
        os.replace = self.counting(os.replace)
        faiss.write_index = self.counting(faiss.write_index)
        if "psycopg" in sys.modules:  # a SQLite-only install has none to count
            import psycopg

            # The connection's execute runs through a cursor's: counted once there.
            psycopg.Cursor.execute = self.counting(psycopg.Cursor.execute)  # type: ignore[method-assign]
            psycopg.Cursor.executemany = self.counting(  # type: ignore[method-assign]
                psycopg.Cursor.executemany)


class _CountedConnection:
    """A sqlite3 connection whose statements are tripwire steps."""

    def __init__(self, conn: sqlite3.Connection, wire: Tripwire) -> None:
        object.__setattr__(self, "_conn", conn)
        object.__setattr__(self, "execute", wire.counting(conn.execute))
        object.__setattr__(self, "executemany", wire.counting(conn.executemany))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._conn, name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self._conn, name, value)


def open_memory(home: Place, embedder: HashingEmbedder | None = None) -> HierarchicalMemory:
    embedder = embedder or HashingEmbedder(DIM)
    if isinstance(home, PgAgent):
        return HierarchicalMemory(store=home.dsn, agent=home.agent, core_limit=CORE_LIMIT,
                                  embedder=embedder)
    return HierarchicalMemory(home, core_limit=CORE_LIMIT, embedder=embedder)


def reindex(home: Place, embedder: HashingEmbedder) -> HierarchicalMemory:
    """``HierarchicalMemory.reindex`` of the memory at ``home``."""
    if isinstance(home, PgAgent):
        return HierarchicalMemory.reindex(store=home.dsn, agent=home.agent, embedder=embedder,
                                          core_limit=CORE_LIMIT)
    return HierarchicalMemory.reindex(home, embedder, core_limit=CORE_LIMIT)


def restore(snapshot: dict[str, Any], target: Place) -> HierarchicalMemory:
    """``HierarchicalMemory.restore`` of ``snapshot`` into ``target``."""
    if isinstance(target, PgAgent):
        return HierarchicalMemory.restore(snapshot, embedder=HashingEmbedder(DIM),
                                          store=target.dsn, agent=target.agent)
    return HierarchicalMemory.restore(snapshot, target, embedder=HashingEmbedder(DIM))


# -- agent turns ---------------------------------------------------------------------------
def _agent(home: Place, model: ScriptedModel) -> Agent:
    return Agent(open_memory(home), model)


def turns(home: Place, trial: int, rng: random.Random, report: Report) -> None:
    """Agent turns: each files a core fact and a passage, then replies; one transaction."""
    model = ScriptedModel(context_window=16_384)
    agent = _agent(home, model)
    report("READY")
    for i in itertools.count():
        marker = f"k{trial}o{i}"
        model.add(
            calls(("core_memory_append", {"content": f"Kill fact [{marker}] "
                                          f"{short_lived_sentence(rng)}",
                                          "durability": rng.choice(("durable", "short-lived")),
                                          "request_heartbeat": True}),
                  ("archival_memory_insert", {"content": f"Kill note [{marker}] "
                                              f"{durable_sentence(rng)}", "tags": ["kill"],
                                              "request_heartbeat": True})),
            call("send_message", message=f"Reply [{marker}] noted."))
        agent.step(f"Turn [{marker}]: please remember this.")
        report(f"turn {marker}")
        if rng.random() < REOPEN_SHARE:
            agent.memory.close()
            agent = _agent(home, model)


# -- batches of writes, interactions and erasures ------------------------------------------
def talk_text(marker: str) -> str:
    """The user's side of the interaction ``marker``."""
    return f"Talk [{marker}]: the production region for {marker} is eu-west-1."


def batches(home: Place, trial: int, rng: random.Random, report: Report) -> None:
    """Single writes, multi-write units, interactions, and erasures of earlier interactions:
    directly, or by a forget asked to erase (forgotten in one transaction, erased in the
    next, so a kill between the two leaves the erasure owed to the next open)."""
    memory = open_memory(home)
    talks: list[str] = []
    report("READY")
    for i in itertools.count():
        marker = f"b{trial}o{i}"
        kind = rng.choice(("fact", "passage", "talk", "unit", "unit", "erase", "forget"))
        if kind in ("erase", "forget") and not talks:
            kind = "talk"
        if kind == "fact":
            memory.add_fact(f"Batch fact [{marker}] {short_lived_sentence(rng)}",
                            rng.choice(("durable", "short-lived")))
        elif kind == "passage":
            memory.archival_insert(f"Batch passage [{marker}] {durable_sentence(rng)}")
        elif kind == "talk":
            memory.process_interaction(talk_text(marker), f"Noted [{marker}].")
            talks.append(marker)
        elif kind == "unit":
            with memory.interaction():
                for j in range(UNIT_FACTS):
                    memory.add_fact(f"Unit fact [{marker}] item {j}",
                                    rng.choice(("durable", "short-lived")))
                    if j < UNIT_PASSAGES:
                        memory.archival_insert(f"Unit passage [{marker}] part {j}")
        elif kind == "forget":  # the user's message only: the reply does not quote it
            marker = talks.pop(rng.randrange(len(talks)))
            memory.forget(talk_text(marker), erase=True)
        else:
            marker = talks.pop(rng.randrange(len(talks)))
            ids = [r["id"] for r in memory.recall.iter_rows() if f"[{marker}]" in r["content"]]
            memory.recall.erase(ids, f"erase [{marker}]")
        report(f"{kind} {marker}")
        if rng.random() < REOPEN_SHARE:
            memory.close()
            memory = open_memory(home)


# -- reindex -------------------------------------------------------------------------------
def reindexes(home: Place, trial: int, rng: random.Random, report: Report) -> None:
    """Re-embed the whole home again and again, alternating two embedders."""
    dim = stored_embedder(home).dim
    report("READY")
    for i in itertools.count():
        dim = 96 if dim == DIM else DIM
        memory = reindex(home, HashingEmbedder(dim))
        marker = f"x{trial}o{i}"
        memory.archival_insert(f"Reindex passage [{marker}] {durable_sentence(rng)}")
        report(f"passage {marker}")
        memory.close()
        report(f"reindex {dim}")


# -- snapshot restore ----------------------------------------------------------------------
def restores(snapshot: dict[str, Any], root: Path | str, trial: int, report: Report) -> None:
    """Restore one snapshot into fresh places (directories under ``root``, or agents in
    the database ``root`` names), one after another."""
    report("READY")
    for i in itertools.count():
        target = place_in(root, f"r{trial}o{i}")
        restore(snapshot, target).close()
        report(f"restore {target.name}")


def place_in(root: Path | str, name: str) -> Place:
    """The place ``name`` under ``root``: a directory, or an agent of the database ``root``
    (a DSN)."""
    return PgAgent(root, name) if isinstance(root, str) else root / name
