"""The heartbeat: a tool call ends the turn unless it asks for another step or fails."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tiermem.agent.llm import Completion
from tiermem.agent.loop import Agent
from tiermem.agent.offline import OfflinePolicy
from tiermem.agent.scripted import ScriptedModel, call, calls, reply
from tiermem.agent.system_message import SYSTEM_PROMPT
from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.tools.declare import HEARTBEAT_PARAM
from tiermem.tools.memory_tools import memory_toolbox


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        yield m


def rows(memory: HierarchicalMemory) -> list[dict[str, Any]]:
    return list(memory.recall.iter_rows())


@pytest.mark.parametrize("heartbeat", [{"request_heartbeat": False}, {}],
                         ids=["false", "omitted"])
def test_a_call_without_heartbeat_ends_the_turn_with_no_reply_stored(
    memory: HierarchicalMemory, heartbeat: dict[str, bool],
) -> None:
    with ScriptedModel([call("core_memory_append", content="User likes tea", **heartbeat)]) as m:
        result = Agent(memory, m).step("I like tea")

    assert len(m.calls) == 1 and result.steps == 1
    assert [f.text for f in memory.core] == ["User likes tea"]  # the tool did run
    assert result.reply is None
    assert result.notice == ("the model ended its turn without a reply (after "
                             "core_memory_append, called without request_heartbeat)")
    # The call and its result are kept; no assistant reply was invented.
    assert [(r["role"], r["content"], r["status"]) for r in rows(memory)] == [
        ("user", "I like tea", "ok"),
        ("assistant", "", "ok"),
        ("tool", rows(memory)[2]["content"], "ok"),
    ]
    assert rows(memory)[2]["content"].startswith("core + User likes tea")


def test_text_beside_the_final_call_is_the_reply_and_is_stored_once(
    memory: HierarchicalMemory,
) -> None:
    final = Completion(content="Noted, you like tea.",
                       tool_calls=call("core_memory_append", content="User likes tea").tool_calls)
    with ScriptedModel([final]) as model:
        result = Agent(memory, model).step("I like tea")

    assert result.reply == "Noted, you like tea." and result.notice is None
    assert [(r["role"], r["content"]) for r in rows(memory)][:2] == [
        ("user", "I like tea"), ("assistant", "Noted, you like tea.")]
    assert [r["role"] for r in rows(memory)] == ["user", "assistant", "tool"]


def test_heartbeat_true_gives_the_model_another_step(memory: HierarchicalMemory) -> None:
    script = [call("core_memory_append", content="User likes tea", request_heartbeat=True),
              reply("Noted.")]
    with ScriptedModel(script) as model:
        result = Agent(memory, model).step("I like tea")
    assert len(model.calls) == 2 and result.reply == "Noted." and result.notice is None
    assert model.calls[1].messages[-1]["role"] == "tool"


def test_a_failed_call_continues_even_without_heartbeat(memory: HierarchicalMemory) -> None:
    script = [call("core_memory_replace", old_content="", new_content="x"),
              call("send_message", message="Nothing to change.")]
    with ScriptedModel(script) as model:
        result = Agent(memory, model).step("change it")
    assert len(model.calls) == 2 and result.reply == "Nothing to change."
    assert model.calls[1].messages[-1]["content"].startswith("Error:")


def test_a_reply_sent_beside_a_failed_call_comes_with_a_notice(
    memory: HierarchicalMemory,
) -> None:
    # A small model writes the edit and the confirmation at once: the user was shown
    # "Done, I updated it." with nothing saying the edit found nothing to change.
    both = calls(("core_memory_replace", {"old_content": "dog", "new_content": "cat"}),
                 ("send_message", {"message": "Done, I updated it."}))
    with ScriptedModel([both, reply("Sorry, there was nothing to update.")]) as model:
        result = Agent(memory, model).step("I have a cat now, not a dog")

    assert len(model.calls) == 2  # the failure gives the model its step, as before
    assert result.reply == "Done, I updated it.\n\nSorry, there was nothing to update."
    assert result.notice == ("core_memory_replace failed in the step that sent the reply; "
                             "what the reply says of it may not have happened")

    fine = calls(("core_memory_append", {"content": "User has a cat"}),
                 ("send_message", {"message": "Noted."}))
    with ScriptedModel([fine]) as model:
        assert Agent(memory, model).step("I have a cat").notice is None


def test_one_heartbeat_among_parallel_calls_continues(memory: HierarchicalMemory) -> None:
    both = calls(("core_memory_append", {"content": "User lives in Oslo"}),
                 ("archival_memory_search", {"query": "Oslo", HEARTBEAT_PARAM: True}))
    with ScriptedModel([both, reply("Got it.")]) as model:
        result = Agent(memory, model).step("I live in Oslo")
    assert len(model.calls) == 2 and result.reply == "Got it."


def test_send_message_ends_the_turn(memory: HierarchicalMemory) -> None:
    with ScriptedModel([call("send_message", message="Hello.")]) as model:
        result = Agent(memory, model).step("hi")
    assert len(model.calls) == 1 and result.reply == "Hello." and result.notice is None


def test_send_message_asking_for_a_heartbeat_still_sends_and_ends_the_turn(
    memory: HierarchicalMemory,
) -> None:
    # The prompt says any call may set request_heartbeat; a small model sets it on
    # send_message too. Refused, its reply never reached the user, and a model that kept
    # sending it so ran to the step cap with nothing said.
    sent = call("send_message", message="Hello!", request_heartbeat=True)
    with ScriptedModel([sent]) as model:
        result = Agent(memory, model).step("hi")

    assert result.reply == "Hello!" and result.notice is None and result.steps == 1
    assert result.tool_results[0].ok and len(model.calls) == 1
    # What the model is told agrees: neither the prompt nor the tool lets it expect a step
    # after a reply (in Letta, a heartbeat on send_message gives one).
    [schema] = [s["function"] for s in model.calls[0].tools if s["function"]["name"] ==
                "send_message"]
    assert HEARTBEAT_PARAM not in schema["parameters"]["properties"]
    assert "ends your turn, even with request_heartbeat" in schema["description"]
    system = model.calls[0].messages[0]["content"]
    assert "Either ends your turn, even with request_heartbeat" in system
    assert "Any other tool call ends your turn" in system


def test_a_reply_beside_a_call_asking_for_a_heartbeat_gets_the_step_and_keeps_both_texts(
    memory: HierarchicalMemory,
) -> None:
    # SKILL.md: the reply ends the turn unless a call beside it asks for a heartbeat.
    both = calls(("send_message", {"message": "Hello!"}),
                 ("core_memory_append", {"content": "User says hello", HEARTBEAT_PARAM: True}))
    with ScriptedModel([both, reply("And one more thing.")]) as model:
        result = Agent(memory, model).step("hi")
    assert len(model.calls) == 2 and result.steps == 2
    assert result.reply == "Hello!\n\nAnd one more thing."


def test_prompt_and_schemas_say_a_call_without_heartbeat_ends_the_turn() -> None:
    assert "ends your turn when it returns unless you set request_heartbeat" in SYSTEM_PROMPT
    for schema in memory_toolbox().schemas():
        params = schema["function"]["parameters"]["properties"]
        if HEARTBEAT_PARAM in params:
            assert "your turn ends" in params[HEARTBEAT_PARAM]["description"]


def test_offline_policy_asks_for_a_heartbeat_on_every_call_but_the_reply(
    memory: HierarchicalMemory,
) -> None:
    made: list[Completion] = []

    class Recording(OfflinePolicy):
        def complete(self, messages: list[dict[str, Any]],
                     tools: list[dict[str, Any]]) -> Completion:
            made.append(super().complete(messages, tools))
            return made[-1]

    agent = Agent(memory, Recording())
    stored = agent.step("My name is Ada. I'm currently debugging the payment service.")
    asked = agent.step("What is my name?")

    assert stored.reply and asked.reply and "Ada" in asked.reply
    assert [len(c.tool_calls) for c in made] == [2, 1, 2, 1]
    for completion in made:
        for tool_call in completion.tool_calls:
            wants = '"request_heartbeat": true' in tool_call.arguments
            assert wants == (tool_call.name != "send_message"), tool_call
