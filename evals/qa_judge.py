"""``--judge``: the model says whether each QA answer is right (an LLM judge, as Mem0 and
others report it), for answers given now and for answers a report kept without a verdict."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from tiermem.agent.llm import LLMClient
from tiermem.evals.locomo import Conversation, Question
from tiermem.evals.report import Report

#: What an answer says when the memory holds nothing about the question (and what the
#: judge takes as the reference of an adversarial question, whose answer is not there).
NO_INFORMATION = "No information available"
JUDGE_PROMPT = """\
Question: {question}
Reference answer: {reference}
Given answer: {answer}

Is the given answer correct? It is correct when it states the same thing as the reference; \
wording, detail and date format may differ, and a relative date that resolves to the reference \
is correct. Reply with one word: CORRECT or WRONG."""


def judge(llm: LLMClient, question: Question, answer: str) -> tuple[float, int]:
    """(1.0 if the model judges ``answer`` right else 0.0, tokens the judging used)."""
    reference = question.answer if question.category != 5 else (
        f"{NO_INFORMATION} (the conversation does not say)")
    prompt = JUDGE_PROMPT.format(question=question.question, reference=reference, answer=answer)
    completion = llm.complete([{"role": "user", "content": prompt}], [])
    return float(_judged_right(completion.content or "")), completion.usage.total_tokens


def _judged_right(verdict: str) -> bool:
    """Whether a judge's verdict says right: its first word, as the prompt asks for one;
    else by whole words ("INCORRECT" holds "CORRECT"), a negation just before CORRECT
    ("not correct", "isn't correct") or any WRONG / INCORRECT making it wrong."""
    words = re.findall(r"[A-Z]+", verdict.upper())
    if words and words[0] in ("CORRECT", "WRONG", "INCORRECT"):
        return words[0] == "CORRECT"
    negations = {"NOT", "T", "NO", "NEVER"}  # "isn't" is ISN, T
    negated = any(w == "CORRECT" and negations & set(words[max(0, i - 2):i])
                  for i, w in enumerate(words))
    return "CORRECT" in words and not negated and not {"WRONG", "INCORRECT"} & set(words)


def has_unjudged(unit: dict[str, Any]) -> bool:
    """Whether ``unit`` holds an answer kept without a verdict (from a run without --judge)."""
    return any(r.get("judge") is None for r in unit["questions"])


def judge_kept(name: str, unit: dict[str, Any], llm: LLMClient, report: Report,
               conv: Conversation, questions: Sequence[Question], progress: Any) -> None:
    """Judge the answers ``unit`` kept from a run without ``--judge``.

    Kept verdicts are kept: judging an answer again costs a request and may give another
    verdict for the same answer. Each verdict is saved as it comes, as each answer is."""
    unjudged = [r for r in unit["questions"] if r.get("judge") is None]
    by_qid = {q.qid: q for q in questions}
    task = progress.add_task(f"{name} {conv.id}: judging kept answers", total=len(unjudged)
                             ) if progress is not None else None
    try:
        for record in unjudged:
            record["judge"], record["judge_tokens"] = judge(
                llm, by_qid[record["qid"]], str(record.get("answer") or ""))
            report.put(name, conv.id, unit)
            if task is not None:
                progress.advance(task, 1)
    finally:
        if task is not None:
            progress.remove_task(task)
