"""The evaluation's JSON report: written after every finished unit, read back to resume.

A *unit* is one configuration on one conversation. The file holds every
unit's per-question records under ``units[config][conversation]`` and, on top,
the aggregates that the issue's schema asks for::

    {"configs": [{"name", "config", "embedder", "overall": {"recall@1", ..., "mrr"},
                  "by_category": {"1": {...}, ...}, "timings": {...}}, ...], ...}

A unit is reused on ``--resume`` only if it was run with the same
configuration and embedder; anything else is run again. A report of other
settings (mode, k, limit, and in QA mode the model's window, reply budget,
text tool calls and encoding) is refused rather than resumed.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Callable, Collection, Sequence
from pathlib import Path
from typing import Any

from tiermem.evals.locomo import CATEGORIES
from tiermem.memory.output_file import write_atomic

Record = dict[str, Any]


class Report:
    """The report of one run, optionally mirrored to a JSON file."""

    def __init__(self, path: Path | None, header: dict[str, Any], resume: bool = False,
                 chosen: Collection[str] = ()) -> None:
        self.path = path
        self.header = header
        self.units: dict[str, dict[str, dict[str, Any]]] = {}
        self.configs: list[dict[str, Any]] = []
        if resume and path is not None and path.exists():
            self.units = resumable_units(path, header, chosen)

    def finished(
        self, config: str, conv: str, fingerprint: dict[str, Any]
    ) -> dict[str, Any] | None:
        """The stored unit, if it is complete and was run the same way."""
        unit = self.units.get(config, {}).get(conv)
        if unit and unit.get("done") and unit.get("fingerprint") == fingerprint:
            return unit
        return None

    def partial(self, config: str, conv: str, fingerprint: dict[str, Any]) -> dict[str, Any]:
        """The stored unit run the same way (possibly unfinished), or a new empty one."""
        unit = self.units.get(config, {}).get(conv)
        if unit and unit.get("fingerprint") == fingerprint:
            return unit
        return {"fingerprint": fingerprint, "done": False, "questions": []}

    def put(self, config: str, conv: str, unit: dict[str, Any]) -> None:
        self.units.setdefault(config, {})[conv] = unit
        self.save()

    def save(self) -> None:
        if self.path is None:
            return
        # The summary is indented for people; the per-question records are compact.
        head = json.dumps({**self.header, "configs": self.configs}, indent=1)
        text = head[:-2] + ',\n "units": ' + json.dumps(self.units, separators=(",", ":")) + "\n}"
        write_atomic(self.path, text)  # a crash mid-write never leaves half a report

    def as_dict(self) -> dict[str, Any]:
        return {**self.header, "configs": self.configs, "units": self.units}


#: The model's settings a QA report records (they change what is asked and answered), read
#: from the client once its window is settled.
MODEL_SETTINGS = {"context_window": "--context-window", "max_tokens": "--max-tokens",
                  "text_tool_calls": "--text-tool-calls", "encoding": "TIERMEM_ENCODING"}
# The settings every unit of a report shares, and the option that sets each.
_SETTINGS = {"mode": "--mode", "ks": "--k", "limit": "--limit", **MODEL_SETTINGS}


def resumable_units(path: Path, header: dict[str, Any], chosen: Collection[str] = ()
                    ) -> dict[str, dict[str, dict[str, Any]]]:
    """The units of the report at ``path`` that a run with ``header`` resumes.

    Only the settings in ``header`` are compared. ``chosen`` names the model settings this
    run set itself (by option or environment) rather than left at their defaults: a report
    written before they were recorded ran with the defaults, so it is resumed only by a run
    that keeps them.

    ValueError when there is nothing to resume from: a resumed run rewrites the file, so
    reading a report of other settings as empty would throw away every answer it holds.
    """
    keep = "give --json another PATH, or drop --resume to replace it"
    try:
        old = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"--resume cannot read the report {path}: it is not JSON ({exc.msg}, "
                         f"line {exc.lineno}); {keep}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"--resume cannot read the report {path}: {exc}; {keep}") from None
    units = old.get("units") if isinstance(old, dict) else None
    if (not isinstance(old, dict) or old.get("benchmark") != header.get("benchmark")
            or not isinstance(units, dict)
            or not all(isinstance(unit, dict) for unit in units.values())):
        raise ValueError(f"--resume: {path} is not a report of `tiermem eval locomo`; {keep}")
    # Another mode differs in everything; its other settings would only add noise.
    keys = ["mode"] if old.get("mode") != header.get("mode") else \
        [key for key in _SETTINGS if key in header]
    unrecorded = [key for key in keys if key in MODEL_SETTINGS and key not in old]
    differ = [f"{_SETTINGS[key]} {_shown(old.get(key))} (this run: {_shown(header.get(key))})"
              for key in keys if key not in unrecorded and old.get(key) != header.get(key)]
    differ += [f"{_SETTINGS[key]} at its default (the report predates its recording; this "
               f"run: {_shown(header.get(key))})" for key in unrecorded if key in chosen]
    if differ:
        raise ValueError(f"--resume: {path} was run with {', '.join(differ)}; run with its "
                         f"settings to finish it, or {keep}")
    # Its units were asked with the defaults, which this run keeps: recorded as such, so they
    # match this run's units.
    for unit in (unit for by_conv in units.values() for unit in by_conv.values()):
        fingerprint = unit.get("fingerprint")
        for key in unrecorded if isinstance(fingerprint, dict) else ():
            fingerprint.setdefault(key, header[key])
    return units


def _shown(value: Any) -> str:
    if value is None:
        return "unset"
    return ",".join(map(str, value)) if isinstance(value, list) else str(value)


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

    configs = report["configs"]
    title = (f"LoCoMo {report['mode']}: {report.get('questions_total', '?')} questions, "
             f"conversations {', '.join(report['conversations'])}")
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
        console.print(f"[dim]{c['name']}: {c.get('description', '')}{embedder}[/dim]")


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
