"""The ``privacy`` battery check: the labelled PII set, and drop precision and recall per mode."""

from __future__ import annotations

import html
import re
from collections import Counter
from typing import Any

from tiermem.agent.judge import ModelJudge
from tiermem.agent.llm import Completion
from tiermem.agent.scripted import ScriptedModel, reply
from tiermem.bench.battery import select_checks
from tiermem.bench.options import BatteryOptions
from tiermem.bench.privacy_check import check_privacy, labelled_set
from tiermem.memory.judge import FunctionJudge

LABELS = {u.text: u for u in labelled_set()}


def oracle_step(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Completion:
    """A scripted model that answers each item from its label."""
    items = re.findall(r'<item n="(\d+)"[^>]*>(.*?)</item>', messages[1]["content"], re.S)
    lines = []
    for number, text in items:
        utterance = LABELS[html.unescape(text)]
        lines.append(f"{number}: drop {utterance.category}" if utterance.drop
                     else f"{number}: store")
    return reply("\n".join(lines))


def test_the_labelled_set_covers_six_categories_with_hard_negatives() -> None:
    utterances = labelled_set()
    assert len(utterances) >= 200
    by_kind = Counter((u.category, u.kind) for u in utterances)
    for category in ("medical", "financial", "contact", "credentials", "location",
                     "relationships"):
        assert by_kind[(category, "own")] >= 20
        assert by_kind[(category, "benign")] and by_kind[(category, "other_person")]
    assert all(u.drop == (u.kind == "own") for u in utterances)


def test_deterministic_runs_offline_and_judged_modes_are_skipped_without_a_model() -> None:
    result = check_privacy(BatteryOptions(), find_judge=lambda: None)
    assert result.passed, result.detail
    figures = result.figures["modes"]["deterministic"]
    assert figures["recall"] >= 0.9 and figures["stored_despite_drop"] == 0
    assert result.figures["modes"]["llm"].startswith("not run")
    assert select_checks(["privacy"]) == ["privacy"]


def test_judged_modes_run_through_a_scripted_model() -> None:
    count = len(LABELS)
    with ScriptedModel([oracle_step] * (2 * count)) as model:
        result = check_privacy(BatteryOptions(), judge=ModelJudge(model))
    assert result.passed, result.detail
    for mode in ("hybrid", "llm"):
        figures = result.figures["modes"][mode]
        assert (figures["precision"], figures["recall"]) == (1.0, 1.0)
        assert figures["judge_questions"] == count


def test_an_undecided_judge_leaves_hybrid_at_the_rules_and_llm_storing_everything() -> None:
    judge = FunctionJudge(lambda system, user: "\n".join(
        f"{n}: ambiguous" for n in re.findall(r'<item n="(\d+)"', user)))
    modes = check_privacy(BatteryOptions(), judge=judge).figures["modes"]
    for key in ("precision", "recall", "dropped"):
        assert modes["hybrid"][key] == modes["deterministic"][key]
    assert modes["llm"]["dropped"] == 0
