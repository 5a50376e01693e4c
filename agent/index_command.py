"""``tiermem index``: build and save the HNSW graphs of an agent's large vector tables now.

Past 200,000 vectors in a tier, SQLite searches the nearest rows through a graph
that otherwise the first search builds in the background, minutes at 1M
vectors, and that a process ending sooner never saves
(memory/ops/vector_graphs.py). This builds each one that is missing, with its
progress on standard error, and saves it, so every later session starts with it.
"""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Callable
from pathlib import Path

from tiermem.memory.ops.vector_graphs import (
    BUILT,
    FAILED,
    NOT_NEEDED,
    SAVED_ALREADY,
    GraphReport,
    build_graphs,
)


def cmd_index(args: argparse.Namespace, note: Callable[[str], None]) -> int:
    from tiermem.agent.interrupted import work_done
    from tiermem.agent.place import agent_place
    from tiermem.memory.output_file import output_path

    place = agent_place(args.agent, args.store, existing=True)
    json_path = output_path(args.json)
    if place.dsn is not None:
        _report(args, json_path, "postgresql", [],
                ["nothing to build: PostgreSQL searches the vectors itself, exactly or (with "
                 "vector_index=hnsw in the DSN) through the HNSW index it builds on the "
                 "server when the agent is opened"])
        return 0

    def progress(tier: str, linked: int, total: int) -> None:
        if linked == 0:
            note(f"{tier}: linking {total:,} vectors into the search graph (minutes at 1M "
                 f"vectors)")
        else:
            note(f"{tier}: {linked:,} of {total:,} vectors linked")

    with place.in_use(note):
        store = place.open_store(read_only=False)
        try:
            reports = build_graphs(store, progress)
        finally:
            store.close()
        work_done(args)
    lines = [_describe(r, args.agent) for r in reports] or [
        f"agent {args.agent} has no vectors yet: nothing to build"]
    _report(args, json_path, "sqlite", reports, lines)
    return 1 if any(r.outcome == FAILED for r in reports) else 0


def _describe(report: GraphReport, agent: str) -> str:
    head = f"{report.tier}: {report.vectors:,} vectors"
    if report.outcome == NOT_NEEDED:
        return (f"{head}, fewer than {report.graph_from:,}: searched exactly, no graph "
                f"needed")
    if report.outcome == SAVED_ALREADY:
        return f"{head}; its search graph was saved already"
    if report.outcome == BUILT:
        return f"{head}; built the search graph in {report.seconds:.1f} s and saved it"
    return (f"{head}; the search graph could not be built ({report.error}): searches scan "
            f"every vector until `tiermem index --agent {agent}` builds it")


def _report(args: argparse.Namespace, json_path: Path | None, backend: str,
            reports: list[GraphReport], lines: list[str]) -> None:
    from rich.console import Console

    from tiermem.memory.output_file import emit_json

    if args.json is not None:
        emit_json({"agent": args.agent, "backend": backend,
                   "graphs": [dataclasses.asdict(r) for r in reports]}, json_path)
    console = Console(stderr=args.json == "-", soft_wrap=True)
    for line in lines:
        console.print(line, markup=False, highlight=False)


__all__ = ["cmd_index"]
