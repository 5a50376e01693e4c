"""The ``privacy`` battery check: how well the retention layer drops what it should.

A labelled set of 210 short utterances (memory/privacy/data/pii_labelled.jsonl),
written for tiermem, spans six categories: medical, financial, contact,
credentials, location and relationships. In each, 20 disclose the user's own
information (label: drop), 8 use the same words harmlessly and 7 are about
someone else (both label: store; the hard negatives). Each utterance is added
as a fact through ``add_fact`` under the starter ruleset
(memory/privacy/data/starter_rules.yaml), and a ``RetentionDroppedError`` counts
as a drop. Drop precision and recall are reported per mode:

- ``deterministic`` always (no model);
- ``hybrid`` and ``llm`` with the judge given (tests pass a scripted one), or with
  the model configured in the environment (``TIERMEM_MODEL``, ``OPENAI_BASE_URL``);
  without either they are reported as not run.

The check also recounts what each memory holds: a dropped utterance stored
anyway is a failure, whatever the figures. The ruleset and the set were
written together, so the deterministic figures are an in-sample estimate.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from typing import Any

from tiermem.bench.options import BatteryOptions
from tiermem.bench.result import CheckResult
from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.errors import RetentionDroppedError
from tiermem.memory.judge import Judge
from tiermem.memory.privacy import PrivacyConfig, parse_policy

MODES = ("deterministic", "hybrid", "llm")
#: The deterministic mode's floor: the starter rules must catch this share of the drops...
MIN_RECALL = 0.9
#: ...while this share of what they drop must be a real drop.
MIN_PRECISION = 0.6


@dataclass(frozen=True)
class Utterance:
    text: str
    category: str
    kind: str  # own, benign or other_person
    drop: bool


def _data(name: str) -> str:
    return (resources.files("tiermem.memory.privacy") / "data" / name).read_text("utf-8")


def labelled_set() -> list[Utterance]:
    return [Utterance(**json.loads(line)) for line in _data("pii_labelled.jsonl").splitlines()
            if line.strip()]


def starter_policy(mode: str = "deterministic") -> PrivacyConfig:
    rules = parse_policy(_data("starter_rules.yaml"), "starter_rules.yaml").rules
    return PrivacyConfig(rules=rules, retention={"mode": mode}, recall={"enabled": False})


def score(utterances: list[Utterance], dropped: list[bool]) -> dict[str, Any]:
    """Drop precision and recall, and where the mistakes fell."""
    pairs = list(zip(utterances, dropped, strict=True))
    true_drops = sum(u.drop and d for u, d in pairs)
    said_drop = sum(dropped)
    should = sum(u.drop for u in utterances)
    figures: dict[str, Any] = {
        "precision": round(true_drops / said_drop, 4) if said_drop else 1.0,
        "recall": round(true_drops / should, 4) if should else 1.0,
        "dropped": said_drop, "true_drops": true_drops,
        "missed": [u.text for u, d in pairs if u.drop and not d],
    }
    for kind in ("benign", "other_person"):
        negatives = [d for u, d in pairs if u.kind == kind]
        figures[f"{kind}_dropped"] = f"{sum(negatives)}/{len(negatives)}"
    figures["recall_by_category"] = {
        category: round(sum(d for u, d in pairs if u.category == category and u.drop)
                        / sum(u.drop for u in utterances if u.category == category), 4)
        for category in dict.fromkeys(u.category for u in utterances)}
    return figures


def run_mode(mode: str, judge: Judge | None, utterances: list[Utterance]) -> dict[str, Any]:
    """Each utterance added as a fact under ``mode``; the figures, and any leak found."""
    dropped: list[bool] = []
    with HierarchicalMemory(None, embedder=HashingEmbedder(), core_limit=100_000,
                            privacy=starter_policy(mode), judge=judge) as memory:
        for utterance in utterances:
            try:
                memory.add_fact(utterance.text)
                dropped.append(False)
            except RetentionDroppedError:
                dropped.append(True)
        kept = {f.text for f in memory.facts()}
    figures = score(utterances, dropped)
    figures["stored_despite_drop"] = sum(d and u.text in kept
                                         for u, d in zip(utterances, dropped, strict=True))
    figures["judge_questions"] = getattr(judge, "questions", None)
    return figures


class _CountingJudge:
    def __init__(self, judge: Judge) -> None:
        self.judge, self.questions = judge, 0

    def ask(self, system: str, user: str) -> str:
        self.questions += 1
        return self.judge.ask(system, user)


def configured_judge() -> Judge | None:
    """The environment's model as a judge, or None when none is configured."""
    from tiermem.agent.config import resolve_llm_config
    from tiermem.agent.judge import ModelJudge
    from tiermem.agent.openai_client import OpenAIClient

    config = resolve_llm_config(None, None)
    return ModelJudge(OpenAIClient.from_config(config)) if config is not None else None


def check_privacy(opts: BatteryOptions, judge: Judge | None = None,
                  find_judge: Callable[[], Judge | None] = configured_judge) -> CheckResult:
    utterances = labelled_set()
    chosen = judge if judge is not None else find_judge()
    modes: dict[str, Any] = {}
    for mode in MODES:
        if mode != "deterministic" and chosen is None:
            modes[mode] = "not run: no model configured (set TIERMEM_MODEL and OPENAI_BASE_URL)"
            continue
        modes[mode] = run_mode(mode, _CountingJudge(chosen) if mode != "deterministic" and
                               chosen is not None else None, utterances)
    base = modes["deterministic"]
    problems = [f"{mode}: {m['stored_despite_drop']} dropped utterances were stored anyway"
                for mode, m in modes.items() if isinstance(m, dict) and m["stored_despite_drop"]]
    if base["recall"] < MIN_RECALL:
        problems.append(f"deterministic drop recall {base['recall']:.0%} < {MIN_RECALL:.0%}")
    if base["precision"] < MIN_PRECISION:
        problems.append(f"deterministic drop precision {base['precision']:.0%} < "
                        f"{MIN_PRECISION:.0%}")
    ran = {mode: m for mode, m in modes.items() if isinstance(m, dict)}
    summary = "; ".join(f"{mode} precision {m['precision']:.0%} recall {m['recall']:.0%}"
                        for mode, m in ran.items())
    if len(ran) < len(modes):
        skipped = [mode for mode in modes if mode not in ran]
        summary += f"; {' and '.join(skipped)} not run (no model configured)"
    figures = {"utterances": len(utterances), "should_drop": sum(u.drop for u in utterances),
               "modes": modes}
    detail = (f"{len(utterances)} labelled utterances: {summary}" if not problems
              else "; ".join(problems))
    return CheckResult("privacy", not problems, figures, detail)
