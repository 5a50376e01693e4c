"""A small model echoes its earlier calls in a later step or turn: each echo gets an answer
that says the work is done, and changes nothing (driven through the agent loop)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import pytest

from tiermem.agent.loop import Agent
from tiermem.agent.scripted import ScriptedModel, call, calls, reply
from tiermem.memory import HashingEmbedder, HierarchicalMemory


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        yield m


def snapshot(memory: HierarchicalMemory) -> tuple[list[dict[str, object]], int]:
    return [f.to_dict() for f in memory.facts()], memory.last_event_id()


def test_retiring_a_fact_again_says_it_was_retired(memory: HierarchicalMemory) -> None:
    memory.add_fact("User works at Acme", "durable")
    retire = call("core_memory_replace", old_content="User works at Acme", new_content="",
                  request_heartbeat=True)
    echo = call("core_memory_replace", old_content="User works at Acme", new_content="",
                request_heartbeat=True)
    with ScriptedModel([retire, echo, call("send_message", message="Noted.")]) as model:
        result = Agent(memory, model).step("I left Acme")
    first, again, _ = result.tool_results
    assert first.ok and first.content.startswith("core -> archival (superseded)")
    assert again.ok, again.content
    assert again.content.startswith(
        "Already retired: the fact holding 'User works at Acme' was retired as no longer true")
    assert "nothing was changed" in again.content
    # The next turn's echo, once nothing else happened in between, changes nothing either.
    before = snapshot(memory)
    with ScriptedModel([call("core_memory_replace", old_content="Acme", new_content=""),
                        ]) as model:
        later = Agent(memory, model).step("thanks")
    assert later.tool_results[0].ok and "Already retired" in later.tool_results[0].content
    assert snapshot(memory) == before


def test_an_edit_made_again_says_it_is_done_and_changes_nothing(
    memory: HierarchicalMemory,
) -> None:
    memory.add_fact("User lives in Paris", "durable")
    memory.add_fact("User likes tea", "durable")
    move = {"old_content": "Paris", "new_content": "Lyon", "request_heartbeat": True}
    # "green tea" holds "tea": run again, it would read "green green tea".
    tea = {"old_content": "tea", "new_content": "green tea", "request_heartbeat": True}
    script = [call("core_memory_replace", **move), call("core_memory_replace", **tea),
              call("core_memory_replace", **move), call("core_memory_replace", **tea),
              call("send_message", message="Updated.")]
    with ScriptedModel(script) as model:
        result = Agent(memory, model).step("I moved to Lyon, and it's green tea I like")
    assert [r.ok for r in result.tool_results] == [True] * 5
    first, _, again, tea_again, _ = (r.content for r in result.tool_results)
    assert first.startswith("core edited: User lives in Lyon")
    assert again.startswith("Already done: an earlier call replaced 'Paris' with 'Lyon', and "
                            "core's fact reads 'User lives in Lyon'; nothing was changed")
    assert tea_again.startswith("Already done:") and "'User likes green tea'" in tea_again
    assert sorted(f.text for f in memory.core) == ["User likes green tea", "User lives in Lyon"]
    # A later turn, by an agent started again on the same memory: its window is read back.
    before = snapshot(memory)
    with ScriptedModel([call("core_memory_replace", **tea),
                        call("send_message", message="Yes.")]) as model:
        later = Agent(memory, model).step("Did you get that?")
    assert later.tool_results[0].ok and later.tool_results[0].content.startswith("Already done")
    assert snapshot(memory) == before


def test_an_edit_is_done_only_while_core_holds_what_it_left(memory: HierarchicalMemory) -> None:
    memory.add_fact("User lives in Paris", "durable")
    move = {"old_content": "Paris", "new_content": "Lyon", "request_heartbeat": True}
    with ScriptedModel([call("core_memory_replace", **move),
                        call("send_message", message="Updated.")]) as model:
        Agent(memory, model).step("I moved to Lyon")
    # Edited since: core no longer reads as that call left it.
    memory.replace_in_core("Lyon", "Lyon, France")
    # Never made: another fact merely holds the new text.
    memory.add_fact("User's sister lives in Lyon", "durable")
    rome = {"old_content": "Rome", "new_content": "Lyon", "request_heartbeat": True}
    with ScriptedModel([call("core_memory_replace", **move), call("core_memory_replace", **rome),
                        call("send_message", message="Done.")]) as model:
        result = Agent(memory, model).step("Did you save it?")
    for echoed in result.tool_results[:2]:
        assert not echoed.ok and "Already done" not in echoed.content
        assert "no core fact contains" in echoed.content


def test_a_reply_sent_again_reaches_the_user_once(memory: HierarchicalMemory) -> None:
    hello = ("send_message", {"message": "Hi! How can I help?"})
    note = ("core_memory_append", {"content": "User greets politely", "request_heartbeat": True})
    beside = [calls(hello, hello)]
    next_step = [calls(hello, note), call("send_message", message="Hi! How can I help? ")]
    as_text = [calls(hello, note), reply("Hi! How can I help?")]
    for steps in (beside, next_step, as_text):
        with ScriptedModel(steps) as model:
            result = Agent(memory, model).step("hello")
        assert result.reply == "Hi! How can I help?", steps
    # What recall keeps the agent said, in one message, is what the user read.
    with ScriptedModel([calls(hello, hello, ("send_message", {"message": "Bye."}))]) as model:
        result = Agent(memory, model).step("hello again")
    assert result.reply == "Hi! How can I help?\n\nBye."
    said = [r["content"] for r in memory.recall.iter_rows() if r["role"] == "assistant"]
    assert said[-1] == "Hi! How can I help?\n\nBye."


def test_a_reply_written_beside_its_own_send_is_stored_once(memory: HierarchicalMemory) -> None:
    # A small model writes its reply as text and sends it too, in one message.
    hello = "Hi! How can I help?"
    both = dataclasses.replace(call("send_message", message=hello), content=hello + "\n")
    with ScriptedModel([both]) as model:
        result = Agent(memory, model).step("hello")
    assert result.reply == hello
    said = [r["content"] for r in memory.recall.iter_rows() if r["role"] == "assistant"]
    assert [text.strip() for text in said] == [hello]
    # Text of its own beside a different send is kept before it, as before.
    other = dataclasses.replace(call("send_message", message="Bye."), content="Noted.")
    with ScriptedModel([other]) as model:
        Agent(memory, model).step("bye")
    said = [r["content"] for r in memory.recall.iter_rows() if r["role"] == "assistant"]
    assert said[-1] == "Noted.\n\nBye."



def test_a_reply_echoed_in_a_later_step_is_stored_once(memory: HierarchicalMemory) -> None:
    sure = ("send_message", {"message": "Sure."})
    note = ("core_memory_append", {"content": "User asks politely", "request_heartbeat": True})
    more = ("send_message", {"message": "Anything else?"})
    cases = [
        (reply("Sure. "), "Sure.", ["Sure."]),
        (call("send_message", message="Sure."), "Sure.", ["Sure."]),
        # A different reply beside the echo, or in its place, is kept.
        (calls(sure, more), "Sure.\n\nAnything else?", ["Sure.", "Anything else?"]),
        (reply("Done."), "Sure.\n\nDone.", ["Sure.", "Done."]),
    ]
    for echo, read, stored in cases:
        with ScriptedModel([calls(sure, note), echo]) as model:
            result = Agent(memory, model).step("Can you help?")
        assert result.reply == read, echo
        said = [r["content"] for r in memory.recall.iter_rows()
                if r["role"] == "assistant" and r["turn"] == memory.tick]
        assert [text for text in said if text.strip()] == stored, echo


def test_forgetting_again_says_it_was_forgotten(memory: HierarchicalMemory) -> None:
    memory.add_fact("User's door code is 4821", "durable")
    forget = {"request": "User's door code is 4821", "request_heartbeat": True}
    with ScriptedModel([call("forget", **forget), call("forget", **forget),
                        call("send_message", message="Forgotten.")]) as model:
        result = Agent(memory, model).step("Forget my door code")
    first, again, _ = (r.content for r in result.tool_results)
    assert first.startswith("Forgotten: 1 fact(s)")
    assert again.startswith("Already forgotten: an earlier call with this request forgot what "
                            "it matched, and nothing stored matches it now")
    assert "ask the user" not in again
    with ScriptedModel([call("forget", **forget), call("send_message", message="Done.")]) as model:
        later = Agent(memory, model).step("Is it gone?")
    assert later.tool_results[0].content.startswith("Already forgotten")
    # A request that never forgot anything is answered as before.
    with ScriptedModel([call("forget", request="User's bike lock code is 1111"),
                        ]) as model:
        never = Agent(memory, model).step("Forget my bike lock code")
    assert never.tool_results[0].content.startswith("Nothing forgotten: nothing stored matches")
