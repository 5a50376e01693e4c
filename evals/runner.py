"""``tiermem eval locomo``: options in, tables and a JSON report out."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evals.configs import resolve_configs
from evals.locomo import load_conversations, select
from evals.retrieval import DEFAULT_KS, run_retrieval
from memory.embeddings import Embedder, HashingEmbedder, default_embedder

QA_METRICS = ("f1", "judge", "tokens_per_question", "answered")


@dataclass
class EvalOptions:
    data: Sequence[str]
    ks: Sequence[int] = DEFAULT_KS
    configs: Sequence[str] = ()
    json_path: Path | None = None
    limit: int | None = None
    conversations: Sequence[str] = ()
    mode: str = "retrieval"
    embedder: str = "local"
    resume: bool = False
    model: str | None = None
    base_url: str | None = None
    judge: bool = False


def parse_ks(text: str) -> list[int]:
    """``"1,5,10"`` -> [1, 5, 10]; each k at least 1."""
    try:
        ks = sorted({int(part) for part in text.split(",") if part.strip()})
    except ValueError:
        raise ValueError(f"--k takes comma-separated integers like 1,5,10,20, got {text!r}"
                         ) from None
    if not ks or ks[0] < 1:
        raise ValueError("--k needs at least one k, each at least 1")
    return ks


def make_embedder(name: str) -> Embedder:
    if name == "hashing":
        return HashingEmbedder()
    if name == "local":
        return default_embedder()
    raise ValueError(f"unknown embedder {name!r}; use local or hashing")


def run_locomo(options: EvalOptions, console: Any) -> dict[str, Any]:
    """Run the evaluation, print its tables, and return the report."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    conversations = select(load_conversations(options.data), list(options.conversations))
    default = ("hierarchy",) if options.mode == "qa" else ()
    configs = resolve_configs(list(options.configs) or list(default) or None)
    embedder = make_embedder(options.embedder)
    columns = ("[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(),
               TimeElapsedColumn())
    with Progress(*columns, console=console, transient=True) as progress:
        if options.mode == "qa":
            from evals.qa import make_llm, run_qa

            llm = make_llm(options.model, options.base_url)
            report = run_qa(conversations, configs, embedder, llm, limit=options.limit,
                            json_path=options.json_path, resume=options.resume,
                            judge_answers=options.judge, progress=progress)
        else:
            report = run_retrieval(conversations, configs, embedder, ks=options.ks,
                                   limit=options.limit, json_path=options.json_path,
                                   resume=options.resume, progress=progress)
    from evals.report import render

    if options.mode == "qa":
        render(console, report, QA_METRICS, "f1", (("answer_p50_s", "answer p50 s"),))
    else:
        metrics = [f"recall@{k}" for k in options.ks] + ["mrr"]
        per_category = "recall@10" if 10 in options.ks else f"recall@{max(options.ks)}"
        render(console, report, metrics, per_category,
               (("ingest_turns_per_s", "ingest turns/s"), ("query_p50_ms", "query p50 ms")))
    if options.json_path is not None:
        console.print(f"report written to {options.json_path}")
    return report
