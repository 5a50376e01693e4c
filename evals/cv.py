"""Cross-validated fusion weights: tune on some conversations, report on the one left out.

Figures measured with weights fit to the very questions they are reported on
flatter the method. ``eval locomo --cv`` holds each conversation out in turn:
the fusion weights (``GRID``) are chosen by recall@10 (then MRR, then
closeness to the engine default) on the other conversations, and only the
held-out conversation's questions, under the chosen weights, count toward the
reported figures. Every split is recorded in the report (``splits``: which
conversation was held out, which were tuned on, and what was chosen), so a
reader can check that no conversation was tuned on its own questions.

Each conversation is ingested once per configuration; the weights change
only how its ingested memory ranks (``reweight``), so the grid costs queries,
not embeddings.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from tiermem.evals.configs import MemoryConfig, ingest
from tiermem.evals.figures import Record, UnitLog, by_category
from tiermem.evals.locomo import Conversation
from tiermem.evals.retrieval import questions_of, score_question, summarize
from tiermem.memory import HierarchicalMemory
from tiermem.memory.embed.embeddings import Embedder
from tiermem.memory.search.fusion import FusionWeights

#: Lexical weights tried (the dense weight is one minus it), around the default 0.6.
GRID = tuple(FusionWeights(round(w, 2), round(1 - w, 2)) for w in
             (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9))
TUNE_METRIC = "recall@10"


def reweight(memory: HierarchicalMemory, weights: FusionWeights) -> None:
    """Rank an ingested memory's searches by ``weights`` from now on (nothing re-embedded)."""
    memory.config = memory.config.updated(fusion=weights)
    memory.archival.weights = weights
    memory.recall.weights = weights


def weights_label(weights: FusionWeights) -> str:
    return f"{weights.lexical:g}:{weights.dense:g}"


def grid_records(conv: Conversation, config: MemoryConfig, embedder: Embedder,
                 ks: Sequence[int], limit: int | None, grid: Sequence[FusionWeights],
                 progress: Any = None) -> dict[str, list[Record]]:
    """Per-question records of ``conv`` under each weighting of ``grid``, by label."""
    questions = questions_of(conv, limit)
    task = progress.add_task(f"cv {config.name} {conv.id}", total=len(conv.turns)
                             + len(grid) * len(questions)) if progress is not None else None

    def advance(n: int) -> None:
        if progress is not None:
            progress.advance(task, n)

    memory = ingest(conv, config, embedder, advance)
    out: dict[str, list[Record]] = {}
    try:
        for weights in grid:
            reweight(memory.memory, weights)
            records = []
            for question in questions:
                ranked = [memory.dia_ids(h) for h in memory.search(question.question, max(ks))]
                records.append({"qid": question.qid, "category": question.category,
                                **score_question(question, ranked, ks)})
                advance(1)
            out[weights_label(weights)] = records
    finally:
        memory.close()
        if progress is not None:
            progress.remove_task(task)
    return out


def choose(candidates: dict[str, list[Record]], ks: Sequence[int],
           default: FusionWeights) -> str:
    """The label whose records score best: by TUNE_METRIC, then MRR, then nearest the default."""
    def key(label: str) -> tuple[float, float, float]:
        summary = summarize(candidates[label], ks)
        lexical = float(label.split(":")[0])
        return (summary.get(TUNE_METRIC, 0.0), summary["mrr"], -abs(lexical - default.lexical))
    return max(candidates, key=key)


def cross_validate(per_conv: dict[str, dict[str, list[Record]]], ks: Sequence[int],
                   default: FusionWeights) -> dict[str, Any]:
    """Leave-one-conversation-out over records already scored under every weighting.

    ``per_conv[conversation][label]`` holds that conversation's records under
    one weighting. Returns the splits (each with its held-out conversation's figures at the
    chosen and at the default weights), the held-out records pooled, and the pooled figures
    under the default weights for comparison.
    """
    if len(per_conv) < 2:
        raise ValueError("--cv needs at least two conversations (one to tune on, one to report)")
    label = weights_label(default)
    splits, held_out_records = [], []
    for held_out, by_label in per_conv.items():
        tuned_on = [c for c in per_conv if c != held_out]
        pooled = {label: [r for c in tuned_on for r in per_conv[c][label]] for label in by_label}
        chosen = choose(pooled, ks, default)
        records = by_label[chosen]
        held_out_records.extend(records)
        splits.append({"held_out": held_out, "tuned_on": tuned_on, "weights": chosen,
                       "tuned": summarize(pooled[chosen], ks),
                       "reported": summarize(records, ks),
                       "reported_by_category": by_category(records,
                                                           lambda rs: summarize(rs, ks)),
                       # the held-out conversation at the default weights, to set beside
                       # "reported": what tuning changed on this conversation
                       "default": summarize(by_label[label], ks),
                       "default_by_category": by_category(by_label[label],
                                                          lambda rs: summarize(rs, ks))})
    dev_records = [r for by_label in per_conv.values() for r in by_label[label]]
    return {
        "splits": splits,
        "overall": summarize(held_out_records, ks),
        "by_category": by_category(held_out_records, lambda rs: summarize(rs, ks)),
        "default_weights": label,
        "default": summarize(dev_records, ks),
        "default_by_category": by_category(dev_records, lambda rs: summarize(rs, ks)),
    }


def run_cv(conversations: Sequence[Conversation], configs: Sequence[MemoryConfig],
           embedder: Embedder, ks: Sequence[int], limit: int | None = None,
           grid: Sequence[FusionWeights] = GRID, progress: Any = None,
           log: UnitLog | None = None) -> dict[str, Any]:
    """Leave-one-conversation-out figures for each configuration (its fusion is tuned);
    ``log`` gets a line as each conversation starts and finishes, with its figures at the
    default weights."""
    log = log or UnitLog()
    report: dict[str, Any] = {"benchmark": "LoCoMo", "mode": "cv", "ks": list(ks),
                              "limit": limit, "conversations": [c.id for c in conversations],
                              "embedder": embedder.id, "grid": [weights_label(w) for w in grid],
                              "tune_metric": TUNE_METRIC, "configs": []}
    for config in configs:
        # The default must be among the candidates, so the dev figures come from the same run.
        # A configuration of one list (bm25, dense) has no weights to tune: mixing in the
        # other list would make it another configuration.
        # The grid varies the weights only: a configuration keeps its method (RRF), list
        # depth and pruning, or it would be reported as another configuration.
        default = config.fusion
        if not (default.lexical and default.dense):
            weights = [default]
        else:
            tuned = [dataclasses.replace(default, lexical=w.lexical, dense=w.dense) for w in grid]
            weights = tuned if default in tuned else [*tuned, default]
        per_conv = {}
        shown = f"{config.name} ({weights_label(default)})"
        for conv in conversations:
            log.started(shown, conv.id)
            per_conv[conv.id] = grid_records(conv, config, embedder, ks, limit, weights,
                                             progress)
            records = per_conv[conv.id][weights_label(default)]
            log.finished(shown, conv.id, {**summarize(records, ks), "questions": len(records)},
                         ran=True)
        report["configs"].append({"name": config.name, "description": config.description,
                                  **cross_validate(per_conv, ks, default)})
    return report


def render_cv(console: Any, report: dict[str, Any]) -> None:
    """Per configuration: default-weight (dev) and cross-validated figures, then each split."""
    from rich.table import Table

    from tiermem.evals.locomo import CATEGORIES

    table = Table(title=f"LoCoMo leave-one-conversation-out ({', '.join(report['conversations'])}"
                        f"), weights tuned by {report['tune_metric']}")
    # The last column sets a split beside its own conversation at the default weights (the
    # dev row holds all of them pooled).
    for column in ("config", "figures", "R@1", "R@10", "mrr", "questions", "default R@10"):
        table.add_column(column, justify="left" if column in ("config", "figures") else "right",
                         overflow="fold")
    for c in report["configs"]:
        for name, summary in ((f"dev, weights {c['default_weights']}", c["default"]),
                              ("cross-validated", c["overall"])):
            table.add_row(c["name"], name, *(f"{summary.get(m, 0):.3f}" for m in
                          ("recall@1", "recall@10", "mrr")), str(summary["questions"]), "")
        for split in c["splits"]:
            reported = split["reported"]
            table.add_row(c["name"], f"held out {split['held_out']} (tuned on "
                          f"{', '.join(split['tuned_on'])}: {split['weights']})",
                          *(f"{reported.get(m, 0):.3f}" for m in ("recall@1", "recall@10", "mrr")),
                          str(reported["questions"]),
                          f"{split['default'].get('recall@10', 0):.3f}")
    console.print(table)
    categories = sorted({k for c in report["configs"] for k in c["by_category"]}, key=int)
    cat_table = Table(title="recall@10 by category: dev (default weights) / cross-validated")
    cat_table.add_column("config", overflow="fold")
    for key in categories:
        cat_table.add_column(f"{key} {CATEGORIES.get(int(key), '?')}", justify="right",
                             overflow="fold")
    for c in report["configs"]:
        cat_table.add_row(c["name"], *(
            f"{c['default_by_category'].get(k, {}).get('recall@10', 0):.3f} / "
            f"{c['by_category'].get(k, {}).get('recall@10', 0):.3f}" for k in categories))
    console.print(cat_table)
