"""What the memory tools tell the model of stored text is what the privacy policy shows it:
an error, a notice or a suggestion quotes no withheld text and confirms no guess at it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from memory_helpers import make_memory

from tiermem.memory.hierarchy import HierarchicalMemory
from tiermem.memory.privacy import parse_policy
from tiermem.tools.dispatch import ToolResult
from tiermem.tools.memory_tools import ToolContext, memory_toolbox

# Shown only: retention is off, so what the rules match is stored, and withheld on reading
# (as with text stored before the policy was set).
POLICY_TEXT = r"""
rules:
  - rule_id: dose
    category: medical
    regex: '\b\d+\s?mg\b'
retention: {enabled: false}
recall: {mode: deterministic}
"""
POLICY = parse_policy(POLICY_TEXT)
SECRET = "User takes 20 mg of propranolol daily"


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with make_memory(privacy=POLICY, core_limit=3, core_limit_unit="facts") as memory:
        yield memory


def call(memory: HierarchicalMemory, name: str, **args: Any) -> ToolResult:
    return memory_toolbox().dispatch(name, json.dumps(args), call_id="c",
                                     context=ToolContext(memory=memory, turn=1))


def test_an_ambiguous_edit_quotes_no_withheld_fact(memory: HierarchicalMemory) -> None:
    memory.add_fact(SECRET)
    memory.add_fact("User lives in Lyon")
    memory.add_fact("User works daily shifts")
    result = call(memory, "core_memory_replace", old_content="User", new_content="They")
    assert not result.ok and "more than one place" in result.content
    assert "propranolol" not in result.content and "Lyon" in result.content
    # A guess that only the withheld fact holds is answered as one that nothing holds.
    guesses = {guess: call(memory, "core_memory_replace", old_content=guess,
                           new_content="x").content.replace(repr(guess), "GUESS")
               for guess in ("propranolol", "aspirin")}
    assert guesses["propranolol"] == guesses["aspirin"]
    assert "withholds" in guesses["aspirin"]
    edit = call(memory, "core_memory_replace", old_content="daily", new_content="nightly")
    assert edit.ok and "User works nightly shifts" in edit.content  # the one shown, alone
    assert memory.fact(memory.facts()[0].id).text == SECRET  # never edited by a guess


def test_a_withheld_fact_that_left_core_is_not_confirmed(memory: HierarchicalMemory) -> None:
    memory.add_fact(SECRET, "short-lived")
    memory.add_fact("User lives in Lyon")
    memory.add_fact("User walks daily")
    memory.add_fact("User likes green tea")  # evicts the secret, short-lived, to archival
    assert memory.facts()[0].tier == "archival"
    guesses = {guess: call(memory, "core_memory_replace", old_content=guess,
                           new_content="x").content.replace(repr(guess), "GUESS")
               for guess in ("propranolol", "aspirin")}
    assert guesses["propranolol"] == guesses["aspirin"]
    assert "left core" not in guesses["propranolol"]
    # A shown fact that left core is still explained.
    memory.add_fact("User drinks coffee")  # evicts the least used shown fact
    gone = next(f for f in memory.facts() if f.tier != "core" and f.text != SECRET)
    word = gone.text.split()[-1]
    assert "left core for archival" in call(memory, "core_memory_replace", old_content=word,
                                            new_content="x").content


def test_a_withheld_core_fact_does_not_hide_that_a_shown_one_left(
        memory: HierarchicalMemory) -> None:
    memory.add_fact("User walked daily in Porto", "short-lived")
    memory.add_fact("User lives in Lyon")
    memory.add_fact("User likes green tea")
    memory.add_fact("User drinks coffee")  # evicts the Porto fact
    memory.add_fact(SECRET)  # evicts another; the secret, in core, also holds "daily"
    assert any(f.text == SECRET and f.tier == "core" for f in memory.facts())
    result = call(memory, "core_memory_replace", old_content="daily", new_content="x")
    assert "left core for archival" in result.content and "propranolol" not in result.content


def test_the_chat_core_command_shows_core_as_the_prompt_does(
        memory: HierarchicalMemory) -> None:
    import io

    from rich.console import Console

    from tiermem.agent.loop import Agent
    from tiermem.agent.offline import OfflinePolicy
    from tiermem.agent.repl import ChatRepl

    memory.add_fact(SECRET)
    memory.add_fact("User lives in Lyon")
    out = io.StringIO()
    repl = ChatRepl(Agent(memory, OfflinePolicy()), console=Console(file=out, width=200),
                    errors=io.StringIO())
    assert repl.run_piped(iter(["/core\n", "/archival propranolol\n"])) == 0
    shown = out.getvalue()
    assert "propranolol" not in shown.replace("/archival propranolol", "")
    assert "[withheld: medical]" in shown and "User lives in Lyon" in shown


def test_a_fact_the_prompt_shows_for_the_request_can_be_edited() -> None:
    # A recall layer that judges by the request: the prompt shows core for the user's
    # message, and core_memory_replace must match what that prompt showed. Matched for
    # no request, the fact the model read in core was "contained by no core fact".
    import re

    from tiermem.agent.loop import Agent
    from tiermem.agent.scripted import ScriptedModel, call, reply
    from tiermem.memory.judge import FunctionJudge

    policy = parse_policy("""
retention: {enabled: false}
recall:
  mode: llm
  policies: ['Show health facts only when the user asks about their health.']
""")

    def judge(system: str, user: str) -> str:
        asked = user.split("Items (untrusted data)")[0]
        verdict = "expose" if "allerg" in asked else "withhold"
        return "\n".join(f"{n}: {verdict}"
                         for n in range(1, len(re.findall(r"<item n=", user)) + 1))

    with make_memory(privacy=policy, judge=FunctionJudge(judge)) as memory:
        memory.add_fact("User is allergic to peanuts")
        edit = call("core_memory_replace", old_content="allergic to peanuts",
                    new_content="no longer allergic to peanuts", request_heartbeat=True)
        with ScriptedModel([edit, reply("Updated.")]) as model:
            result = Agent(memory, model).step("I am no longer allergic to peanuts")
        assert "User is allergic to peanuts" in model.calls[0].messages[0]["content"]
        [outcome] = result.tool_results
        assert outcome.ok, outcome.content
        assert "User is no longer allergic to peanuts" in outcome.content
        assert [f.text for f in memory.core] == ["User is no longer allergic to peanuts"]


def _answers(tool: str, **args: str) -> dict[str, str]:
    """The answer ``tool`` gives to the secret stated whole and to a withheld text never
    stored, each in a memory holding the secret (in core, and one in archival)."""
    answers = {}
    for guess in (SECRET, "User takes 40 mg of aspirin daily"):
        with make_memory(privacy=POLICY, core_limit=3, core_limit_unit="facts") as memory:
            memory.add_fact(SECRET)
            memory.add_fact("User lives in Lyon")
            stored = [(f.id, f.text, f.tier) for f in memory.facts()]
            answers[guess] = call(memory, tool, **{k: v.replace("GUESS", guess)
                                                   for k, v in args.items()}).content
            assert [(f.id, f.text, f.tier) for f in memory.facts()] == stored
            assert memory.fact(stored[0][0]) is not None  # the secret is kept
    return answers


def test_appending_a_withheld_fact_whole_confirms_nothing() -> None:
    answers = _answers("core_memory_append", content="GUESS")
    assert answers[SECRET] == answers["User takes 40 mg of aspirin daily"]
    assert "Already" not in answers[SECRET] and "propranolol" not in answers[SECRET]
    assert "memory keeps it" in answers[SECRET]  # kept, as retention allows, not lost


def test_the_same_fact_in_words_the_policy_shows_confirms_nothing() -> None:
    fresh = _answers("core_memory_append", content="GUESS")["User takes 40 mg of aspirin daily"]
    # "MG" is no match of the case-sensitive regex, yet states the secret again by core's
    # key: "Already in core" would confirm the secret.
    with make_memory(privacy=POLICY, core_limit=3, core_limit_unit="facts") as memory:
        memory.add_fact(SECRET)
        memory.add_fact("User lives in Lyon")
        stored = [(f.id, f.text, f.tier) for f in memory.facts()]
        same = call(memory, "core_memory_append",
                    content="User takes 20 MG of propranolol daily").content
        assert same == fresh
        assert [(f.id, f.text, f.tier) for f in memory.facts()] == stored
        # Filed as the secret, which no search shows, as a fresh withheld fact is filed.
        assert [p["text"] for p in memory.archival.iter_rows()] == [SECRET]


@pytest.mark.parametrize("earlier", [True, False], ids=["filed-before", "never-filed"])
def test_what_a_withheld_append_files_confirms_nothing_later(earlier: bool) -> None:
    # The passage ids and counts of the calls after it are the same whether the guess was
    # stored (whole, or in words the policy shows) or never was.
    later = {}
    for guess in (SECRET, "User takes 20 MG of propranolol daily",
                  "User takes 40 mg of aspirin daily"):
        with make_memory(privacy=POLICY, core_limit=3, core_limit_unit="facts") as memory:
            memory.add_fact(SECRET)
            if earlier:
                call(memory, "core_memory_append", content=SECRET)  # an earlier turn's
            calls = [("archival_memory_insert", {"content": "Lyon office opens at 9"}),
                     ("core_memory_append", {"content": guess}),
                     ("core_memory_append", {"content": guess}),
                     ("archival_memory_insert", {"content": "Lyon office closes at 6"}),
                     ("archival_memory_search", {"query": "daily"})]
            later[guess] = [call(memory, name, **args).content for name, args in calls]
    first, *others = later.values()
    assert all(answers == first for answers in others), later


def test_an_appended_withheld_fact_is_kept_in_archival(memory: HierarchicalMemory) -> None:
    result = call(memory, "core_memory_append", content=SECRET)
    assert result.ok and "[withheld: medical]" in result.content
    assert list(memory.core) == []
    guard, memory.privacy = memory.privacy, None
    try:
        assert [h.text for h in memory.archival_search("propranolol").hits] == [SECRET]
    finally:
        memory.privacy = guard
    assert memory.archival_search("propranolol").total == 0  # withheld from the model
    # A fact the policy shows still goes to core.
    assert "core + User lives in Lyon" in call(memory, "core_memory_append",
                                               content="User lives in Lyon").content


def test_editing_a_fact_into_a_withheld_one_confirms_nothing() -> None:
    answers = _answers("core_memory_replace", old_content="User lives in Lyon",
                       new_content="GUESS")
    assert answers[SECRET] == answers["User takes 40 mg of aspirin daily"]
    assert "already has" not in answers[SECRET] and "#" not in answers[SECRET]
    assert "nothing was changed" in answers[SECRET]


@pytest.mark.parametrize("tier", ["core", "archival"])
def test_editing_a_fact_into_a_withheld_one_s_twin_confirms_nothing(tier: str) -> None:
    fresh = _answers("core_memory_replace", old_content="User lives in Lyon",
                     new_content="GUESS")["User takes 40 mg of aspirin daily"]
    with make_memory(privacy=POLICY, core_limit=3, core_limit_unit="facts") as memory:
        memory.add_fact(SECRET, "short-lived")
        memory.add_fact("User lives in Lyon")
        memory.add_fact("User walks daily")
        if tier == "archival":
            memory.add_fact("User likes green tea")  # evicts the secret, short-lived
        assert memory.facts()[0].tier == tier
        stored = [(f.id, f.text, f.tier) for f in memory.facts()]
        # "MG" is no match of the case-sensitive regex, so the result alone is shown; it
        # states the secret again by core's key, and "already has" would confirm it.
        twin = call(memory, "core_memory_replace", old_content="User lives in Lyon",
                    new_content="User takes 20 MG of propranolol daily").content
        assert twin == fresh
        assert [(f.id, f.text, f.tier) for f in memory.facts()] == stored
        # A shown fact's twin is still named as one.
        walks = call(memory, "core_memory_replace", old_content="User lives in Lyon",
                     new_content="user walks daily").content
        assert f"already has that fact (#{stored[2][0]}, in core)" in walks


def test_the_same_fact_in_shown_words_is_refused_as_the_fact_retention_drops() -> None:
    # Stored before the policy, which now keeps such facts out: stating it again, in words
    # the recall layer shows or not, is refused in the same words.
    dropping = parse_policy(POLICY_TEXT.replace("retention: {enabled: false}",
                                                "retention: {mode: deterministic}"))
    answers = set()
    for guess in (SECRET, "User takes 20 MG of propranolol daily"):
        with make_memory(privacy=dropping, core_limit=3, core_limit_unit="facts") as memory:
            guard, memory.privacy = memory.privacy, None
            memory.add_fact(SECRET)
            memory.privacy = guard
            result = call(memory, "core_memory_append", content=guess)
            assert not result.ok and len(memory.archival) == 0
            answers.add(result.content)
    assert len(answers) == 1, answers


def test_an_edit_made_again_confirms_no_withheld_fact(memory: HierarchicalMemory) -> None:
    # The window shows the model an edit that left a fact the policy now withholds (a rule
    # added since): the same call again is answered as a guess at it would be.
    memory.add_fact(SECRET)
    said = [f"core edited: {SECRET} (core 1/3 facts)"]
    answers = []
    for earlier in (said, []):
        context = ToolContext(memory=memory, turn=2,
                              earlier_results=lambda name, arguments, e=earlier: e)
        answers.append(memory_toolbox().dispatch(
            "core_memory_replace", json.dumps({"old_content": "10 mg", "new_content": "20 mg"}),
            call_id="c", context=context).content)
    assert answers[0] == answers[1] and "Already done" not in answers[0]
    assert memory.fact(memory.facts()[0].id).text == SECRET
