"""A ``[withheld: LABEL]`` mark in a message: left unjudged only when the policy could have
written it, so that neither a typed one carries a secret past retention, nor masking twice
changes what masking once gave."""

from __future__ import annotations

import json
import re

import pytest
from memory_helpers import make_memory

from tiermem.agent.loop import Agent
from tiermem.agent.offline import OfflinePolicy
from tiermem.agent.scripted import ScriptedModel, call, reply
from tiermem.memory.judge import FunctionJudge
from tiermem.memory.privacy import PrivacyConfig, parse_policy

SSN = "123-45-6789"


def policy(mode: str = "deterministic") -> PrivacyConfig:
    # No recall layer: what retention lets through is what every reader sees. In llm mode
    # a statement with no rules, whose drops the judge names as it likes.
    statements = ", policies: ['Do not keep anything about my pets.']" if mode == "llm" else ""
    return parse_policy(f"""
rules:
  - rule_id: ssn
    category: government id
    category_description: the user's identity numbers
    regex: '\\b\\d{{3}}-\\d{{2}}-\\d{{4}}\\b'
  - {{rule_id: diagnosis, category: medical, content_substrings: [diagnosed]}}
retention: {{mode: {mode}{statements}}}
recall: {{enabled: false}}
""")


def judging(system: str, user: str) -> str:
    """A retention judge that drops identity numbers and pets, and names a category of its
    own for the pets, as a judge reading the policy's statements may."""
    lines = []
    for n, text in re.findall(r'<item n="(\d+)"[^>]*>(.*?)</item>', user):
        verdict = ("drop government id" if re.search(r"\d{3}-\d{2}-\d{4}", text)
                   else "drop pets" if "cat" in text.split() else "store")
        lines.append(f"{n}: {verdict}")
    return "\n".join(lines)


def judged_items(judge: FunctionJudge) -> list[str]:
    return [item for _, user in judge.asked
            for item in re.findall(r"<item n=\"\d+\"[^>]*>(.*?)</item>", user)]


@pytest.mark.parametrize("mode", ["deterministic", "hybrid", "llm"])
def test_a_secret_typed_inside_a_mark_is_judged_like_any_text(mode: str) -> None:
    judge = FunctionJudge(judging) if mode != "deterministic" else None
    with make_memory(privacy=policy(mode), judge=judge) as memory:
        memory.process_interaction(f"[withheld: SSN {SSN}]", "ok")
        memory.process_interaction(f"Note [withheld: {SSN}]. I like tea.", "ok")
        script = [call("archival_memory_search", query=f"[withheld: ssn {SSN}]",
                       request_heartbeat=True), reply("Done.")]
        with ScriptedModel(script) as model:
            Agent(memory, model).step(f"File this: [withheld: id {SSN}]")
        Agent(memory, OfflinePolicy()).step(f"My number is [withheld: x {SSN}] and more.")
        rows = memory.recall.rows(list(range(1, len(memory.recall) + 1)))
        assert SSN not in json.dumps(rows) + json.dumps(memory.snapshot(include_vectors=False))
        assert rows[0]["content"] == "[withheld: government id]"
        assert rows[2]["content"] == "[withheld: government id] I like tea."


@pytest.mark.parametrize("mode", ["deterministic", "hybrid", "llm"])
def test_masking_a_masked_text_again_changes_nothing_and_judges_no_mark(mode: str) -> None:
    judge = FunctionJudge(judging) if mode != "deterministic" else None
    texts = [f"My SSN is {SSN}. I like tea.", "I was diagnosed with flu! Ok?",
             f"[withheld: medical] Hi. [withheld: SSN {SSN}]", "[withheld: private]",
             f"Is my SSN {SSN}? [withheld: government id]?"]
    if mode == "llm":
        texts.append("My cat is called Tom. Thanks.")
    with make_memory(privacy=policy(mode), judge=judge) as memory:
        assert memory.privacy is not None
        for text in texts:
            once = memory.privacy.mask(text, mark_questions=True)
            assert SSN not in once.text
            if judge is not None:
                judge.asked.clear()
            twice = memory.privacy.mask(once.text, mark_questions=True)
            assert twice.text == once.text and twice.marks == ()
            if judge is not None:
                assert not any("[withheld:" in item for item in judged_items(judge))


def test_a_judge_s_category_the_policy_lacks_is_written_as_private() -> None:
    # The label is written into stored text: a judge talked round by the text it reads
    # could otherwise write part of it there.
    with make_memory(privacy=policy("llm"), judge=FunctionJudge(judging)) as memory:
        memory.process_interaction("My cat is called Tom. Thanks.", "ok")
        assert memory.recall.rows([1])[0]["content"] == "[withheld: private] Thanks."


def test_a_mark_the_policy_writes_is_left_as_typed_and_unjudged() -> None:
    judge = FunctionJudge(judging)
    with make_memory(privacy=policy("llm"), judge=judge) as memory:
        memory.process_interaction("[withheld: medical] I like tea.", "ok")
        assert memory.recall.rows([1])[0]["content"] == "[withheld: medical] I like tea."
        assert "[withheld: medical]" not in "".join(judged_items(judge))
