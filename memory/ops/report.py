"""The diagnostics report for people: a terminal table, or one self-contained HTML file.

The HTML page fetches no scripts, fonts or stylesheets: it opens offline and can
be attached to a ticket as it is. Its charts are inline SVG with labelled axes;
series that differ tenfold or more get a chart each, so the smaller one is not
drawn as a flat line on the larger one's scale.

The history series read the memory through ``StoredMemory`` (memory/ops/protocols.py),
so this module does not import the facade.
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping, Sequence
from typing import Any

from tiermem.memory.ops.protocols import StoredMemory

WIDTH, HEIGHT = 720, 200
LEFT, RIGHT, TOP, BOTTOM = 56, 20, 34, 34
COLORS = {"durable": "#2b6cb0", "short-lived": "#dd6b20", "evictions": "#c53030",
          "archival": "#2f855a", "recall": "#6b46c1"}
#: Series whose largest values differ by this factor or more get separate charts.
SEPARATE_SCALES_RATIO = 10
SECTIONS = ("core", "evictions", "promotions", "archival", "recall")

#: How each figure of the report is shown: its label and its kind of number.
FIGURES: dict[str, dict[str, tuple[str, str]]] = {
    "core": {
        "facts": ("facts in core", "count"), "size": ("size", "count"),
        "limit": ("limit", "count"), "unit": ("limit unit", "text"),
        "tokens": ("tokens of core text", "count"), "fill": ("fill", "share"),
        "durable": ("durable facts", "count"), "short_lived": ("short-lived facts", "count"),
        "pct_durable": ("durable share", "percent"), "policy": ("eviction policy", "text"),
    },
    "evictions": {
        "total": ("evictions", "count"), "per_interaction": ("per interaction", "rate"),
        "recent_per_interaction": ("per interaction, recently", "rate"),
        "retirements": ("facts held as retired (no longer true)", "count"),
    },
    "promotions": {
        "total": ("promotions back to core", "count"),
        "promote_evict_cycles": ("core → archival → core cycles", "count"),
        "max_cycles_one_fact": ("most cycles of one fact", "count"),
    },
    "archival": {
        "passages": ("passages", "count"), "growth_per_interaction": ("growth per interaction",
                                                                      "rate"),
        "searches": ("searches", "count"), "searches_with_hits": ("searches with hits", "count"),
        "hit_rate": ("hit rate", "share"), "without_vectors": ("passages without vectors",
                                                               "count"),
    },
    "recall": {
        "messages": ("messages", "count"), "growth_per_interaction": ("growth per interaction",
                                                                      "rate"),
        "without_vectors": ("messages without vectors", "count"),
    },
}


def show_figure(value: Any, kind: str) -> str:
    """One figure as text: counts with separators, rates to 2 places, shares as percents."""
    if value is None:
        return "n/a"
    if kind == "text" or isinstance(value, str | bool):
        return str(value)
    if kind == "share":
        return f"{100 * value:.1f}%"
    if kind == "percent":
        return f"{value:.1f}%"
    if kind == "count" and float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:,.2f}"


def figure_rows(report: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(section, label, value) for every scalar figure, in the report's order."""
    rows = []
    for section in SECTIONS:
        for key, value in report[section].items():
            if isinstance(value, list | dict):
                continue
            label, kind = FIGURES.get(section, {}).get(key, (key.replace("_", " "), "rate"))
            if section == "core" and key in ("size", "limit"):
                label = f"{label} ({report['core']['unit']})"
            rows.append((section, label, show_figure(value, kind)))
    return rows


def flag_title(name: str) -> str:
    return name.replace("_", " ")


def history_series(memory: StoredMemory) -> dict[str, list[float]]:
    """Per-interaction series from the history table, for charts."""
    rows = [(p.tick, p.core_facts, p.durable_in_core, p.archival_passages, p.recall_messages,
             p.evictions) for p in memory.store.history.points()]
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


# -- charts ------------------------------------------------------------------------------------
def nice_ticks(top: float, most: int = 6, whole: bool = True) -> list[float]:
    """Round tick values from 0 to at least ``top``: steps of 1, 2 or 5 times a power of
    ten, at most ``most`` of them; ``whole`` keeps steps whole (the charts count things)."""
    if top <= 0:
        return [0.0, 1.0]
    raw = top / (most - 1)
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    if whole:
        step = max(step, 1)
    count = math.ceil(top / step - 1e-9)
    return [round(i * step, 10) for i in range(count + 1)]


class _Plot:
    """One chart's frame: y grid with labels, x labels by interaction, a legend."""

    def __init__(self, title: str, top: float, ticks: Sequence[float]) -> None:
        self.ticks = nice_ticks(top)
        self.top = self.ticks[-1]
        self.n = len(ticks)
        self.parts = [f'<text x="{LEFT}" y="18" class="t">{html.escape(title)}</text>']
        for value in self.ticks:
            y = self.y(value)
            self.parts += [_line(LEFT, y, WIDTH - RIGHT, y, "ax" if value == 0 else "grid"),
                           _label(LEFT - 6, y + 4, f"{value:g}", "end")]
        self.parts.append(_line(LEFT, TOP, LEFT, HEIGHT - BOTTOM, "ax"))
        for i in _x_label_indexes(ticks):
            x = self.x(i)
            self.parts += [_line(x, HEIGHT - BOTTOM, x, HEIGHT - BOTTOM + 4, "ax"),
                           _label(x, HEIGHT - BOTTOM + 16, f"{ticks[i]:g}", "middle")]
        self.parts.append(_label(WIDTH - RIGHT, HEIGHT - 4, "interaction", "end"))

    def x(self, i: float) -> float:
        return LEFT + (WIDTH - LEFT - RIGHT) * (i / max(self.n - 1, 1))

    def y(self, value: float) -> float:
        return HEIGHT - BOTTOM - (HEIGHT - TOP - BOTTOM) * value / self.top

    def legend(self, names: Sequence[str]) -> None:
        x = WIDTH - RIGHT
        for name in reversed(names):
            x -= 14 + 7 * len(name)
            self.parts.append(f'<rect x="{x}" y="9" width="10" height="10" '
                              f'fill="{COLORS[name]}"/><text x="{x + 14}" y="18" class="l">'
                              f'{html.escape(name)}</text>')
            x -= 16

    def svg(self) -> str:
        return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
                f'viewBox="0 0 {WIDTH} {HEIGHT}">' + "".join(self.parts) + "</svg>")


def _line(x1: float, y1: float, x2: float, y2: float, style: str) -> str:
    return f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" class="{style}"/>'


def _label(x: float, y: float, text: str, anchor: str) -> str:
    return (f'<text x="{x:.1f}" y="{y:.1f}" class="l" text-anchor="{anchor}">'
            f'{html.escape(text)}</text>')


def _x_label_indexes(ticks: Sequence[float]) -> list[int]:
    """Indexes of the points whose interaction numbers label the x axis: the first, then
    round numbers (about 8 labels in all)."""
    if not ticks:
        return []
    first = ticks[0]
    step = nice_ticks(max(ticks[-1] - first, 1), most=9)[1]
    labelled = [0]
    for i, value in enumerate(ticks[1:], start=1):
        if value % step == 0:
            if value - ticks[labelled[-1]] < step / 2:
                labelled.pop()  # too close to the first label to print both
            labelled.append(i)
    return labelled


def line_chart(title: str, named: Mapping[str, Sequence[float]], ticks: Sequence[float]) -> str:
    plot = _Plot(title, max((x for v in named.values() for x in v), default=0), ticks)
    for name, values in named.items():
        points = " ".join(f"{plot.x(i):.1f},{plot.y(v):.1f}" for i, v in enumerate(values))
        plot.parts.append(f'<polyline fill="none" stroke="{COLORS[name]}" stroke-width="2" '
                          f'points="{points}"/>')
    plot.legend(list(named))
    return plot.svg()


def size_charts(series: dict[str, list[float]]) -> str:
    """Archival and recall sizes: one chart, or one each when their scales differ tenfold."""
    named = {"recall": series["recall"], "archival": series["archival"]}
    tops = sorted(max(v, default=0) for v in named.values())
    if tops[1] == 0 or tops[0] * SEPARATE_SCALES_RATIO > tops[1]:
        return line_chart("recall and archival size (items)", named, series["tick"])
    return "".join(line_chart(f"{name} size ({unit})", {name: named[name]}, series["tick"])
                   for name, unit in (("recall", "messages"), ("archival", "passages")))


def stacked_chart(title: str, lower: str, upper: str, series: dict[str, list[float]]) -> str:
    low, high = series[lower], series[upper]
    plot = _Plot(title, max((a + b for a, b in zip(low, high, strict=True)), default=0),
                 series["tick"])
    base = [0.0] * len(low)
    for name, values in ((lower, low), (upper, high)):
        tops = [b + v for b, v in zip(base, values, strict=True)]
        outline = [f"{plot.x(i):.1f},{plot.y(t):.1f}" for i, t in enumerate(tops)]
        back = [f"{plot.x(i):.1f},{plot.y(b):.1f}" for i, b in reversed(list(enumerate(base)))]
        plot.parts.append(f'<polygon fill="{COLORS[name]}" opacity="0.75" '
                          f'points="{" ".join(outline + back)}"/>')
        base = tops
    plot.legend([lower, upper])
    return plot.svg()


def bar_chart(title: str, name: str, values: Sequence[float], ticks: Sequence[float]) -> str:
    plot = _Plot(title, max(values, default=0), ticks)
    slot = (WIDTH - LEFT - RIGHT) / max(len(values), 1)
    for i, v in enumerate(values):
        if v:
            # Bars are centred on their interaction's x position, as the points of a line are.
            x = min(max(plot.x(i) - slot / 2, LEFT), WIDTH - RIGHT - slot)
            plot.parts.append(f'<rect x="{x + 0.5:.1f}" y="{plot.y(v):.1f}" '
                              f'width="{max(slot - 1, 1):.1f}" '
                              f'height="{plot.y(0) - plot.y(v):.1f}" fill="{COLORS[name]}"/>')
    return plot.svg()


# -- pages -------------------------------------------------------------------------------------
def render_html(report: dict[str, Any], series: dict[str, list[float]], title: str) -> str:
    """The whole report page."""
    rows = []
    previous = ""
    for section, label, shown in figure_rows(report):
        head = html.escape(section) if section != previous else ""
        previous = section
        rows.append(f"<tr><th>{head}</th><td>{html.escape(label)}</td>"
                    f"<td class='n'>{html.escape(shown)}</td></tr>")
    flags = "".join(
        f"<li><b>{html.escape(flag_title(f['name']))}</b>: {html.escape(f['message'])}</li>"
        for f in report["red_flags"]) or "<li class='ok'>no red flags</li>"
    ticks = series["tick"]
    charts = "".join((
        stacked_chart("facts in core", "durable", "short-lived", series),
        bar_chart("evictions per interaction", "evictions", series["evictions"], ticks),
        size_charts(series),
    ))
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<style>
body{{font-family:system-ui,sans-serif;margin:2em;color:#1a202c;max-width:760px}}
table{{border-collapse:collapse}}td,th{{padding:3px 12px;border-bottom:1px solid #e2e8f0}}
th{{text-align:left;font-weight:600;color:#4a5568}}
td.n{{text-align:right;font-variant-numeric:tabular-nums}}
.t{{font-size:14px;font-weight:600}}.l{{font-size:11px;fill:#4a5568}}
.ax{{stroke:#718096}}.grid{{stroke:#e2e8f0}}
li.ok{{color:#2f855a}}svg{{display:block;margin:1.2em 0}}
</style></head><body>
<h1>{html.escape(title)}</h1>
<p>{report['interactions']:,} interactions · policy {html.escape(report['core']['policy'])}</p>
<h2>Red flags</h2><ul>{flags}</ul>
<h2>Over time</h2>{charts}
<h2>Figures</h2><table>{''.join(rows)}</table>
</body></html>
"""


def print_text(console: Any, report: dict[str, Any]) -> None:
    """The report as a rich table, for a terminal."""
    from rich.table import Table

    from tiermem.memory.text.markup import escape  # rich's drops or doubles some backslashes

    done = report["interactions"]
    table = Table(title=f"memory health after {done:,} interaction{'' if done == 1 else 's'}")
    table.add_column("section")
    table.add_column("figure")
    table.add_column("value", justify="right")
    previous = ""
    for section, label, shown in figure_rows(report):
        if previous and section != previous:
            table.add_section()
        table.add_row(section if section != previous else "", escape(label), escape(shown))
        previous = section
    console.print(table)
    for flag in report["red_flags"]:
        figures = ", ".join(f"{k.replace('_', ' ')} {v:.3g}" if isinstance(v, float)
                            else f"{k.replace('_', ' ')} {v}" for k, v in flag["figures"].items())
        console.print(f"[red]red flag[/red] [bold]{escape(flag_title(flag['name']))}[/bold]: "
                      f"{escape(flag['message'])} [dim]({escape(figures)})[/dim]")
    if not report["red_flags"]:
        console.print("[green]no red flags[/green]")
