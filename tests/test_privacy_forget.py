"""The model's ``forget`` tool matches only what the privacy policy shows the model: a guess
at a withheld text is answered as a guess at nothing and forgets nothing, while the user's
own ``forget`` (``/forget``, ``tiermem forget``, the library) still matches everything."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from memory_helpers import make_memory
from test_privacy_tool_errors import POLICY, POLICY_TEXT, SECRET

from tiermem.cli import run
from tiermem.memory import HashingEmbedder
from tiermem.memory.hierarchy import HierarchicalMemory
from tiermem.memory.judge import FunctionJudge
from tiermem.memory.ops.forget_config import ForgetConfig
from tiermem.tools.memory_tools import ToolContext, memory_toolbox

WRONG = "User takes 40 mg of aspirin daily"
SHOWN = "User lives in Lyon"


def _memory(judge: Any = None, **forget: Any) -> HierarchicalMemory:
    memory = make_memory(privacy=POLICY, judge=judge, forget=ForgetConfig.parse(forget))
    memory.add_fact(SECRET)
    memory.add_fact(SHOWN)
    # The same text as a passage and a message too: three stored texts equal it.
    memory.archival_insert(SECRET)
    memory.process_interaction(SECRET, "Noted.")
    return memory


def _forget(memory: HierarchicalMemory, request: str) -> str:
    result = memory_toolbox().dispatch("forget", json.dumps({"request": request}), call_id="c",
                                       context=ToolContext(memory=memory, turn=1))
    return result.content


def _held(memory: HierarchicalMemory) -> int:
    """How many stored texts hold the secret (none forgotten)."""
    return (sum(SECRET in f.text for f in memory.facts())
            + memory.archival_search("propranolol", k=50).total
            + memory.recall_search("propranolol", k=50).total)


def _without_policy(memory: HierarchicalMemory) -> int:
    """What the secret's searches find when nothing is withheld (the rows behind them)."""
    guard, memory.privacy = memory.privacy, None
    try:
        return _held(memory)
    finally:
        memory.privacy = guard


@pytest.mark.parametrize("forget", [
    {"mode": "exact"},
    {"mode": "exact", "max_delete_count": 1},  # was 'ambiguous: 3 stored texts equal'
])
def test_a_guess_at_withheld_text_is_answered_as_a_guess_at_nothing(
        forget: dict[str, Any]) -> None:
    with _memory(**forget) as memory:
        before = _without_policy(memory)
        replies = {guess: _forget(memory, guess).replace(guess, "GUESS")
                   for guess in (SECRET, SECRET.lower(), WRONG)}
        assert replies[SECRET] == replies[WRONG] == replies[SECRET.lower()]
        assert replies[WRONG].startswith("Nothing forgotten")
        # Nothing was forgotten by the guess.
        assert _without_policy(memory) == before
        # The model is told what the user can do for a withheld item.
        assert "/forget" in replies[WRONG] and "tiermem forget" in replies[WRONG]
        # A shown text is still forgotten by the tool, the reply to a withheld message too.
        assert _forget(memory, SHOWN).startswith("Forgotten: 1 fact(s)")
        assert _forget(memory, "noted").startswith("Forgotten: 0 fact(s), 0 passage(s), 1 "
                                                   "message(s)")


@pytest.mark.parametrize("mode", ["top_k_llm", "exact_then_top_k_llm"])
def test_the_judge_is_shown_no_withheld_candidate(mode: str) -> None:
    asked: list[str] = []

    def judge(system: str, user: str) -> str:
        asked.append(user)
        asking, block = user.split("<candidates>", 1)
        block = block.split("</candidates>", 1)[0]
        # It picks the withheld fact for any request, and the shown one when asked.
        ids = [item["id"] for item in (json.loads(line) for line in block.splitlines()
                                       if line.startswith("{"))
               if "propranolol" in item["text"] or ("Lyon" in item["text"] and "lives" in asking)]
        return json.dumps({"ids": ids})

    with _memory(FunctionJudge(judge), mode=mode) as memory:
        before = _without_policy(memory)
        replies = {guess: _forget(memory, guess).replace(guess, "GUESS")
                   for guess in ("propranolol", "aspirin", SECRET, WRONG)}
        assert replies["propranolol"] == replies["aspirin"]
        assert replies[SECRET] == replies[WRONG]
        assert replies["aspirin"].startswith("Nothing forgotten")
        assert not any("propranolol" in prompt.split("<candidates>", 1)[1] for prompt in asked)
        assert _without_policy(memory) == before
        assert _forget(memory, "where the user lives").startswith("Forgotten: 1 fact(s)")


@pytest.mark.parametrize("mode", ["exact", "exact_then_top_k_llm"])
def test_the_users_own_forget_still_matches_withheld_text(mode: str) -> None:
    from rich.console import Console

    from tiermem.agent.loop import Agent
    from tiermem.agent.offline import OfflinePolicy
    from tiermem.agent.repl import ChatRepl

    with _memory(mode=mode) as memory:
        assert memory.forget(SECRET.lower()).outcome == "matched"
        assert _without_policy(memory) == 0
    with _memory(mode=mode) as memory:
        out = io.StringIO()
        repl = ChatRepl(Agent(memory, OfflinePolicy()), console=Console(file=out, width=200),
                        errors=io.StringIO())
        assert repl.run_piped(iter([f"/forget {SECRET}\n"])) == 0
        assert _without_policy(memory) == 0


def test_the_users_forget_command_still_matches_withheld_text(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TIERMEM_HOME", str(tmp_path))
    home = tmp_path / "agents" / "ada"
    with HierarchicalMemory(home, embedder=HashingEmbedder(), privacy=POLICY) as memory:
        memory.add_fact(SECRET)
    (home / "policy.yaml").write_text(POLICY_TEXT + "forget: {mode: exact}\n")
    assert run(["forget", "--agent", "ada", "--embedder", "hashing", SECRET]) == 0
    with HierarchicalMemory(home, embedder=HashingEmbedder(), read_only=True) as memory:
        assert memory.facts() == []


@pytest.fixture
def no_policy_memory() -> Iterator[HierarchicalMemory]:
    with make_memory(forget=ForgetConfig(mode="exact")) as memory:
        memory.add_fact(SECRET)
        yield memory


def test_without_a_policy_the_tool_forgets_any_text(no_policy_memory: HierarchicalMemory
                                                      ) -> None:
    reply = _forget(no_policy_memory, SECRET)
    assert reply.startswith("Forgotten: 1 fact(s)") and "/forget" not in reply


def _with_derived(derived: str | None) -> HierarchicalMemory:
    """A shown message, with a fact learned from it and a passage filed from it holding
    ``derived`` (none for None)."""
    memory = make_memory(privacy=POLICY, forget=ForgetConfig(mode="exact"))
    memory.process_interaction("Here is the list from my pharmacist", "Thanks.")
    [message] = memory.recall_search("pharmacist", k=5, roles=["user"]).hits
    if derived is not None:
        memory.add_fact(derived, source_message_id=message.id)
        memory.archival_insert(f"Pharmacy note: {derived}", source_message_id=message.id)
    return memory


def test_the_model_is_told_no_count_of_withheld_items_forgotten_with_a_shown_one() -> None:
    request = "Here is the list from my pharmacist"
    replies = {}
    for derived in (None, SECRET, SHOWN):
        with _with_derived(derived) as memory:
            replies[derived] = _forget(memory, request)
            assert _without_policy(memory) == 0  # the derived items went too
    # Told of what it was shown alone, as if nothing withheld had been derived from it.
    assert replies[SECRET] == replies[None]
    assert replies[SHOWN] != replies[None]  # a shown derived item is counted
    # The user, who may see everything, is told of all of them.
    with _with_derived(SECRET) as memory:
        secret = next(f.id for f in memory.facts() if f.text == SECRET)
        result = memory.forget(request)
        assert secret in result.forgotten.facts and len(result.forgotten.passages) == 1
        assert result.shown is None


def test_the_chat_forget_hint_says_core_shows_no_withheld_text() -> None:
    from rich.console import Console

    from tiermem.agent.loop import Agent
    from tiermem.agent.offline import OfflinePolicy
    from tiermem.agent.repl import ChatRepl

    with _memory(mode="exact") as memory:
        out = io.StringIO()
        repl = ChatRepl(Agent(memory, OfflinePolicy()), console=Console(file=out, width=1000),
                        errors=io.StringIO())
        assert repl.run_piped(iter(["/forget User takes propranolol\n"])) == 1
        hint = out.getvalue().splitlines()[-1]
        assert hint.startswith("/recall TEXT and /archival TEXT show how it was stored, and "
                               "/core the facts (not what the privacy policy withholds: /core "
                               "shows that as [withheld: CATEGORY]")
        assert "give its text as you know it" in hint


def _with_the_call_that_stored(derived: str | None) -> HierarchicalMemory:
    """A shown message, the model's own call in its turn that appended ``SECRET`` (its
    arguments quote it, its content is empty) and, unless None, ``derived`` filed from the
    message as that call files a withheld fact."""
    from tiermem.memory.tiers.recall import NewMessage

    memory = make_memory(privacy=POLICY, forget=ForgetConfig(mode="exact"))
    memory.process_interaction("Here is the list from my pharmacist", "Thanks.")
    [message] = memory.recall_search("pharmacist", k=5, roles=["user"]).hits
    turn = memory.store.messages.get_many([message.id])[message.id].turn
    call = {"id": "c1", "type": "function", "function": {
        "name": "core_memory_append", "arguments": json.dumps({"content": SECRET})}}
    memory.recall.append_many([
        NewMessage("assistant", "", turn, tool_calls=[call]),
        NewMessage("tool", "Filed.", turn, tool_call_id="c1", tool_name="core_memory_append")])
    if derived is not None:
        memory.archival_insert(derived, source_message_id=message.id)
    return memory


def test_no_message_quoting_only_a_withheld_item_is_counted_to_the_model() -> None:
    # The call quoting the withheld passage goes with it, but counted to the model it would
    # tell that the passage was still there.
    replies = {}
    for derived in (None, SECRET):
        with _with_the_call_that_stored(derived) as memory:
            replies[derived] = _forget(memory, "Here is the list from my pharmacist")
            assert _without_policy(memory) == 0
    assert replies[SECRET] == replies[None]
    with _with_the_call_that_stored(SECRET) as memory:  # the user is told of everything
        calls = [m.id for m in memory.store.messages.in_turns_of([1]) if m.tool_calls]
        result = memory.forget("Here is the list from my pharmacist")
        assert len(calls) == 1 and calls[0] in result.forgotten.messages


def test_the_tool_says_a_forgotten_fact_s_source_message_is_kept() -> None:
    with make_memory(forget=ForgetConfig(mode="exact")) as memory:
        memory.process_interaction("My gym is FitLife.", "Noted.")
        memory.add_fact("User likes green tea")  # stated by no message
        learned = next(f.text for f in memory.facts() if "FitLife" in f.text)
        from_message = _forget(memory, learned)
        by_itself = _forget(memory, "User likes green tea")
    assert from_message.startswith("Forgotten: 1 fact(s), 0 passage(s), 0 message(s)")
    assert "message a forgotten fact was learned from is kept" in from_message
    assert "pass that message's words to forget" in from_message
    assert by_itself.startswith("Forgotten: 1 fact(s)")
    assert "learned from is kept" not in by_itself


def test_under_a_policy_every_match_says_a_source_may_be_kept() -> None:
    with make_memory(privacy=POLICY, forget=ForgetConfig(mode="exact")) as memory:
        memory.add_fact("User likes green tea")  # stated by no message
        assert "learned from is kept" in _forget(memory, "User likes green tea")
