"""The diagnostics report as one self-contained HTML file with inline SVG charts.

No scripts, fonts or stylesheets are fetched: the file opens offline and can
be attached to a ticket as it is.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memory.hierarchy import HierarchicalMemory

WIDTH, HEIGHT, PAD = 640, 220, 40
COLORS = {"durable": "#2b6cb0", "short-lived": "#dd6b20", "evictions": "#c53030",
          "archival": "#2f855a", "recall": "#6b46c1"}


def history_series(memory: HierarchicalMemory) -> dict[str, list[float]]:
    """Per-interaction series from the history table, for charts."""
    rows = memory.store.execute(
        "SELECT tick, core_facts, durable_in_core, archival_passages, recall_messages, evictions"
        " FROM history ORDER BY tick").fetchall()
    series: dict[str, list[float]] = {k: [] for k in (
        "tick", "durable", "short-lived", "archival", "recall", "evictions")}
    previous = 0
    for tick, facts, durable, archival, recall, evictions in rows:
        series["tick"].append(tick)
        series["durable"].append(durable)
        series["short-lived"].append(facts - durable)
        series["archival"].append(archival)
        series["recall"].append(recall)
        series["evictions"].append(evictions - previous)
        previous = evictions
    return series


def _scale(values: Sequence[float], size: int) -> tuple[float, float]:
    top = max(values, default=0) or 1
    return top, (size - 2 * PAD) / top


def _axes(title: str, top: float, n: int) -> list[str]:
    return [
        f'<text x="{PAD}" y="20" class="t">{html.escape(title)}</text>',
        f'<line x1="{PAD}" y1="{HEIGHT - PAD}" x2="{WIDTH - PAD}" y2="{HEIGHT - PAD}" '
        'class="ax"/>',
        f'<line x1="{PAD}" y1="{PAD}" x2="{PAD}" y2="{HEIGHT - PAD}" class="ax"/>',
        f'<text x="{PAD - 4}" y="{PAD + 4}" class="l" text-anchor="end">{top:g}</text>',
        f'<text x="{PAD - 4}" y="{HEIGHT - PAD}" class="l" text-anchor="end">0</text>',
        f'<text x="{WIDTH - PAD}" y="{HEIGHT - PAD + 16}" class="l" text-anchor="end">'
        f'interaction {n}</text>',
    ]


def _x(i: int, n: int) -> float:
    return PAD + (WIDTH - 2 * PAD) * (i / max(n - 1, 1))


def line_chart(title: str, named: dict[str, Sequence[float]]) -> str:
    n = max((len(v) for v in named.values()), default=0)
    top, k = _scale([x for v in named.values() for x in v], HEIGHT)
    parts = _axes(title, top, n)
    for offset, (name, values) in enumerate(named.items()):
        points = " ".join(f"{_x(i, n):.1f},{HEIGHT - PAD - v * k:.1f}" for i, v in
                          enumerate(values))
        parts.append(f'<polyline fill="none" stroke="{COLORS[name]}" stroke-width="2" '
                     f'points="{points}"/>')
        parts.append(f'<text x="{WIDTH - PAD - 120 * (offset + 1)}" y="20" class="l" '
                     f'fill="{COLORS[name]}">■ {html.escape(name)}</text>')
    return _svg(parts)


def stacked_chart(title: str, lower: str, upper: str, series: dict[str, list[float]]) -> str:
    low, high = series[lower], series[upper]
    n = len(low)
    top, k = _scale([a + b for a, b in zip(low, high, strict=True)], HEIGHT)
    parts = _axes(title, top, n)
    base: list[float] = [float(HEIGHT - PAD)] * n
    for name, values in ((lower, low), (upper, high)):
        tops = [b - v * k for b, v in zip(base, values, strict=True)]
        outline = [f"{_x(i, n):.1f},{t:.1f}" for i, t in enumerate(tops)]
        back = [f"{_x(i, n):.1f},{b:.1f}" for i, b in reversed(list(enumerate(base)))]
        parts.append(f'<polygon fill="{COLORS[name]}" opacity="0.7" '
                     f'points="{" ".join(outline + back)}"/>')
        base = tops
    parts.append(f'<text x="{WIDTH - PAD - 240}" y="20" class="l" fill="{COLORS[lower]}">'
                 f'■ {lower}</text><text x="{WIDTH - PAD - 120}" y="20" class="l" '
                 f'fill="{COLORS[upper]}">■ {upper}</text>')
    return _svg(parts)


def bar_chart(title: str, name: str, values: Sequence[float]) -> str:
    n = len(values)
    top, k = _scale(values, HEIGHT)
    width = max(1.0, (WIDTH - 2 * PAD) / max(n, 1) - 1)
    parts = _axes(title, top, n)
    for i, v in enumerate(values):
        if v:
            x = PAD + (WIDTH - 2 * PAD) * i / max(n, 1)
            parts.append(f'<rect x="{x:.1f}" y="{HEIGHT - PAD - v * k:.1f}" width="{width:.1f}" '
                         f'height="{v * k:.1f}" fill="{COLORS[name]}"/>')
    return _svg(parts)


def _svg(parts: list[str]) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
            f'viewBox="0 0 {WIDTH} {HEIGHT}">' + "".join(parts) + "</svg>")


def render_html(report: dict[str, Any], series: dict[str, list[float]], title: str) -> str:
    """The whole report page."""
    rows = []
    for section in ("core", "evictions", "promotions", "archival", "recall"):
        for key, value in report[section].items():
            if isinstance(value, list):
                continue
            shown = f"{value:.3f}" if isinstance(value, float) else str(value)
            rows.append(f"<tr><td>{section}</td><td>{html.escape(key)}</td>"
                        f"<td class='n'>{html.escape(shown)}</td></tr>")
    flags = "".join(
        f"<li><b>{html.escape(f['name'])}</b>: {html.escape(f['message'])}</li>"
        for f in report["red_flags"]) or "<li class='ok'>no red flags</li>"
    charts = "".join((
        stacked_chart("core composition (facts)", "durable", "short-lived", series),
        bar_chart("evictions per interaction", "evictions", series["evictions"]),
        line_chart("archival and recall size", {"archival": series["archival"],
                                                "recall": series["recall"]}),
    ))
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<style>
body{{font-family:system-ui,sans-serif;margin:2em;color:#1a202c}}
table{{border-collapse:collapse}}td{{padding:2px 10px;border-bottom:1px solid #e2e8f0}}
td.n{{text-align:right;font-variant-numeric:tabular-nums}}
.t{{font-size:14px;font-weight:600}}.l{{font-size:11px}}.ax{{stroke:#718096}}
li.ok{{color:#2f855a}}svg{{display:block;margin:1em 0}}
</style></head><body>
<h1>{html.escape(title)}</h1>
<p>{report['interactions']} interactions · policy {html.escape(report['core']['policy'])}</p>
<h2>Red flags</h2><ul>{flags}</ul>
<h2>Over time</h2>{charts}
<h2>Figures</h2><table>{''.join(rows)}</table>
</body></html>
"""


def print_text(console: Any, report: dict[str, Any]) -> None:
    """The report as rich tables, for a terminal."""
    from rich.table import Table

    table = Table(title=f"memory health after {report['interactions']} interactions")
    table.add_column("section")
    table.add_column("figure")
    table.add_column("value", justify="right")
    for section in ("core", "evictions", "promotions", "archival", "recall"):
        for key, value in report[section].items():
            if isinstance(value, list):
                continue
            shown = f"{value:.3f}" if isinstance(value, float) else str(value)
            table.add_row(section, key, shown)
    console.print(table)
    for flag in report["red_flags"]:
        figures = ", ".join(f"{k}={v:.3g}" if isinstance(v, float) else f"{k}={v}"
                            for k, v in flag["figures"].items())
        console.print(f"[red]red flag[/red] [bold]{flag['name']}[/bold]: {flag['message']} "
                      f"[dim]({figures})[/dim]")
    if not report["red_flags"]:
        console.print("[green]no red flags[/green]")
