"""Rendering of battery results: a rich table for people, JSON for machines."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from tiermem.agent.terminal import escape
from tiermem.bench.result import CheckResult
from tiermem.memory.output_file import write_atomic


def _core_limit(f: dict[str, Any]) -> str:
    return (f"{f['operations']} ops, {f['runs']} runs; max fill {f['max_fill']:.0%}; "
            f"{f['violations']} violations")


def _evicted(f: dict[str, Any]) -> str:
    return f"hit rate {f['archival_hit_rate']:.0%} of {f['evicted_facts']} evicted facts"


def _durable(f: dict[str, Any]) -> str:
    return "kept: " + ", ".join(f"{k} {v:.0%}" for k, v in f["share_kept"].items())


def _snapshot(f: dict[str, Any]) -> str:
    return (f"{f['facts']} facts, {f['passages']} passages, {f['messages']} messages; "
            f"{f['mismatches']} mismatches in {f['fields_compared']} fields")


def _crash(f: dict[str, Any]) -> str:
    return (f"{f['kills']} kills, {f['reopens_consistent']} reopens consistent, "
            f"{f['lost_ops']} of {f['ops_reported_committed']} ops lost")


def _timing(f: dict[str, Any]) -> str:
    e = f["eviction"]
    small, large = f["core_sizes"]
    search = _last_search(f["archival"])
    return (f"evict work x{e['work']['growth']:.2f} @{large} vs @{small}, p50 "
            f"{e[f'at_{small}']['p50_ms']:.3f} vs {e[f'at_{large}']['p50_ms']:.3f} ms; "
            f"archival {f['archival']['insert']['per_s']:.0f} inserts/s, search p50 "
            f"{search['p50_ms']:.2f} / p99 {search['p99_ms']:.2f} ms")


def _last_search(section: dict[str, Any]) -> dict[str, Any]:
    """The search figures at the largest size measured."""
    keys = [k for k in section if k.startswith("search_at_")]
    return dict(section[max(keys, key=lambda k: int(k.rsplit("_", 1)[1]))])


KEY_FIGURES: dict[str, Callable[[dict[str, Any]], str]] = {
    "core_limit": _core_limit,
    "evicted_findable": _evicted,
    "durable_resistance": _durable,
    "snapshot_roundtrip": _snapshot,
    "crash_safety": _crash,
    "timing": _timing,
}


def key_figures(result: CheckResult) -> str:
    """The figures a person reads first; the detail sentence if they are missing."""
    render = KEY_FIGURES.get(result.name)
    if render is not None:
        try:
            return render(result.figures)
        except (KeyError, TypeError, ValueError):
            pass
    return result.detail


def print_report(console: Any, results: Sequence[CheckResult], seconds: float) -> None:
    from rich.table import Table

    table = Table(title=f"verification battery ({seconds:.1f} s)")
    table.add_column("check")
    table.add_column("result")
    table.add_column("key figures")
    table.add_column("s", justify="right")
    for r in results:
        table.add_row(r.name, "[green]pass[/green]" if r.passed else "[bold red]FAIL[/bold red]",
                      key_figures(r), f"{r.seconds:.1f}")
    console.print(table)
    failed = [r for r in results if not r.passed]
    for r in failed:
        console.print(f"[bold red]FAIL[/bold red] {escape(r.name)}: {escape(r.detail)}",
                      highlight=False)
    if failed:
        console.print(f"[bold red]{len(failed)} of {len(results)} checks failed[/bold red]")
    else:
        console.print("[green]the check passed[/green]" if len(results) == 1
                      else f"[green]all {len(results)} checks passed[/green]")


def report_json(results: Sequence[CheckResult], **meta: Any) -> dict[str, Any]:
    """One object per check (name, passed, figures, detail, seconds), with the run's options."""
    return {**meta, "passed": all(r.passed for r in results),
            "checks": [r.to_dict() for r in results]}


def write_json(path: Path, results: Sequence[CheckResult], **meta: Any) -> None:
    """``report_json`` written to ``path`` whole or not at all."""
    write_atomic(path, json.dumps(report_json(results, **meta), indent=2, default=str) + "\n")


def print_start(console: Any, name: str, index: int, total: int) -> None:
    console.print(f"[{index}/{total}] {name} ...", end=" ", markup=False, highlight=False)


def print_done(console: Any, result: CheckResult, index: int, total: int) -> None:
    verdict = "[green]pass[/green]" if result.passed else "[bold red]FAIL[/bold red]"
    console.print(f"{verdict} ({result.seconds:.1f} s)", highlight=False)
