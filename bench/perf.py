"""Performance benchmark: tiermem against ChromaDB and against this machine's own limits.

Run: ``python cli.py benchmark --perf [--sizes 10000,100000] [--json PATH] [--quick]
[--recall-dense]``

Six comparisons, each measured in one process. Where two systems or two
configurations are compared, their operations alternate (A B A B ...), with
the order rotated, so background load on a shared machine hits both alike.
Figures are medians and p99 over every repetition; ratios are of medians.

1. ``archival``: ingest (text + vector + metadata, committed per batch) and
   top-10 search, tiermem against ChromaDB's ``PersistentClient`` given the
   same precomputed vectors; tiermem's hybrid search (FTS5 + dense) as well.
2. ``dense_floor``: tiermem's exact dense search (an 8-bit scan with float32
   rescoring, memory/store/sqlite/prefilter.py) and a plain float32 FAISS scan, against
   the time needed to read every float32 vector once at the read bandwidth
   measured in the same run, and against reading the 8-bit copy once.
3. ``recall``: append throughput (per turn, row by row, and bulk) and
   full-text search by query class, from rare words to one in most messages;
   with ``--recall-dense``, again with a vector per message (``recall_dense``).
4. ``eviction``: ``add_fact`` with an eviction, at three core sizes.
5. ``step``: the agent runtime's own time per turn, model and embedding time
   taken out, with a full store against an empty one. The scripted model appends a
   fact, searches archival and replies each turn, so the time of that search is
   reported apart.
6. ``cold_start``: ``cli.py chat --offline`` until it exits on ``/exit``, and
   opening a home with a saved FAISS index against rebuilding it.

Every size derives from ``--sizes`` (archival passages, default 10k and
100k; with ``--quick``, 1k and 10k): the recall stores hold 10x those numbers of messages, the cores
1/100, 1/10 and all of the largest size, and the agent's store the largest
archival and recall sizes together.

No embedding model runs: ``BagEmbedder`` gives text-correlated vectors at no
cost, so both sides of a comparison get identical vectors and the figures are
those of the stores. Text comes from a Zipf-distributed vocabulary
(bench/memory_bench.py), so full-text posting lists have realistic lengths.

Modules: this one runs the comparisons, judges the targets and prints the
report; bench/perf_method.py has the options and the alternating timer,
bench/perf_data.py the text, vectors and corpus, bench/perf_stores.py
comparisons 1 to 3 and bench/perf_runtime.py 4 to 6.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from tiermem.bench import perf_stores
from tiermem.bench.memory_bench import memory_bandwidth_gbs
from tiermem.bench.perf_data import BagEmbedder, make_corpus
from tiermem.bench.perf_method import PerfOptions, parse_sizes
from tiermem.bench.perf_runtime import measure_cold_start, measure_eviction, measure_step
from tiermem.bench.perf_stores import CHROMA_MISSING, dense_floor, measure_archival, measure_recall
from tiermem.memory.output_file import write_atomic

# Performance targets (name: limit), each judged at the largest size measured.
TARGETS = {
    "archival_ingest_vs_chroma": 10.0,  # tiermem rate / chroma rate, at least
    "archival_search_vs_chroma": 1.0,  # tiermem p50 / chroma p50, at most
    "exact_over_floor": 1.5,  # exact dense p50 / bandwidth floor, at most
    "recall_search_p99_ms": 50.0,  # every query class, at most
    "recall_dense_search_p99_ms": 50.0,  # the same with a vector per message (--recall-dense)
    "eviction_ratio": 2.0,  # p50 at the largest core / p50 at the smallest, at most
    "step_overhead_p50_ms": 5.0,  # at most
    "cold_start_s": 2.0,  # at most
}


# -- the run -------------------------------------------------------------------------------
def run_perf(opts: PerfOptions, work: Path | None = None,
             progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Measure the six comparisons; returns the report (see ``write_json``)."""
    say = progress or (lambda _: None)
    started = time.perf_counter()
    with _workdir(work) as tmp:
        bag = BagEmbedder(seed=opts.seed + 7)
        bandwidth = [memory_bandwidth_gbs(3)]
        report: dict[str, Any] = {"meta": _meta(opts), "archival": []}
        corpus = None
        for size in sorted(opts.sizes):
            say(f"archival: {size} passages, tiermem and chroma side by side")
            corpus = make_corpus(size, bag, opts.seed + size)
            report["archival"].append(measure_archival(size, corpus, bag, opts, tmp))
            bandwidth.append(memory_bandwidth_gbs(3))
        assert corpus is not None
        report["meta"]["bandwidth_gbs"] = max(bandwidth)
        report["dense_floor"] = [dense_floor(a, max(bandwidth)) for a in report["archival"]]
        say(f"recall: {', '.join(str(s) for s in opts.recall_sizes)} messages")
        report["recall"] = measure_recall(opts, bag, tmp)
        if opts.recall_dense:
            say("recall with a vector per message (the default), same sizes")
            report["recall_dense"] = measure_recall(opts, bag, tmp, dense=True)
        say(f"eviction: cores of {', '.join(str(s) for s in opts.core_sizes)} facts")
        report["eviction"] = measure_eviction(opts)
        say("agent step overhead")
        report["step"] = measure_step(opts, bag, corpus, tmp / "recall", tmp)
        say("cold start")
        report["cold_start"] = measure_cold_start(opts, bag, tmp / f"archival-{max(opts.sizes)}",
                                                  tmp)
    report["targets"] = targets(report)
    report["meta"]["seconds"] = time.perf_counter() - started
    return report


@contextlib.contextmanager
def _workdir(work: Path | None) -> Iterator[Path]:
    """``work`` if given (kept afterwards, for inspection), else a temporary directory."""
    if work is not None:
        work.mkdir(parents=True, exist_ok=True)
        yield work
        return
    with tempfile.TemporaryDirectory(prefix="tiermem-perf-") as tmp:
        yield Path(tmp)


def _meta(opts: PerfOptions) -> dict[str, Any]:
    return {"sizes": list(opts.sizes), "recall_sizes": list(opts.recall_sizes),
            "core_sizes": list(opts.core_sizes), "quick": opts.quick,
            "python": platform.python_version(), "cpus": os.cpu_count() or 1,
            "queries": opts.queries, "passes": opts.passes}


def targets(report: dict[str, Any]) -> list[dict[str, Any]]:
    """Each target with the figure it is judged on (at the largest size)."""
    out: list[dict[str, Any]] = []

    def add(name: str, measured: float, at_most: bool, where: str) -> None:
        limit = TARGETS[name]
        met = measured <= limit if at_most else measured >= limit
        out.append({"name": name, "measured": measured, "limit": limit,
                    "kind": "at most" if at_most else "at least", "where": where, "met": met})

    top = report["archival"][-1]
    if "ratios" in top:
        add("archival_ingest_vs_chroma", top["ratios"]["ingest"], False,
            f"{top['passages']} passages")
        add("archival_search_vs_chroma", top["ratios"]["dense_p50"], True,
            f"{top['passages']} passages, dense top 10 with rows")
    floor = report["dense_floor"][-1]
    add("exact_over_floor", floor["exact_over_floor"], True, f"{floor['passages']} passages")
    recall = report["recall"][-1]
    worst = max(recall["search"], key=lambda c: recall["search"][c]["p99_ms"])
    add("recall_search_p99_ms", recall["search"][worst]["p99_ms"], True,
        f"{recall['messages']} messages, worst class: {worst}")
    if report.get("recall_dense"):
        dense = report["recall_dense"][-1]
        worst = max(dense["search"], key=lambda c: dense["search"][c]["p99_ms"])
        add("recall_dense_search_p99_ms", dense["search"][worst]["p99_ms"], True,
            f"{dense['messages']} messages with vectors, worst class: {worst}")
    add("eviction_ratio", report["eviction"]["ratio_p50"], True,
        f"{report['meta']['core_sizes'][-1]} vs {report['meta']['core_sizes'][0]} facts")
    add("step_overhead_p50_ms", report["step"]["overhead_full"]["p50_ms"], True,
        f"{report['step']['passages']} passages, {report['step']['messages']} messages")
    add("cold_start_s", report["cold_start"]["chat"]["p50_ms"] / 1000, True,
        "cli.py chat --offline to exit on /exit")
    return out


# -- output --------------------------------------------------------------------------------
def _ms(stats: dict[str, Any]) -> str:
    return f"{stats['p50_ms']:.2f} / {stats['p99_ms']:.2f} ms"


def _rate(per_s: float) -> str:
    return f"{per_s:,.0f}/s"


def table_rows(report: dict[str, Any]) -> list[tuple[str, str, str, str, str]]:
    """(measure, size, tiermem, baseline, ratio) rows; times are p50 / p99."""
    rows: list[tuple[str, str, str, str, str]] = []
    for a in report["archival"]:
        size, t, c = f"{a['passages']:,}", a["tiermem"], a["chroma"]
        has = "skipped" not in c
        rows.append((f"1 archival ingest (committed, batches of {a['batch']})", size,
                     _rate(t["ingest_per_s"]), _rate(c["ingest_per_s"]) if has else "-",
                     f"{a['ratios']['ingest']:.1f}x faster" if has else "-"))
        rows.append(("1 search top 10 with rows: dense exact vs chroma HNSW", size,
                     _ms(t["dense_top10"]), _ms(c["query_top10"]) if has else "-",
                     f"{a['ratios']['dense_p50']:.2f}x the time" if has else "-"))
        rows.append((f"1 hybrid search (FTS5 + dense, {t['dense_matches_p50']:.0f} dense "
                     "matches)", size, _ms(t["hybrid_top10"]), _ms(c["query_top10"]) if has
                     else "-", f"{a['ratios']['hybrid_p50']:.2f}x the time" if has else "-"))
        if "hybrid_after_write" in t:
            after, again = t["hybrid_after_write"], t["hybrid_repeated"]
            rows.append(("1 hybrid search right after a passage is added vs repeated", size,
                         _ms(after), _ms(again),
                         f"{after['p50_ms'] / again['p50_ms']:.2f}x the time"))
        if has:
            rows.append(("1 recall@10 against a float32 scan's top 10", size,
                         f"{t['recall_at_10']:.2f}", f"{c['recall_at_10']:.2f}", "-"))
        if "hnsw" in t:
            g = t["hnsw"]
            rows.append((f"1 dense top 10: HNSW graph (ef_search {g['ef_search']}, built in "
                         f"{g['build_s']:.0f} s) vs exact", size, _ms(g["top10"]),
                         _ms(g["exact_top10"]), f"recall@10 {g['recall_at_10']:.3f}"))
    for f in report["dense_floor"]:
        bandwidth = f"{report['meta']['bandwidth_gbs']:.1f} GB/s"
        how = "8-bit scan + rescoring" if f["prefilter"] else "float32 scan"
        rows.append((f"2 exact dense ({how}) vs float32 read floor at {bandwidth}",
                     f"{f['passages']:,}", f"{f['exact_p50_ms']:.2f} ms",
                     f"{f['floor_ms']:.2f} ms", f"{f['exact_over_floor']:.2f}x the floor"))
        if f["prefilter"]:
            rows.append(("2 same, vs the 8-bit copy's read floor", f"{f['passages']:,}",
                         f"{f['exact_p50_ms']:.2f} ms", f"{f['byte_floor_ms']:.2f} ms",
                         f"{f['exact_over_byte_floor']:.2f}x the floor"))
        rows.append(("2 plain float32 FAISS scan vs float32 read floor", f"{f['passages']:,}",
                     f"{f['float_scan_p50_ms']:.2f} ms", f"{f['floor_ms']:.2f} ms",
                     f"{f['float_scan_over_floor']:.2f}x the floor"))
    for r, how in [*((r, "") for r in report["recall"]),
                   *((r, " with vectors") for r in report.get("recall_dense", []))]:
        size = f"{r['messages']:,}"
        rows.append((f"3 recall{how} append, one turn (2 messages, committed)", size,
                     _ms(r["append_turn"]), "-", "-"))
        if "append_bulk_per_s" in r:
            rows.append((f"3 recall{how} append, batches: bulk=True vs without", size,
                         _rate(r["append_bulk_per_s"]), _rate(r["append_rows_per_s"]),
                         f"{r['append_bulk_per_s'] / r['append_rows_per_s']:.1f}x"))
        g = r.get("hnsw")
        if g and g["approximate"]:
            rows.append((f"3 recall{how}: HNSW graph, built in {g['build_s']:.0f} s",
                         size, f"recall@10 {g['recall_at_10']:.3f}",
                         f"window {g['window_recall_at_10']:.3f}",
                         f"{g['search_page_kept']:.2f} of exact's first page"))
        for cls, s in r["search"].items():
            more = "" if s["total_exact"] else "at least "
            rows.append((f"3 recall{how} search: {cls} ({more}{s['matches_p50']:,.0f} matches)",
                         size, _ms(s), "-", "-"))
    e = report["eviction"]
    sizes = list(e["facts"])
    for s in sizes:
        rows.append(("4 add_fact with eviction", f"{int(s):,} facts", _ms(e["facts"][s]), "-",
                     f"{e['facts'][s]['p50_ms'] / e['facts'][sizes[0]]['p50_ms']:.2f}x"
                     f" vs {int(sizes[0]):,}"))
    st = report["step"]
    rows.append((f"5 step overhead: {st['passages']:,} passages + {st['messages']:,} messages"
                 " vs empty", "", _ms(st["overhead_full"]), _ms(st["overhead_empty"]),
                 f"{st['ratio_p50']:.2f}x"))
    rows.append(("5 of which the archival search the scripted model asks for", "",
                 _ms(st["search_full"]), _ms(st["search_empty"]), "-"))
    cs = report["cold_start"]
    rows.append(("6 chat --offline to exit, vs bare python", "",
                 _ms(cs["chat"]), _ms(cs["python_startup"]),
                 f"first run {cs['chat_first_run_ms']:.0f} ms"))
    oh = cs["open_home"]
    rows.append(("6 open home: FAISS load vs rebuild", f"{oh['passages']:,}",
                 _ms(oh["load_index"]), _ms(oh["rebuild_index"]),
                 f"rebuild {oh['rebuild_over_load']:.1f}x"))
    return rows


def print_report(console: Any, report: dict[str, Any]) -> None:
    from rich.table import Table

    meta = report["meta"]
    table = Table(title=f"tiermem performance ({meta['cpus']} cpus, {meta['seconds']:.0f} s;"
                        " p50 / p99)")
    for column in ("measure", "size", "tiermem", "baseline", "ratio"):
        table.add_column(column, justify="left" if column == "measure" else "right")
    for row in table_rows(report):
        table.add_row(*row)
    console.print(table)
    targets_table = Table(title="targets (at the largest size)")
    for column in ("target", "limit", "measured", "where", "met"):
        targets_table.add_column(column)
    for t in report["targets"]:
        targets_table.add_row(t["name"], f"{t['kind']} {t['limit']:g}", f"{t['measured']:.3g}",
                              t["where"], "[green]yes[/green]" if t["met"]
                              else "[bold red]no[/bold red]")
    console.print(targets_table)
    print_skipped(console, report)


def print_skipped(console: Any, report: dict[str, Any]) -> None:
    """Why the ChromaDB side was skipped, once; plain text (the reason quotes '.[bench]')."""
    for a in report["archival"]:
        if "skipped" in a["chroma"]:
            console.print(f"chroma skipped at {a['passages']}: {a['chroma']['skipped']}",
                          markup=False)
            break


def write_json(path: Path, report: dict[str, Any]) -> None:
    write_atomic(path, json.dumps(report, indent=2) + "\n")


def main(sizes: str | None = None, quick: bool = False, json_path: Path | None = None,
         seed: int = 0, work: Path | None = None, recall_dense: bool = False,
         json_stdout: bool = False) -> int:
    """The ``benchmark --perf`` command: measure, print the table, write the JSON (to
    standard output with ``json_stdout``, the table then going to standard error)."""
    from rich.console import Console

    console = Console(stderr=json_stdout)
    if not console.is_terminal:  # a file or pipe: keep the table's rows on one line each
        console = Console(width=160, stderr=json_stdout)
    try:
        opts = PerfOptions(sizes=parse_sizes(sizes, quick), quick=quick, seed=seed,
                           recall_dense=recall_dense)
    except ValueError as exc:
        sys.stderr.write(f"tiermem: {exc}\n")
        return 2
    # Looked up on its module, as measure_archival does, so one patch covers both.
    if not perf_stores.chroma_available():
        console.print(f"note: {CHROMA_MISSING}", markup=False)
    report = run_perf(opts, work=work,
                      progress=lambda text: console.print(f"{text} ...", style="dim",
                                                         markup=False))
    print_report(console, report)
    if json_path is not None:
        write_json(json_path, report)
        console.print(f"wrote {json_path}", markup=False)
    if json_stdout:
        sys.stdout.write(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--sizes", help="archival sizes, comma separated (default 10000,100000)")
    parser.add_argument("--quick", action="store_true",
                        help="fewer repetitions, and sizes 1000,10000 unless --sizes is given")
    parser.add_argument("--json", type=Path, help="write the report here")
    parser.add_argument("--work", type=Path, help="keep the stores in this directory")
    parser.add_argument("--recall-dense", action="store_true",
                        help="also measure recall with a vector per message")
    args = parser.parse_args()
    sys.exit(main(args.sizes, args.quick, args.json, work=args.work,
                  recall_dense=args.recall_dense))
