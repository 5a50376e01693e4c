"""LoCoMo runs: retrieval or QA over the chosen configurations, tables and a JSON report out."""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tiermem.evals.configs import resolve_configs, with_rewrite
from tiermem.evals.embedders import load_now, make_embedder
from tiermem.evals.figures import UnitLog
from tiermem.evals.locomo import (
    Conversation,
    DataError,
    dropped_note,
    load_conversations,
    select,
)
from tiermem.evals.retrieval import DEFAULT_KS, run_retrieval
from tiermem.memory.embed.embeddings import Embedder
from tiermem.memory.search.rewrite import QueryRewriter
from tiermem.memory.text.counts import counted
from tiermem.memory.validation import MAX_RESULTS

#: ``--k`` when it is not given.
K_DEFAULT = "1,5,10,20"
QA_METRICS = ("f1", "judge", "tokens_per_question", "tool_calls_per_question", "context_share",
              "answered")


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
    cv: bool = False
    context_window: int | None = None
    timeout: float | None = None
    max_tokens: int | None = None
    text_tool_calls: str | None = None
    baselines: bool = True
    rewrite: bool = False
    core_limit: int | None = None


def parse_ks(text: str) -> list[int]:
    """``"1,5,10"`` -> [1, 5, 10]; each k from 1 to the most results a search returns."""
    try:
        ks = sorted({int(part) for part in text.split(",") if part.strip()})
    except ValueError:
        raise ValueError(f"--k takes comma-separated integers like 1,5,10,20, got {text!r}"
                         ) from None
    if not ks or ks[0] < 1:
        raise ValueError("--k needs at least one k, each at least 1")
    if ks[-1] > MAX_RESULTS:
        raise ValueError(f"--k {ks[-1]} is more than a search returns; give each k at most "
                         f"{MAX_RESULTS}")
    return ks


def run_locomo(options: EvalOptions, console: Any,
               note: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Run the evaluation, print its tables, and return the report; ``note`` (by default
    the console) is told what was assumed about the model's server."""
    from rich.progress import BarColumn, MofNCompleteColumn, TimeElapsedColumn

    if note is None:
        def note(text: str) -> None:
            console.print(f"tiermem: {text}", markup=False, highlight=False)
    loaded = load_conversations(options.data)
    conversations = select(loaded, list(options.conversations))
    _check_questions(conversations, options, len(loaded))
    dropped = dropped_note(conversations)
    if dropped is not None:
        note(dropped)
    default = ("hierarchy",) if options.mode == "qa" else ("hybrid", "hierarchy") \
        if options.cv else ()
    configs = resolve_configs(list(options.configs) or list(default) or None)
    if options.core_limit is not None:
        configs = [dataclasses.replace(c, core_limit=options.core_limit) for c in configs]
    rewriter = _rewriter(options, note) if options.rewrite else None
    if rewriter is not None:  # each configuration with and without, side by side
        configs = [*configs, *(with_rewrite(c) for c in configs)]
    embedder = load_now(make_embedder(options.embedder))
    columns = ("[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(),
               TimeElapsedColumn())
    if options.cv:
        return _run_cv(options, conversations, configs, embedder, console, columns)
    # The model before the progress bar: a model that cannot be made stops the run with
    # nothing of the bar written.
    llm, served = None, None
    if options.mode == "qa":
        from tiermem.evals.qa import make_llm, served_model_of

        llm = make_llm(options, note)
        served = served_model_of(options)
    with _progress(console, columns) as progress:
        if llm is not None:
            from tiermem.evals.baselines import BASELINES
            from tiermem.evals.qa import run_qa

            baselines = BASELINES if options.baselines else ()
            log = _unit_log(console, len(conversations) * (len(configs) + len(baselines)),
                            ("f1", "judge", "answered"))
            report = run_qa(conversations, configs, embedder, llm, limit=options.limit,
                            json_path=options.json_path, resume=options.resume,
                            judge_answers=options.judge, progress=progress,
                            baselines=baselines, chosen=_chosen_model_settings(options),
                            log=log, served_model=served)
        else:
            log = _unit_log(console, len(conversations) * len(configs),
                            [f"recall@{k}" for k in options.ks] + ["mrr"])
            report = run_retrieval(conversations, configs, embedder, ks=options.ks,
                                   limit=options.limit, json_path=options.json_path,
                                   resume=options.resume, progress=progress,
                                   rewriter=rewriter, log=log)
    from rich.markup import escape

    from tiermem.evals.figures import render

    if options.mode == "qa":
        render(console, report, QA_METRICS, "f1", (("answer_p50_s", "answer p50 s"),))
        for config in report["configs"]:
            if config.get("warning"):
                console.print(f"[bold red]{escape(config['name'])}: "
                              f"{escape(config['warning'])}[/bold red]")
    else:
        metrics = [f"recall@{k}" for k in options.ks] + ["mrr"]
        per_category = "recall@10" if 10 in options.ks else f"recall@{max(options.ks)}"
        render(console, report, metrics, per_category,
               (("ingest_turns_per_s", "ingest turns/s"), ("query_p50_ms", "query p50 ms")))
        if rewriter is not None:
            _note_rewrites(console, report, rewriter)
    if options.json_path is not None:
        console.print(f"report written to {options.json_path}")
    return report


def _progress(console: Any, columns: Sequence[Any]) -> Any:
    """The progress bar, shown on a terminal only: elsewhere it would show nothing but
    still end with a line break (on an error or Ctrl-C too), and ``_unit_log``'s lines on
    standard error stand in for it."""
    from rich.progress import Progress

    return Progress(*columns, console=console, transient=True,
                    disable=not console.is_terminal)


def _unit_log(console: Any, total: int, shown: Sequence[str]) -> UnitLog:
    """Plain lines on standard error when the output is no terminal: the progress bar
    shows nothing there."""
    if console.is_terminal:
        return UnitLog()

    def write(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    return UnitLog(total, shown, write)


def _chosen_model_settings(options: EvalOptions) -> list[str]:
    """The model settings (evals/report.py ``MODEL_SETTINGS``) that the options or the
    environment set, rather than leave at their defaults."""
    from tiermem.agent.server_options import config_from_args

    config = config_from_args(options)
    if config is None:
        return []
    given = {"context_window": config.context_window, "max_tokens": config.max_tokens,
             "encoding": config.encoding,
             "text_tool_calls": None if config.text_tool_calls == "auto" else "given"}
    return [key for key, value in given.items() if value is not None]


def _rewriter(options: EvalOptions, note: Callable[[str], None]) -> QueryRewriter:
    """The model that rewrites questions into search queries (``--rewrite``), known by its
    name and the id its server lists for it, not by the server's address: a unit it rewrote
    is reused when the server restarts on another port."""
    from tiermem.evals.qa import make_llm, model_name, served_model_of

    llm = make_llm(options, note)

    def ask(prompt: str) -> str:
        return llm.complete([{"role": "user", "content": prompt}], []).content or ""

    name, served = model_name(llm), served_model_of(options)
    return QueryRewriter(ask, model=name if served in (None, name) else f"{name} ({served})")


def _note_rewrites(console: Any, report: dict[str, Any], rewriter: QueryRewriter) -> None:
    for config in report["configs"]:
        if "rewrites_failed" in config:
            console.print(f"{config['name']}: the model's rewrite failed for "
                          f"{config['rewrites_failed']} of "
                          f"{counted(config['overall']['questions'], 'question')} "
                          "(searched as asked instead)", markup=False, highlight=False)
    if rewriter.last_error is not None:
        console.print(f"last rewrite failure: {rewriter.last_error}", markup=False,
                      highlight=False)


def _run_cv(options: EvalOptions, conversations: Sequence[Any], configs: Sequence[Any],
            embedder: Embedder, console: Any, columns: Sequence[Any]) -> dict[str, Any]:
    from tiermem.evals.cv import render_cv, run_cv
    from tiermem.memory.output_file import write_atomic

    ks = sorted({1, 10, *options.ks})  # tuning and the tables read recall@1 and recall@10
    log = _unit_log(console, len(conversations) * len(configs), ("recall@1", "recall@10", "mrr"))
    with _progress(console, columns) as progress:
        report = run_cv(conversations, configs, embedder, ks, limit=options.limit,
                        progress=progress, log=log)
    render_cv(console, report)
    if options.json_path is not None:
        import json

        write_atomic(options.json_path, json.dumps(report, indent=1) + "\n")
        console.print(f"report written to {options.json_path}")
    return report


def _check_questions(conversations: Sequence[Conversation], options: EvalOptions,
                     loaded: int) -> None:
    """DataError when there is nothing to score: figures of no question would read 0.000.
    ``loaded``: how many conversations the data holds, before --conversations chose."""
    if options.cv and len(conversations) < 2:
        # Refused before any ingest: the lone conversation would be scored, then dropped.
        if loaded > 1:
            given, remedy = "--conversations chose", "name two or more with --conversations"
        else:
            given, remedy = "the data holds", ("give --data two or more (a folder of them, "
                                               "or the released locomo10.json)")
        raise DataError(f"--cv needs at least two conversations (one to tune on, one to "
                        f"report), and {given} only {conversations[0].id}: {remedy}, or drop "
                        f"--cv")
    qa = options.mode == "qa"
    empty = [c.id for c in conversations if not (c.questions if qa else c.scored_questions())]
    what = "no question" if qa else "no question with evidence turns (retrieval scores those)"
    ids = ", ".join(empty)
    if len(empty) == len(conversations):
        raise DataError(f"conversation {ids} holds {what}: there is nothing to score; give "
                        "LoCoMo data with its qa list")
    if empty and options.cv:
        raise DataError(f"--cv reports each conversation held out, and {ids} holds {what}; "
                        "leave it out with --conversations")
