"""The agent after an erasure: erased messages leave its window, and its running summary
keeps nothing of them, even when a model wrote it in its own words."""

from __future__ import annotations

from pathlib import Path

from tiermem.agent.loop import Agent
from tiermem.agent.scripted import ScriptedModel, call, reply
from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.tools.declare import tool
from tiermem.tools.dispatch import Toolbox
from tiermem.tools.memory_tools import MEMORY_TOOLS, ToolContext

SECRET = "the locker code is QX-55"
# What a model's summary might say: no run of four words in common with the message, and
# no word that looks like a secret on its own (a long number, a code of letters and
# digits), which the memory would take out itself.
PARAPHRASE = "Summary: user shared locker combination QX-55 earlier."


@tool(heartbeat=True)
def erase_first_message(ctx: ToolContext) -> str:
    """Erase the first message of the conversation."""
    report = ctx.memory.erase(messages=[1], reason="the user asked")
    return f"erased {report.messages}"


def _agent_with_a_paraphrasing_summary(memory: HierarchicalMemory,
                                       model: ScriptedModel) -> Agent:
    """Three turns, the first of which told the secret, then folded (as compaction would)
    into a summary a model wrote in its own words."""
    agent = Agent(memory, model)
    agent.step(f"Remember: {SECRET}.")
    agent.step("Say hello.")
    agent.step("How are you?")
    agent.context.messages = agent.context.messages[4:]
    agent.context.message_ids = agent.context.message_ids[4:]
    agent.context.summary = PARAPHRASE
    with memory.interaction():
        agent.stored_context.save()
    return agent


def _saved_summary(memory: HierarchicalMemory) -> str:
    return str(memory.get_state("context", {}).get("summary", ""))


def test_an_erasure_between_turns_rebuilds_a_paraphrasing_summary(tmp_path: Path) -> None:
    memory = HierarchicalMemory(tmp_path, embedder=HashingEmbedder())
    steps = [reply("Noted."), reply("Hello."), reply("Fine."), reply("Sure.")]
    with ScriptedModel(steps) as model:
        agent = _agent_with_a_paraphrasing_summary(memory, model)
        memory.erase(messages=[1, 2], reason="the user asked")
        assert "QX-55" in _saved_summary(memory)  # the memory cannot see a paraphrase

        agent.step("Anything else?")

    assert "QX-55" not in agent.context.summary
    assert "QX-55" not in _saved_summary(memory)
    # Rebuilt from what recall still holds before the window.
    assert agent.context.summary == "user: Say hello.\nassistant: Hello."
    assert agent.context.message_ids[0] == 5
    memory.close()
    with HierarchicalMemory(tmp_path, embedder=HashingEmbedder()) as reopened:
        assert "QX-55" not in repr(reopened.snapshot(include_vectors=False))


def test_an_erasure_by_a_tool_in_the_turn_is_not_saved_back(tmp_path: Path) -> None:
    memory = HierarchicalMemory(tmp_path, embedder=HashingEmbedder())
    toolbox = Toolbox((*MEMORY_TOOLS, erase_first_message))
    steps = [reply("Noted."), call("erase_first_message", request_heartbeat=True),
             reply("Done.")]
    with ScriptedModel(steps) as model:
        agent = Agent(memory, model, toolbox=toolbox)
        agent.step(f"Remember: {SECRET}.")
        agent.context.summary = PARAPHRASE
        agent.step("Please erase what I said first.")

    assert agent.context.message_ids[0] == 2  # the reply stays; the message went
    assert "QX-55" not in _saved_summary(memory)
    assert not any("QX-55" in str(m.get("content")) for m in agent.context.messages)
    memory.close()
    reopened = HierarchicalMemory(tmp_path, embedder=HashingEmbedder())
    try:
        assert "QX-55" not in repr(reopened.snapshot(include_vectors=False))
    finally:
        reopened.close()


def test_a_reloaded_window_never_holds_half_a_tool_call() -> None:
    from tiermem.agent.earlier_turns import with_calls_paired

    call_a = {"id": "a", "type": "function", "function": {"name": "x", "arguments": "{}"}}
    call_b = {"id": "b", "type": "function", "function": {"name": "y", "arguments": "{}"}}
    window = [
        {"role": "assistant", "content": "two calls", "tool_calls": [call_a, call_b]},
        {"role": "tool", "tool_call_id": "a", "content": "ok"},  # b's result was forgotten
        {"role": "tool", "tool_call_id": "c", "content": "its call was erased"},
        {"role": "assistant", "content": "one call", "tool_calls": [call_b]},
    ]
    messages, ids = with_calls_paired(window, [1, 2, 3, 4])
    assert ids == [1, 2, 4]
    assert messages[0]["tool_calls"] == [call_a]
    assert "tool_calls" not in messages[2] and messages[2]["content"] == "one call"


def test_a_forget_between_turns_rebuilds_a_paraphrasing_summary_too(tmp_path: Path) -> None:
    memory = HierarchicalMemory(tmp_path, embedder=HashingEmbedder())
    steps = [reply("Noted."), reply("Hello."), reply("Fine."), reply("Sure.")]
    with ScriptedModel(steps) as model:
        agent = _agent_with_a_paraphrasing_summary(memory, model)
        assert memory.forget(f"Remember: {SECRET}.").outcome == "matched"

        agent.step("Anything else?")

    # The summary goes into every prompt: a forgotten message leaves it as it leaves search.
    assert "QX-55" not in agent.context.summary
    assert "QX-55" not in _saved_summary(memory)
    assert all("QX-55" not in str(m) for m in model.calls[-1].messages)
    memory.close()
