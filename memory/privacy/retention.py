"""The retention layer: whether an item may be stored, decided before any write.

Modes (``retention.mode``):

- ``deterministic``: a rule match drops the item; no model is asked.
- ``hybrid``: a rule match is only a candidate drop, which the judge confirms or
  overturns; items no rule matched go to the judge as well.
- ``llm``: every item goes to the judge; rules lend only their descriptions.

A judge that fails (raises, or gives no readable verdict for an item) drops
the item: content nobody could review is not kept. An ``ambiguous`` verdict
falls back to the rule's verdict (drop) where a rule matched, and to store
where none did.

Facts and passages are judged whole and dropped whole. A recall message is
judged sentence by sentence, and each dropped sentence is replaced by
``[withheld: CATEGORY]``, so the conversation log stays complete without
keeping the secret (``mask``). CATEGORY is one of the policy's categories, or
``private``: a judge's name for another is not written, so that every mark is
one the policy can write, and only such a mark is left unjudged when a text is
masked (again). A dropped fact or passage names its category the same way
(``RetentionDroppedError``, which the tools give the model as text).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tiermem.memory.judge import Judge
from tiermem.memory.privacy.config import DEFAULT_CATEGORY
from tiermem.memory.privacy.judging import RETENTION_VERDICTS, JudgedItem, ask, retention_prompt
from tiermem.memory.privacy.rules import RuleSet
from tiermem.memory.text.extract import is_question
from tiermem.memory.text.sentences import split_sentences

#: A span already withheld, when its label is one the policy writes (``withheld_spans``):
#: never judged again, so masking twice changes nothing.
PLACEHOLDER = re.compile(r"\[withheld: ([\w .&/-]{1,60})\]")


@dataclass(frozen=True)
class Decision:
    """What a layer decided about one item: ``allowed`` (stored, or shown) or not, and why.

    ``by`` is ``rules`` (decided by the ruleset), ``judge`` (the judge's verdict),
    ``judge failed`` (no usable verdict: fails closed) or ``ambiguous`` (the
    judge could not tell, and the default applied).
    """

    allowed: bool
    category: str | None = None
    rule_id: str | None = None
    by: str = "rules"

    @property
    def cacheable(self) -> bool:
        # A failed judgement may succeed when asked again.
        return self.by != "judge failed"


ALLOWED = Decision(True)


def flagged_items(mode: str, rules: RuleSet, items: Sequence[tuple[str, Mapping[str, Any]]]
                  ) -> list[JudgedItem]:
    """Each item with the first rule it matches (none in ``llm`` mode, which reads no rule)."""
    out = []
    for text, metadata in items:
        found = rules.matches(text, metadata) if mode != "llm" else []
        out.append(JudgedItem(text, found[0] if found else None))
    return out


def by_rules(items: Sequence[JudgedItem]) -> list[Decision]:
    """The rules' own verdicts: a flagged item is not allowed."""
    return [Decision(False, i.flagged.category, i.flagged.rule_id) if i.flagged else ALLOWED
            for i in items]


def decide_retention(mode: str, rules: RuleSet, policies: Sequence[str], judge: Judge | None,
                     items: Sequence[tuple[str, Mapping[str, Any]]]) -> list[Decision]:
    """Store or drop, for each ``(text, metadata)`` item, per the module docstring."""
    asked = flagged_items(mode, rules, items)
    if mode == "deterministic" or judge is None:
        return by_rules(asked)
    answers = ask(judge, retention_prompt(rules, policies), asked, RETENTION_VERDICTS)
    decisions = []
    for item, answer in zip(asked, answers, strict=True):
        flag = item.flagged
        rule_category = flag.category if flag else None
        rule_id = flag.rule_id if flag else None
        if answer is None:
            decisions.append(Decision(False, rule_category or DEFAULT_CATEGORY, rule_id,
                                      "judge failed"))
        elif answer.verdict == "store":
            decisions.append(Decision(True, by="judge"))
        elif answer.verdict == "drop":
            decisions.append(Decision(False, rules.category_named(answer.category) or
                                      rule_category or DEFAULT_CATEGORY, rule_id, "judge"))
        elif flag is not None:  # ambiguous: the rule's own verdict stands
            decisions.append(Decision(False, flag.category, flag.rule_id, "ambiguous"))
        else:
            decisions.append(Decision(True, by="ambiguous"))
    return decisions


@dataclass(frozen=True)
class Masked:
    """A message after retention: ``text`` to store, ``kept`` with withheld spans removed
    (what facts may be extracted from), and the categories withheld. ``marks`` are the
    ``(start, end)`` in ``text`` of the marks this masking wrote: a ``[withheld: X]`` the
    text held already (typed, or pasted from a search) is none of them."""

    text: str
    kept: str
    withheld: tuple[str, ...] = ()
    marks: tuple[tuple[int, int], ...] = ()


def withheld_spans(text: str, labels: Collection[str]) -> list[tuple[int, int]]:
    """The ``(start, end)`` of each ``[withheld: LABEL]`` in ``text`` whose label is one of
    ``labels`` (those the policy writes). Any other, typed as ``[withheld: SSN 123-45-6789]``
    to slip a secret past retention, is text to judge like the rest."""
    return [found.span() for found in PLACEHOLDER.finditer(text) if found[1] in labels]


def _without_marks(text: str, labels: Collection[str]) -> str:
    """``text`` with each mark of ``labels`` replaced by a line break (``Masked.kept``)."""
    out, cursor = [], 0
    for start, end in withheld_spans(text, labels):
        out += [text[cursor:start], "\n"]
        cursor = end
    return "".join([*out, text[cursor:]])


def sentence_spans(text: str, labels: Collection[str]) -> list[tuple[int, int]]:
    """The ``(start, end)`` of each sentence of ``text`` that is not already withheld by a
    mark of ``labels``."""
    segments, cursor = [], 0
    for start, end in withheld_spans(text, labels):
        segments.append((cursor, start))
        cursor = end
    segments.append((cursor, len(text)))
    spans: list[tuple[int, int]] = []
    for first, last in segments:
        at = first
        for sentence in split_sentences(text[first:last]):
            start = text.find(sentence, at, last)
            if start < 0:  # split_sentences rewrote it (a bullet marker): take the rest
                spans.append((at, last))
                break
            spans.append((start, start + len(sentence)))
            at = start + len(sentence)
    return spans


def mask(text: str, decide: Callable[[list[str]], list[Decision]], labels: Collection[str],
         mark_questions: bool = False) -> Masked:
    """``text`` with each sentence ``decide`` drops replaced by ``[withheld: CATEGORY]``;
    with ``mark_questions``, a dropped question's as ``[withheld: CATEGORY]?`` (for the
    offline policy, which says that it withheld a question rather than a statement).

    ``labels`` are the policy's categories: a mark of one of them (or of ``private``) is
    left as it is, unjudged, and a dropped sentence's category that is none of them is
    written as ``private``, so a masked text masked again is unchanged."""
    labels = {*labels, DEFAULT_CATEGORY}
    # A judge's answer is read in lower case: write the policy's own spelling of it.
    spelled = {label.casefold(): label for label in labels}
    spans = sentence_spans(text, labels)
    if not spans:
        return Masked(text, _without_marks(text, labels))
    decisions = decide([text[start:end] for start, end in spans])
    out, kept, withheld, marks = [], [], [], []
    cursor = written = 0
    for (start, end), decision in zip(spans, decisions, strict=True):
        out.append(text[cursor:start])
        kept.append(text[cursor:start])
        written += start - cursor
        if decision.allowed:
            out.append(text[start:end])
            kept.append(text[start:end])
            written += end - start
        else:
            category = spelled.get((decision.category or "").casefold(), DEFAULT_CATEGORY)
            asked = mark_questions and is_question(text[start:end])
            mark = f"[withheld: {category}]" + ("?" if asked else "")
            out.append(mark)
            kept.append("\n")
            withheld.append(category)
            marks.append((written, written + len(mark)))
            written += len(mark)
        cursor = end
    out.append(text[cursor:])
    kept.append(text[cursor:])
    return Masked("".join(out), _without_marks("".join(kept), labels), tuple(withheld),
                  tuple(marks))
