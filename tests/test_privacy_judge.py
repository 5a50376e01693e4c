"""The hybrid and llm modes of both privacy layers: what the judge is asked, and failing closed."""

from __future__ import annotations

import contextlib
import json
import re
from pathlib import Path
from typing import Any

import pytest
from memory_helpers import make_memory

from tiermem.agent.errors import ProviderError
from tiermem.agent.judge import ModelJudge
from tiermem.agent.openai_client import OpenAIClient
from tiermem.agent.scripted import ScriptedModel, reply
from tiermem.memory.errors import InvalidConfigError, RetentionDroppedError
from tiermem.memory.judge import FunctionJudge
from tiermem.memory.privacy import PrivacyConfig, parse_policy
from tiermem.memory.privacy.judging import parse_answer
from tiermem.memory.store.sqlite import DB_FILE

RULES = """
rules:
  - rule_id: diagnosis
    category: medical
    category_description: the user's own health, diagnoses and medication
    content_substrings: [diagnosed]
"""


def policy(retention: str = "deterministic", recall: str = "deterministic",
           extra: str = "") -> PrivacyConfig:
    return parse_policy(f"{RULES}retention:\n  mode: {retention}\n{extra}"
                        f"recall:\n  mode: {recall}\n")


def answering(*verdicts: str) -> FunctionJudge:
    """A judge answering each question with ``verdicts`` for its items, in order."""
    queue = list(verdicts)

    def answer(system: str, user: str) -> str:
        count = len(re.findall(r"<item n=", user))
        return "\n".join(f"{i}: {queue.pop(0)}" for i in range(1, count + 1))
    return FunctionJudge(answer)


def failing(system: str, user: str) -> str:
    raise ProviderError("the server is down", kind="connection", retryable=True)


def stored(memory: Any) -> list[str]:
    return [f.text for f in memory.facts()]


def test_llm_mode_asks_about_every_item_with_the_rules_descriptions_and_policies() -> None:
    judge = answering("drop pets")
    config = policy("llm", extra="  policies: ['Do not keep my pets.']\n")
    with make_memory(privacy=config, judge=judge) as memory:
        with pytest.raises(RetentionDroppedError, match="keeps private information"):
            memory.add_fact("my cat is called Tom")  # no rule matches it, nor its category
        system, user = judge.asked[0]
        assert "- medical: the user's own health, diagnoses and medication" in system
        assert "- Do not keep my pets." in system
        assert '<item n="1">my cat is called Tom</item>' in user
        assert memory.facts() == []


@pytest.mark.parametrize(("mode", "text", "verdict", "kept"), [
    ("hybrid", "I was diagnosed with flu", "store", True),      # the judge overturns the rule
    ("hybrid", "I was diagnosed with flu", "drop", False),
    ("hybrid", "I was diagnosed with flu", "ambiguous", False),  # falls back to the rule: drop
    ("hybrid", "I like tea", "drop", False),                     # unmatched: judged on its own
    ("hybrid", "I like tea", "ambiguous", True),                 # unmatched: falls back to store
    ("llm", "I was diagnosed with flu", "ambiguous", True),      # llm reads no rule
    ("llm", "I like tea", "nonsense", False),                    # unreadable: fails closed
])
def test_retention_verdicts(mode: str, text: str, verdict: str, kept: bool) -> None:
    judge = answering(verdict)
    with make_memory(privacy=policy(mode), judge=judge) as memory:
        with contextlib.suppress(RetentionDroppedError):
            memory.add_fact(text)
        assert stored(memory) == ([text] if kept else [])
        flagged = 'flagged="medical"' in judge.asked[0][1]
        assert flagged == (mode == "hybrid" and "diagnosed" in text)


@pytest.mark.parametrize("mode", ["hybrid", "llm"])
def test_a_failing_judge_drops_on_write(mode: str) -> None:
    with make_memory(privacy=policy(mode), judge=FunctionJudge(failing)) as memory:
        with pytest.raises(RetentionDroppedError, match="judge failed"):
            memory.add_fact("I like tea")
        memory.process_interaction("I like tea. Thanks!", "ok")
        assert memory.recall.rows([1])[0]["content"] == "[withheld: private] [withheld: private]"


def test_a_judge_that_answers_about_an_item_never_asked_fails_the_whole_answer() -> None:
    assert parse_answer("1: store\n3: store", 2, ("store", "drop")) == [None, None]
    parsed = parse_answer("**1**: Drop medical\n- Item 2 = store.\n", 2, ("store", "drop"))
    assert [(a.verdict, a.category) for a in parsed if a] == [("drop", "medical"),
                                                              ("store", None)]
    assert parse_answer("1: store\n1: drop", 1, ("store", "drop")) == [None]


def test_recall_shows_the_query_to_the_judge_and_withholds_on_failure(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with make_memory(home) as memory:
        memory.archival_insert("I was diagnosed with flu in May")
        memory.archival_insert("the flu season starts in May")
    judge = answering("expose", "withhold")
    with make_memory(home, privacy=policy(recall="hybrid"), judge=judge) as memory:
        hits = memory.archival_search("flu May", k=2).hits
        system, user = judge.asked[0]
        assert "<request>flu May</request>" in user and "withhold" in system
        assert len(hits) == 1
    with make_memory(home, privacy=policy(recall="llm"),
                     judge=FunctionJudge(failing)) as memory:
        assert memory.archival_search("flu May", k=2).hits == []
        assert memory.query("flu May", k=5) == []


def test_a_judged_mode_without_a_judge_is_refused_before_any_file_is_made(
        tmp_path: Path) -> None:
    with pytest.raises(InvalidConfigError, match=r"retention\.mode is 'hybrid'.*pass judge="):
        make_memory(tmp_path / "home", privacy=policy("hybrid"))
    assert not (tmp_path / "home" / DB_FILE).exists()
    disabled = parse_policy("recall:\n  enabled: false\n  mode: llm\n")
    with make_memory(privacy=disabled) as memory:  # a disabled layer needs no judge
        assert memory.privacy is not None


def test_the_judge_runs_through_the_scripted_model() -> None:
    with ScriptedModel([reply("1: drop medical"), reply("1: store")]) as model, \
            make_memory(privacy=policy("hybrid"), judge=ModelJudge(model)) as memory:
        with pytest.raises(RetentionDroppedError):
            memory.add_fact("I was diagnosed with flu")
        memory.add_fact("I like tea")
        assert stored(memory) == ["I like tea"]
    assert model.calls[0].messages[0]["role"] == "system" and model.calls[0].tools == []


def test_the_judge_runs_through_an_openai_compatible_server(server: Any) -> None:
    server.enqueue_reply("1: store")
    server.enqueue_reply("1: withhold")
    server.enqueue_error(500)
    client = OpenAIClient("fake-model", base_url=server.base_url, max_retries=0,
                          sleep=lambda _: None)
    with make_memory(privacy=policy("llm", "llm"), judge=ModelJudge(client)) as memory:
        memory.add_fact("I like tea")
        assert memory.query("tea", k=3) == []  # the core fact, withheld from this query
        with pytest.raises(RetentionDroppedError, match="judge failed"):
            memory.add_fact("I like coffee")  # the server fails: fail closed
    assert len(server.requests) == 3
    assert "<request>tea</request>" in server.requests[1]["messages"][1]["content"]


@pytest.mark.parametrize(("mode", "text", "answer", "shown"), [
    ("llm", "I like tea", "withhold medical", "[withheld: medical]"),
    ("llm", "I like tea", "Withhold (MEDICAL).", "[withheld: medical]"),
    ("llm", "I like tea", "withhold", "[withheld: private]"),       # an answer naming none
    ("llm", "I like tea", "withhold pets", "[withheld: private]"),  # a name the policy lacks
    ("hybrid", "I like tea", "withhold medical", "[withheld: medical]"),  # unflagged
    ("hybrid", "I was diagnosed with flu", "withhold", "[withheld: medical]"),  # the rule's
    ("hybrid", "I was diagnosed with flu", "withhold pets", "[withheld: medical]"),
    ("llm", "I like tea", "expose", "I like tea"),
])
def test_a_withheld_item_shows_the_category_the_judge_names_when_the_policy_has_it(
        mode: str, text: str, answer: str, shown: str) -> None:
    judge = answering(answer)
    with make_memory(privacy=policy(recall=mode), judge=judge) as memory:
        assert memory.privacy is not None
        assert memory.privacy.text_view("tea?", [text]) == [shown]
        assert "after withhold, name the category" in judge.asked[0][0]


@pytest.mark.parametrize(("mode", "text", "answer", "category"), [
    ("llm", "my cat is called Tom", "drop Medical", "medical"),
    ("llm", "my cat is called Tom", "drop cat called tom", "private"),
    ("llm", "my cat is called Tom", "drop", "private"),
    ("hybrid", "I was diagnosed with flu", "drop cat called tom", "medical"),  # the rule's
])
def test_a_drop_names_only_a_category_the_policy_has(mode: str, text: str, answer: str,
                                                     category: str) -> None:
    # The category reaches the model in the tool's result, and recall with it: a judge
    # talked round by the text could otherwise repeat that text there.
    from tiermem.tools.memory_tools import ToolContext, memory_toolbox

    with make_memory(privacy=policy(mode), judge=answering(answer, answer)) as memory:
        with pytest.raises(RetentionDroppedError) as dropped:
            memory.add_fact(text)
        assert dropped.value.category == category
        result = memory_toolbox().dispatch(
            "core_memory_append", json.dumps({"content": text}), call_id="c",
            context=ToolContext(memory=memory, turn=1))
        assert f"keeps {category} information" in result.content
        assert "tom" not in result.content.lower() and stored(memory) == []
