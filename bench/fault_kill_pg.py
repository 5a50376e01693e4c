"""The SIGKILL loops on PostgreSQL: the four workloads of bench/fault_kill.py, each on
agents in a fresh database of a throwaway local server.

A writer killed there leaves its session for the server to end; the agent is
reopened as a user would (a refusal naming the dead writer is met by waiting
for the server, then opening again), and audited as on SQLite, with the BM25
counters recounted from the rows (bench/postgres_only.py). Skipped, saying
what to install, where no PostgreSQL server can run.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from tiermem.bench import fault_kill
from tiermem.bench.fault_result import FaultResult
from tiermem.bench.postgres_only import fresh_database, throwaway_server, unavailable

#: Per workload: (trials, quick trials, tripwire steps drawn from 1..this). A statement
#: sent to the server is a step, as one sent to SQLite is; the spans are a few
#: operations' worth (measured as for SQLite).
PG_WORKLOADS: dict[str, tuple[int, int, int]] = {
    "turns": (100, 5, 400),
    "batches": (100, 5, 320),
    "reindex": (60, 5, 250),
    "restore": (60, 5, 300),
}


def label(name: str) -> str:
    return fault_kill.WORKLOADS[name].label.replace("kill:", "kill pg:", 1)


@contextlib.contextmanager
def _database(server: str | None) -> Iterator[str]:
    with contextlib.ExitStack() as stack:
        if server is None:
            server = stack.enter_context(throwaway_server())
        yield stack.enter_context(fresh_database(server, prefix="tiermem_kill"))


def run_kill_pg(seed: int, quick: bool, trials: int | None = None,
                server: str | None = None,
                names: tuple[str, ...] = tuple(PG_WORKLOADS)) -> list[FaultResult]:
    """One row per workload in ``names``; ``server`` (a DSN whose user may create
    databases) instead of a throwaway local server, ``trials`` instead of the default
    counts."""
    why = unavailable() if server is None else None
    if why is not None:
        rows = [FaultResult(label(name), "kill") for name in names]
        for row in rows:
            row.skipped = why
        return rows
    rows = []
    with _database(server) as dsn:
        for name in names:
            full, short, max_step = PG_WORKLOADS[name]
            count = trials if trials is not None else (short if quick else full)
            rows.append(fault_kill.run_kill(name, seed, quick, count, store=dsn,
                                            label=label(name), max_step=max_step))
    return rows
