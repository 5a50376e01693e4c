"""The figures of an evaluation as they are shown: summed up and laid out.

A run's per-question records (``Record``) are summed up by ``mean``, ``percentile`` and
``by_category``; ``UnitLog`` gives a plain line as each unit starts and finishes, and
``render`` the terminal's tables of the report (evals/report.py) once the run is done.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence
from typing import Any

from tiermem.evals.locomo import CATEGORIES
from tiermem.memory.text.counts import counted

#: One question's figures in a unit of the report.
Record = dict[str, Any]


class UnitLog:
    """One plain line as each unit starts and finishes, with its figures, for output that is
    no terminal (``eval locomo > log 2>&1``), where a progress bar shows nothing until the
    end of a run that may take hours. Without ``write`` it says nothing."""

    def __init__(self, total: int = 0, shown: Sequence[str] = (),
                 write: Callable[[str], None] | None = None) -> None:
        self.total = total
        self.shown = shown  # the figures each finished line gives
        self.write = write
        self.count = 0

    def started(self, config: str, conv: str) -> None:
        self.count += 1
        self._say(f"{config} on conversation {conv}: started")

    def finished(self, config: str, conv: str, figures: dict[str, Any], ran: bool) -> None:
        if not ran:  # kept from the report: it starts and finishes at once
            self.count += 1
        given = [f"{key} {_figure(figures[key])}" for key in self.shown
                 if figures.get(key) is not None]
        kept = "" if ran else " (kept from the report)"
        self._say(f"{config} on conversation {conv}{kept}: {', '.join(given)} "
                  f"({counted(figures.get('questions', 0), 'question')})")

    def _say(self, text: str) -> None:
        if self.write is not None:
            self.write(f"[{self.count}/{self.total}] {text}")


def _figure(value: Any) -> str:
    return f"{value:.3f}" if isinstance(value, float) else str(value)


def mean(values: Sequence[float]) -> float:
    return round(statistics.fmean(values), 4) if values else 0.0


def percentile(values: Sequence[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return round(ordered[index], 3)


def by_category(records: Sequence[Record], summarize: Callable[[Sequence[Record]], dict[str, Any]]
                ) -> dict[str, dict[str, Any]]:
    """``summarize`` applied to each category's records, keyed "1".."5"."""
    out: dict[str, dict[str, Any]] = {}
    for category in sorted({int(r["category"]) for r in records}):
        chosen = [r for r in records if int(r["category"]) == category]
        out[str(category)] = {"name": CATEGORIES.get(category, "?"), **summarize(chosen)}
    return out


# -- rendering -------------------------------------------------------------------------------
def render(console: Any, report: dict[str, Any], metrics: Sequence[str], per_category: str,
           timing_keys: Sequence[tuple[str, str]]) -> None:
    """The configs x metrics table, then configs x categories for ``per_category``."""
    from rich.table import Table

    from tiermem.memory.text.markup import escape

    configs = report["configs"]
    # A conversation's id is the data file's, and an embedder's id may be its user's: markup
    # would read a "[" or a backslash in them.
    total = report.get("questions_total")
    title = (f"LoCoMo {report['mode']}: "
             f"{'? questions' if total is None else counted(total, 'question')}, "
             f"conversation{'s' if len(report['conversations']) > 1 else ''} "
             f"{escape(', '.join(report['conversations']))}")
    table = Table(title=title)
    # Never cut a name or a figure short ("hybrid-co…" stood for two configurations): in a
    # terminal narrower than the table they fold onto a second line.
    table.add_column("config", overflow="fold")
    for metric in metrics:
        table.add_column(metric.replace("recall@", "R@").replace("_per_", "/"), justify="right",
                         overflow="fold")
    for _, label in timing_keys:
        table.add_column(label, justify="right", overflow="fold")
    columns = [[c["overall"].get(m) for c in configs] for m in metrics]
    columns += [[c["timings"].get(key) for c in configs] for key, _ in timing_keys]
    shown = [format_column(values) for values in columns]
    for row, c in enumerate(configs):
        table.add_row(c["name"], *(column[row] for column in shown))
    console.print(table)

    categories = sorted({k for c in configs for k in c["by_category"]}, key=int)
    if not categories:
        return
    cat_table = Table(title=f"{per_category} by category")
    cat_table.add_column("config", overflow="fold")
    for key in categories:
        count = max(c["by_category"].get(key, {}).get("questions", 0) for c in configs)
        cat_table.add_column(f"{key} {CATEGORIES.get(int(key), '?')} ({count})", justify="right",
                             overflow="fold")
    shown = [format_column([c["by_category"].get(k, {}).get(per_category) for c in configs])
             for k in categories]
    for row, c in enumerate(configs):
        cat_table.add_row(c["name"], *(column[row] for column in shown))
    console.print(cat_table)
    for c in configs:
        embedder = f"; embedder {c['embedder']}" if c.get("embedder") else ""
        console.print(f"[dim]{escape(c['name'])}: "
                      f"{escape(c.get('description', '') + embedder)}[/dim]")


def format_column(values: Sequence[Any]) -> list[str]:
    """One table column with one number format: 3 decimals for scores between 0 and 1,
    whole numbers for counts, 1 decimal otherwise; ``-`` where a value is missing."""
    numbers = [v for v in values if isinstance(v, int | float) and not isinstance(v, bool)]
    if all(abs(v) <= 1 for v in numbers) and any(isinstance(v, float) for v in numbers):
        decimals = 3
    elif all(float(v).is_integer() for v in numbers):
        decimals = 0
    else:
        decimals = 1
    return ["-" if v is None else f"{v:,.{decimals}f}" if v in numbers else str(v)
            for v in values]
