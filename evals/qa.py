"""QA mode: the agent answers each LoCoMo question with its memory tools, scored as LoCoMo does.

For each conversation, the memory is built as the configuration says (the
same ingestion as retrieval mode). Each question is then one agent turn
(``agent.loop.Agent``): the model searches its memory with its tools and
answers. The turn runs inside a transaction that is rolled back afterwards,
so every question meets the memory exactly as ingested and no question sees
another's search or answer.

Answers are scored as LoCoMo scores them (evals/qa_scores.py).

``--judge`` also asks the model whether each answer is right (evals/qa_judge.py).
Tokens are the provider's usage counts.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Sequence
from pathlib import Path
from typing import Any

from tiermem.agent.context import ContextOverflowError
from tiermem.agent.llm import LLMClient
from tiermem.agent.loop import Agent, TurnResult
from tiermem.agent.tool_use import no_tool_calls_warning, tool_calls
from tiermem.evals.baselines import BASELINE_DESCRIPTIONS, baseline_prompt
from tiermem.evals.baselines import answer as baseline_answer
from tiermem.evals.configs import MemoryConfig, ingest
from tiermem.evals.figures import Record, UnitLog, by_category, mean, percentile
from tiermem.evals.locomo import Conversation, Question
from tiermem.evals.qa_judge import NO_INFORMATION, has_unjudged, judge, judge_kept
from tiermem.evals.qa_scores import locomo_f1
from tiermem.evals.report import Expected, Report
from tiermem.memory import HierarchicalMemory
from tiermem.memory.embed.embeddings import Embedder
from tiermem.memory.text.tokenizer import DEFAULT_ENCODING, TokenCounter

QA_PROMPT = """\
Your memory holds a long conversation between {a} and {b}, in sessions from {first} to {last}; \
every message is stored with the date it was said. Answer the question below from that memory: \
search it with your tools first. Reply with a short answer (a few words; a date as day month \
year). If your memory has no information about it, reply exactly: {none}.

Question: {question}"""


def make_llm(options: Any, note: Callable[[str], None]) -> LLMClient:
    """The model QA asks, from ``options``' model, base URL, window, timeout and budget."""
    from tiermem.agent.server_options import config_from_args, open_client

    config = config_from_args(options)
    if config is None:
        raise ValueError("QA mode and --rewrite need a model: pass --model NAME (and "
                         "--base-url URL for a local server) or set TIERMEM_MODEL / "
                         "OPENAI_BASE_URL")
    return open_client(config, note)


def served_model_of(options: Any) -> str | None:
    """The id the server lists for the model ``options`` name (agent/server_facts.py
    ``served_model``), which tells one model loaded as ``--model local`` from another."""
    from tiermem.agent.server_facts import served_model
    from tiermem.agent.server_options import config_from_args

    config = config_from_args(options)
    return None if config is None else served_model(config.base_url, config.model,
                                                    config.api_key)


def model_name(llm: LLMClient) -> str:
    """The model's name as the requests send it (not where the server listens: a server
    restarted on another port, or named localhost rather than 127.0.0.1, runs the same)."""
    return str(getattr(llm, "model", None) or getattr(llm, "name", "?"))


class _Discard(Exception):
    """Raised to roll a question's turn back."""


def ask(memory: HierarchicalMemory, llm: LLMClient, text: str) -> TurnResult:
    """One agent turn on ``text``, rolled back afterwards."""
    outcome: list[TurnResult] = []
    try:
        with memory.store.transaction():
            outcome.append(Agent(memory, llm).step(text))
            raise _Discard
    except _Discard:
        pass
    return outcome[0]


def overflow_advice(error: ContextOverflowError, memory: HierarchicalMemory,
                    llm: LLMClient) -> str:
    """What of eval's own options would make ``error``'s context fit (chat's advice names
    chat's options, and an eval question is no message to shorten)."""
    core = memory.core
    over = (error.needed - error.budget
            if error.needed is not None and error.budget is not None else 0)
    # A number only when core is counted as the context is: the same tokens, the same encoding.
    encoding = getattr(llm, "encoding", None) or memory.tokenizer.encoding
    window = ("use a model with a larger window (--context-window N when the server's own is "
              "larger than the one assumed)")
    budget = "the reply budget (--max-tokens N or TIERMEM_MAX_TOKENS)"
    counted_alike = core.unit == "tokens" and encoding == memory.tokenizer.encoding
    if counted_alike and over > 0 and over >= core.used:
        # Even an empty core would not fit: the instructions, tools and question are too big.
        return (f"{window}, or lower {budget}; a lower --core-limit would not do (core holds "
                f"{core.used} tokens and the context is {over} over)")
    if counted_alike and 0 < over < core.used:
        core_limit = (f"--core-limit N (at most {core.used - over}: core holds {core.used} tokens "
                      f"and the context is {over} over)")
    else:
        core_limit = "--core-limit N"
    return f"{window}, give a lower {core_limit}, or lower {budget}"


def _prompt(conv: Conversation, question: Question) -> str:
    dates = [t.created_at for t in conv.turns] or [0.0]
    return QA_PROMPT.format(a=conv.speakers[0], b=conv.speakers[1], first=_day(min(dates)),
                            last=_day(max(dates)), none=NO_INFORMATION,
                            question=question.question)


def _day(stamp: float) -> str:
    import datetime as dt

    day = dt.datetime.fromtimestamp(stamp, dt.UTC)
    return f"{day.day} {day:%B %Y}"


def summarize(records: Sequence[Record]) -> dict[str, Any]:
    # A mean of the judged part of a row would read as the row's: judged only when all are
    # (a run without --judge keeps the verdicts of the answers it kept, and judges no others).
    judged = [r["judge"] for r in records if r.get("judge") is not None]
    if len(judged) < len(records):
        judged = []
    # Records from a report written before tool calls were counted have none.
    counted = [r for r in records if "tool_calls" in r]
    return {"f1": mean([r["f1"] for r in records]), "judge": mean(judged) if judged else None,
            "tokens_per_question": mean([r["tokens"] for r in records]),
            "tool_calls_per_question": mean([r["tool_calls"] for r in counted])
            if counted else None,
            "without_memory_tools": sum(not r["memory_tool_calls"] for r in counted),
            # An empty reply (a model that stopped with no text) is asked but not answered.
            "answered": sum(bool(str(r.get("answer") or "").strip()) for r in records),
            "questions": len(records)}


def tool_call_warning(records: Sequence[Record]) -> str | None:
    """The warning for a run whose model never called a memory tool."""
    counted = [r for r in records if "memory_tool_calls" in r]
    return no_tool_calls_warning(sum(r["memory_tool_calls"] for r in counted), len(counted))


def run_qa(
    conversations: Sequence[Conversation],
    configs: Sequence[MemoryConfig],
    embedder: Embedder,
    llm: LLMClient,
    *,
    limit: int | None = None,
    json_path: Path | None = None,
    resume: bool = False,
    judge_answers: bool = False,
    progress: Any = None,
    baselines: Sequence[str] = (),
    chosen: Collection[str] = (),
    log: UnitLog | None = None,
    served_model: str | None = None,
) -> dict[str, Any]:
    """Answer and score every question; the report is saved after each answer.

    ``baselines`` (evals/baselines.py) are answered and scored the same way,
    as rows of the same report. ``chosen``: the model settings (evals/report.py
    ``MODEL_SETTINGS``) this run set rather than left at their defaults, which a report
    written before they were recorded cannot have had. ``log`` is told of each unit.
    ``served_model``: the id the server lists for the model (``served_model_of``), when it
    said; a report of another model, by name or by that id, is refused rather than resumed.
    """
    log = log or UnitLog()
    settings = model_settings(llm)
    header = {"benchmark": "LoCoMo", "mode": "qa", "ks": None, "limit": limit,
              "conversations": [c.id for c in conversations], "embedder": embedder.id,
              "model": model_name(llm), "served_model": served_model,
              "judge": judge_answers, **settings,
              "questions_total": sum(len(questions_of(c, limit)) for c in conversations)}
    report = Report(json_path, header, resume=resume, chosen=chosen)
    # Not whether answers are judged: a verdict belongs to its answer, so a resume with
    # --judge judges the kept answers that have none and keeps those that have one.
    # Nor the model: the report holds one model's answers (Report refuses another).
    asked = dict(settings)
    plans = {(config.name, conv.id): Expected.of(
        {"config": config.as_dict(), "embedder": embedder.id, **asked},
        questions_of(conv, limit), _RECORD_FIELDS)
        for config in configs for conv in conversations}
    plans.update({(kind, conv.id): Expected.of(
        {"baseline": kind, **asked}, questions_of(conv, limit),
        _RECORD_FIELDS + (("turns_kept", "turns_total") if kind == "full-context" else ()))
        for kind in baselines for conv in conversations})
    report.check(plans)
    for config in configs:
        units = []
        for conv in conversations:
            unit = report.partial(config.name, conv.id, plans[config.name, conv.id])
            unjudged = judge_answers and has_unjudged(unit)
            ran = not unit["done"] or unjudged
            if ran:
                log.started(config.name, conv.id)
            if unjudged:
                judge_kept(config.name, unit, llm, report, conv, questions_of(conv, limit),
                           progress)
            if not unit["done"]:
                _answer_all(conv, config, embedder, llm, unit, report, limit, judge_answers,
                            progress)
            log.finished(config.name, conv.id, summarize(unit["questions"]), ran)
            units.append(unit)
        records = [r for u in units for r in u["questions"]]
        warning = tool_call_warning(records)
        report.configs.append({
            "name": config.name, "description": config.description,
            "config": config.as_dict(), "embedder": embedder.id, "model": header["model"],
            "overall": summarize(records), "by_category": by_category(records, summarize),
            "warning": warning, "no_tool_calls": warning is not None,
            "timings": {"answer_p50_s": percentile([r["seconds"] for r in records], 0.5),
                        "ingest_seconds": round(sum(u.get("ingest_seconds", 0.0)
                                                    for u in units), 2)},
        })
        report.save()
    for kind in baselines:
        _run_baseline(kind, conversations, llm, report, plans, limit, judge_answers, progress,
                      log)
    return report.as_dict()


#: The numbers every answer's record holds (its figures are read from them).
_RECORD_FIELDS = ("f1", "tokens", "seconds")


def questions_of(conv: Conversation, limit: int | None) -> list[Question]:
    """The questions QA asks of ``conv``: all of them, evidence or not."""
    return conv.questions[:limit] if limit else conv.questions


def model_settings(llm: LLMClient) -> dict[str, Any]:
    """What of the model's settings changes what is asked and answered: the window and the
    reply budget decide what fits in a prompt (how much of the conversation the
    full-context baseline keeps), the budget how long an answer may be, the encoding how
    prompts are counted, and text tool calls whether a call written as text is run."""
    return {"context_window": llm.context_window,
            "max_tokens": int(getattr(llm, "max_tokens", 0) or 0),
            "text_tool_calls": getattr(llm, "text_tool_calls", None),
            "encoding": getattr(llm, "encoding", None)}


def _run_baseline(kind: str, conversations: Sequence[Conversation], llm: LLMClient,
                  report: Report, plans: dict[tuple[str, str], Expected], limit: int | None,
                  judge_answers: bool, progress: Any, log: UnitLog) -> None:
    units = []
    for conv in conversations:
        unit = report.partial(kind, conv.id, plans[kind, conv.id])
        unjudged = judge_answers and has_unjudged(unit)
        ran = not unit["done"] or unjudged
        if ran:
            log.started(kind, conv.id)
        if unjudged:
            judge_kept(kind, unit, llm, report, conv, questions_of(conv, limit), progress)
        if not unit["done"]:
            _answer_baseline(kind, conv, llm, unit, report, limit, judge_answers, progress)
        log.finished(kind, conv.id, summarize(unit["questions"]), ran)
        units.append(unit)
    records = [r for u in units for r in u["questions"]]
    overall = summarize(records)
    if kind == "full-context":
        overall["context_share"] = mean([r["turns_kept"] / r["turns_total"] for r in records
                                         if r["turns_total"]])
    report.configs.append({
        "name": kind, "description": BASELINE_DESCRIPTIONS[kind], "config": {"baseline": kind},
        "embedder": None, "model": model_name(llm), "overall": overall,
        "by_category": by_category(records, summarize), "warning": None,
        "no_tool_calls": False,  # offered none
        "timings": {"answer_p50_s": percentile([r["seconds"] for r in records], 0.5)},
    })
    report.save()


def _answer_baseline(kind: str, conv: Conversation, llm: LLMClient, unit: dict[str, Any],
                     report: Report, limit: int | None, judge_answers: bool,
                     progress: Any) -> None:
    questions = questions_of(conv, limit)
    done = {r["qid"] for r in unit["questions"]}
    task = progress.add_task(f"{kind} {conv.id}: answers", total=len(questions),
                             completed=len(done)) if progress is not None else None
    counter = TokenCounter(getattr(llm, "encoding", None) or DEFAULT_ENCODING)
    reserve = int(getattr(llm, "max_tokens", 0) or 0)
    try:
        for question in questions:
            if question.qid in done:
                continue
            started = time.perf_counter()
            prompt = baseline_prompt(kind, conv, question, none=NO_INFORMATION,
                                     window=llm.context_window, reserve=reserve,
                                     counter=counter)
            reply, tokens = baseline_answer(llm, prompt)
            record: Record = {
                "qid": question.qid, "category": question.category,
                "question": question.question, "reference": question.answer, "answer": reply,
                "f1": round(locomo_f1(reply, question.answer, question.category), 4),
                "tokens": tokens, "turns_kept": prompt.turns_kept,
                "turns_total": prompt.turns_total,
                "seconds": round(time.perf_counter() - started, 3), "judge": None,
            }
            if judge_answers:
                record["judge"], record["judge_tokens"] = judge(llm, question, reply)
            unit["questions"].append(record)
            report.put(kind, conv.id, unit)
            if task is not None:
                progress.advance(task, 1)
        unit["done"] = True
        report.put(kind, conv.id, unit)
    finally:
        if task is not None:
            progress.remove_task(task)


def _answer_all(conv: Conversation, config: MemoryConfig, embedder: Embedder, llm: LLMClient,
                unit: dict[str, Any], report: Report, limit: int | None, judge_answers: bool,
                progress: Any) -> None:
    questions = questions_of(conv, limit)
    done = {r["qid"] for r in unit["questions"]}
    task = progress.add_task(f"{config.name} {conv.id}: ingest", total=len(conv.turns)) \
        if progress is not None else None
    memory = ingest(conv, config, embedder,
                    lambda n: progress.advance(task, n) if progress is not None else None)
    unit["ingest_seconds"] = round(memory.seconds, 4)
    try:
        if progress is not None:
            progress.update(task, description=f"{config.name} {conv.id}: answers",
                            completed=len(done), total=len(questions))
        for question in questions:
            if question.qid in done:
                continue
            started = time.perf_counter()
            try:
                turn = ask(memory.memory, llm, _prompt(conv, question))
            except ContextOverflowError as exc:
                raise ContextOverflowError(exc.detail, exc.needed, exc.budget,
                                           overflow_advice(exc, memory.memory, llm)) from None
            reply = turn.reply or ""
            calls, memory_calls = tool_calls(turn.tool_results)
            record: Record = {
                "qid": question.qid, "category": question.category,
                "question": question.question, "reference": question.answer, "answer": reply,
                "f1": round(locomo_f1(reply, question.answer, question.category), 4),
                "tokens": turn.usage.total_tokens, "steps": turn.steps,
                "tool_calls": calls, "memory_tool_calls": memory_calls,
                "seconds": round(time.perf_counter() - started, 3), "judge": None,
            }
            if judge_answers:
                record["judge"], record["judge_tokens"] = judge(llm, question, reply)
            unit["questions"].append(record)
            report.put(config.name, conv.id, unit)
            if progress is not None:
                progress.advance(task, 1)
        unit["done"] = True
        report.put(config.name, conv.id, unit)
    finally:
        memory.close()
        if progress is not None:
            progress.remove_task(task)
