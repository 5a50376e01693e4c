"""QA baselines beside the memory configurations: what memory adds, measured in the same run.

- ``no-memory``: the model gets the question alone, with no tools and no
  conversation. It scores what the model guesses (and category 5, where the
  right answer is "no information", for free).
- ``full-context``: the whole conversation, one dated line per turn, is put in
  the prompt ahead of the question; no tools. This is the ceiling a long-context
  model reaches without any memory system. When the transcript does not fit the
  model's window (less the reply budget), the newest turns that fit are kept and
  the share kept is reported, so a truncated ceiling is never mistaken for a
  whole one.

Both are scored exactly as the memory configurations are (evals/qa_scores.py).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from tiermem.agent.llm import LLMClient
from tiermem.evals.configs import turn_text
from tiermem.evals.locomo import Conversation, Question
from tiermem.memory.text.tokenizer import TokenCounter

BASELINES = ("no-memory", "full-context")
BASELINE_DESCRIPTIONS = {
    "no-memory": "baseline: the question alone, no memory and no tools",
    "full-context": "baseline: the whole conversation in the prompt, no tools",
}
#: Tokens kept free for the chat template's own wrapping of each message.
MESSAGE_OVERHEAD = 8

NO_MEMORY_PROMPT = """\
Answer the question below about a conversation between {a} and {b}, held from {first} to \
{last}, which you have not seen. Reply with a short answer (a few words; a date as day month \
year). If you do not know, reply exactly: {none}.

Question: {question}"""
FULL_CONTEXT_PROMPT = """\
Below is a conversation between {a} and {b}, one message per line, each with the date it was \
said{cut}. Answer the question after it from the conversation. Reply with a short answer (a few \
words; a date as day month year). If the conversation has no information about it, reply \
exactly: {none}.

<conversation>
{transcript}
</conversation>

Question: {question}"""


@dataclass(frozen=True)
class BaselinePrompt:
    """The messages a baseline sends, and how much of the conversation they carry."""

    messages: list[dict[str, Any]]
    turns_kept: int
    turns_total: int


def transcript_lines(conv: Conversation) -> list[str]:
    """One line per turn: ``(8 May 2023) Ann: text [shares a photo: ...]``."""
    return [turn_text(turn, captions=True, dates=True) for turn in conv.turns]


def _day(stamp: float) -> str:
    day = dt.datetime.fromtimestamp(stamp, dt.UTC)
    return f"{day.day} {day:%B %Y}"


def baseline_prompt(kind: str, conv: Conversation, question: Question, *, none: str,
                    window: int, reserve: int, counter: TokenCounter) -> BaselinePrompt:
    """The prompt of baseline ``kind`` for ``question``, within ``window - reserve`` tokens.

    Raises ValueError when even the question alone cannot fit.
    """
    dates = [t.created_at for t in conv.turns] or [0.0]
    fields = {"a": conv.speakers[0], "b": conv.speakers[1], "first": _day(min(dates)),
              "last": _day(max(dates)), "none": none, "question": question.question}
    total = len(conv.turns)
    budget = window - reserve - MESSAGE_OVERHEAD
    if kind == "no-memory":
        text = NO_MEMORY_PROMPT.format(**fields)
        _check_fits(counter.count(text), budget, kind)
        return BaselinePrompt([{"role": "user", "content": text}], 0, total)
    if kind != "full-context":
        raise ValueError(f"unknown baseline {kind!r}; choose from {', '.join(BASELINES)}")
    lines = transcript_lines(conv)
    # Counted with the longest note a cut can add, so the note always fits too.
    bare = counter.count(FULL_CONTEXT_PROMPT.format(transcript="", cut=_cut_note(total, total),
                                                    **fields))
    _check_fits(bare, budget, kind)
    # Newest first: a cut keeps the end of the conversation, as a sliding window would.
    room, kept = budget - bare, 0
    for line in reversed(lines):
        cost = counter.count(line) + 1  # its newline
        if cost > room:
            break
        room -= cost
        kept += 1
    cut = "" if kept == total else _cut_note(total - kept, total)
    text = FULL_CONTEXT_PROMPT.format(transcript="\n".join(lines[total - kept:]), cut=cut,
                                      **fields)
    return BaselinePrompt([{"role": "user", "content": text}], kept, total)


def _cut_note(left_out: int, total: int) -> str:
    return f" (the oldest {left_out} of its {total} messages are left out: they did not fit)"


def _check_fits(tokens: int, budget: int, kind: str) -> None:
    if tokens > budget:
        raise ValueError(f"the {kind} baseline's prompt needs {tokens} tokens but the model's "
                         f"window leaves {budget}; pass a larger --context-window or a smaller "
                         f"--max-tokens, or drop the baselines with --no-baselines")


def answer(llm: LLMClient, prompt: BaselinePrompt) -> tuple[str, int]:
    """The model's answer to a baseline prompt (no tools) and the tokens it used."""
    completion = llm.complete(prompt.messages, [])
    return (completion.content or "").strip(), completion.usage.total_tokens
