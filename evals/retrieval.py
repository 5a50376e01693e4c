"""Retrieval mode: for each question, search the memory and score evidence recall@k.

Recall@k is the share of a question's evidence turns among the turns of the
first k hits (a fact extracted from a turn stands for that turn); MRR is the
mean of 1 / the rank of the first hit that is evidence. Both are averaged over
questions (all conversations together), overall and per category. Questions
without evidence are not scored. No language model is involved.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tiermem.evals.configs import MemoryConfig, ingest
from tiermem.evals.figures import Record, UnitLog, by_category, mean, percentile
from tiermem.evals.locomo import Conversation, Question, evidence_recall, reciprocal_rank
from tiermem.evals.report import Expected, Report
from tiermem.memory.embed.embeddings import Embedder
from tiermem.memory.search.rewrite import QueryRewriter, rewritten_search

DEFAULT_KS = (1, 5, 10, 20)


def score_question(question: Question, ranked: Sequence[Sequence[str]], ks: Sequence[int]
                   ) -> dict[str, float]:
    """recall@k for each k, and the reciprocal rank, of one question's ranked hits."""
    scores = {f"recall@{k}": evidence_recall(ranked, question.evidence, k) for k in ks}
    scores["rr"] = reciprocal_rank(ranked, question.evidence)
    return scores


def summarize(records: Sequence[Record], ks: Sequence[int]) -> dict[str, Any]:
    out: dict[str, Any] = {f"recall@{k}": mean([r[f"recall@{k}"] for r in records]) for k in ks}
    out["mrr"] = mean([r["rr"] for r in records])
    out["questions"] = len(records)
    return out


def questions_of(conv: Conversation, limit: int | None) -> list[Question]:
    scored = conv.scored_questions()
    return scored[:limit] if limit else scored


def run_unit(conv: Conversation, config: MemoryConfig, embedder: Embedder, ks: Sequence[int],
             limit: int | None, progress: Any = None,
             rewriter: QueryRewriter | None = None) -> dict[str, Any]:
    """Ingest one conversation under one configuration and score its questions
    (a ``rewrite`` configuration asks ``rewriter`` for more queries)."""
    if config.rewrite and rewriter is None:
        raise ValueError(f"{config.name} rewrites questions with a model: pass --model")
    questions = questions_of(conv, limit)
    task = progress.add_task(f"{config.name} {conv.id}: ingest", total=len(conv.turns)) \
        if progress is not None else None

    def advance(n: int) -> None:
        if progress is not None:
            progress.advance(task, n)

    memory = ingest(conv, config, embedder, advance)
    # Another configuration may have asked these questions: its query vectors, kept by the
    # embedder, would time this one's searches without the model.
    forget_queries = getattr(embedder, "forget_queries", None)
    if callable(forget_queries):
        forget_queries()
    try:
        if progress is not None:
            progress.update(task, description=f"{config.name} {conv.id}: queries", completed=0,
                            total=len(questions))
        records = []
        for question in questions:
            started = time.perf_counter()
            extra: dict[str, Any] = {}
            if config.rewrite and rewriter is not None:
                hits, queries = rewritten_search(memory.search, question.question, max(ks),
                                                 rewriter)
                extra = {"queries": queries, "rewrite_failed": not queries}
            else:
                hits = memory.search(question.question, max(ks))
            elapsed = (time.perf_counter() - started) * 1000
            ranked = [memory.dia_ids(h) for h in hits]
            records.append({"qid": question.qid, "category": question.category,
                            "evidence": list(question.evidence), "retrieved": ranked,
                            **score_question(question, ranked, ks), "ms": round(elapsed, 3),
                            **extra})
            advance(1)
        facts = len(memory.memory.core)
        archived = len(memory.memory.archival)
    finally:
        memory.close()
        if progress is not None:
            progress.remove_task(task)
    return {"done": True, "turns": len(conv.turns), "ingest_seconds": round(memory.seconds, 4),
            "core_facts": facts, "archival_passages": archived, "questions": records}


def aggregate(config: MemoryConfig, embedder_id: str, units: Sequence[dict[str, Any]],
              ks: Sequence[int]) -> dict[str, Any]:
    records = [r for u in units for r in u["questions"]]
    turns = sum(u["turns"] for u in units)
    seconds = sum(u["ingest_seconds"] for u in units)
    latencies = [r["ms"] for r in records]
    rewrites = {"rewrites_failed": sum(bool(r["rewrite_failed"]) for r in records)
                } if config.rewrite else {}
    return {
        "name": config.name,
        "description": config.description,
        "config": config.as_dict(),
        "embedder": embedder_id,
        "overall": summarize(records, ks),
        "by_category": by_category(records, lambda rs: summarize(rs, ks)),
        "timings": {
            "ingest_turns_per_s": round(turns / seconds, 1) if seconds else None,
            "ingest_seconds": round(seconds, 2),
            "query_p50_ms": percentile(latencies, 0.5),
            "query_p95_ms": percentile(latencies, 0.95),
        },
        **rewrites,
    }


def _fingerprint(config: MemoryConfig, embedder: Embedder,
                 rewriter: QueryRewriter | None) -> dict[str, Any]:
    fingerprint: dict[str, Any] = {"config": config.as_dict(), "embedder": embedder.id}
    if config.rewrite and rewriter is not None:
        # Another model's queries are another result: --resume runs the unit again.
        fingerprint["rewriter"] = {"model": rewriter.model, "most": rewriter.most}
    return fingerprint


def run_retrieval(
    conversations: Sequence[Conversation],
    configs: Sequence[MemoryConfig],
    embedder: Embedder,
    *,
    ks: Sequence[int] = DEFAULT_KS,
    limit: int | None = None,
    json_path: Path | None = None,
    resume: bool = False,
    progress: Any = None,
    rewriter: QueryRewriter | None = None,
    log: UnitLog | None = None,
) -> dict[str, Any]:
    """Every configuration on every conversation; the report (also written to ``json_path``).
    ``rewriter`` serves the configurations that rewrite questions with a model; ``log`` is
    told of each unit."""
    log = log or UnitLog()
    header = {"benchmark": "LoCoMo", "mode": "retrieval", "ks": list(ks), "limit": limit,
              "conversations": [c.id for c in conversations], "embedder": embedder.id,
              "questions_total": sum(len(questions_of(c, limit)) for c in conversations)}
    report = Report(json_path, header, resume=resume)
    fields = [f"recall@{k}" for k in ks] + ["rr", "ms"]
    plans = {(config.name, conv.id): Expected.of(
        _fingerprint(config, embedder, rewriter), questions_of(conv, limit),
        fields + (["rewrite_failed"] if config.rewrite else []), ("turns", "ingest_seconds"))
        for config in configs for conv in conversations}
    report.check(plans)
    for config in configs:
        units = []
        for conv in conversations:
            plan = plans[config.name, conv.id]
            unit = report.finished(config.name, conv.id, plan)
            ran = unit is None
            if unit is None:
                log.started(config.name, conv.id)
                unit = {"fingerprint": plan.fingerprint,
                        **run_unit(conv, config, embedder, ks, limit, progress, rewriter)}
                report.put(config.name, conv.id, unit)
            log.finished(config.name, conv.id, summarize(unit["questions"], ks), ran)
            units.append(unit)
        report.configs.append(aggregate(config, embedder.id, units, ks))
        report.save()
    return report.as_dict()
