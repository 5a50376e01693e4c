"""The agent loop driven by a scripted model: chaining, caps, errors, transactions, restarts."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tiermem.agent.earlier_turns import extractive_summary
from tiermem.agent.errors import ProviderError
from tiermem.agent.llm import Completion
from tiermem.agent.loop import Agent
from tiermem.agent.scripted import ScriptedModel, call, calls, raw_call, reply
from tiermem.agent.stored_messages import as_chat, as_said
from tiermem.memory import HashingEmbedder, HierarchicalMemory

TOOL_NAMES = ["send_message", "core_memory_append", "core_memory_replace",
              "archival_memory_insert", "archival_memory_search", "conversation_search",
              "forget"]


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        yield m


def core_texts(memory: HierarchicalMemory) -> list[str]:
    return [f.text for f in memory.core]


def recall_rows(memory: HierarchicalMemory) -> list[dict[str, Any]]:
    return list(memory.recall.iter_rows())


def tool_message_for(messages: list[dict[str, Any]], call_id: str) -> dict[str, Any]:
    return next(m for m in messages if m["role"] == "tool" and m["tool_call_id"] == call_id)


def test_chain_with_heartbeat_runs_each_step_and_feeds_results_back(
    memory: HierarchicalMemory,
) -> None:
    append = call("core_memory_append", content="User likes green tea", request_heartbeat=True)
    search = call("archival_memory_search", query="tea", request_heartbeat=True)
    send = call("send_message", message="Noted: green tea.")
    with ScriptedModel([append, search, send]) as model:
        result = Agent(memory, model).step("I like green tea")

    assert result.reply == "Noted: green tea."
    assert result.steps == 3 and result.notice is None
    assert [r.name for r in result.tool_results] == [
        "core_memory_append", "archival_memory_search", "send_message"]
    assert result.memory_changes == ["core + User likes green tea"]
    assert core_texts(memory) == ["User likes green tea"]

    first, second, third = model.calls
    assert first.tool_names == TOOL_NAMES
    assert first.messages[0]["role"] == "system"
    assert first.messages[-1] == {"role": "user", "content": "I like green tea"}
    # Each later call sees the previous step's call and its result.
    assert second.messages[-2]["tool_calls"][0]["id"] == append.tool_calls[0].id
    added = tool_message_for(second.messages, append.tool_calls[0].id)
    assert added["content"].startswith("core + User likes green tea")
    # Core is rendered into the system prompt once the fact is stored.
    assert "durable:\n- User likes green tea" in second.messages[0]["content"]
    found = json.loads(tool_message_for(third.messages, search.tool_calls[0].id)["content"])
    assert found["tier"] == "archival" and found["total"] == 0

    rows = recall_rows(memory)
    assert [r["role"] for r in rows] == [
        "user", "assistant", "tool", "assistant", "tool", "assistant", "tool"]
    assert rows[-2]["content"] == "Noted: green tea."  # the sent reply is searchable text
    assert {r["status"] for r in rows} == {"ok"}
    assert len({r["turn"] for r in rows}) == 1


def test_parallel_tool_calls_all_run_and_answer_in_order(memory: HierarchicalMemory) -> None:
    both = calls(("core_memory_append", {"content": "User lives in Oslo"}),
                 ("core_memory_append", {"content": "User has two dogs",
                                         "request_heartbeat": True}))
    with ScriptedModel([both, reply("Got both.")]) as model:
        result = Agent(memory, model).step("I live in Oslo and have two dogs")

    assert result.reply == "Got both."
    assert sorted(core_texts(memory)) == ["User has two dogs", "User lives in Oslo"]
    sent = model.calls[1].messages
    index = next(i for i, m in enumerate(sent) if m.get("tool_calls"))
    ids = [c.id for c in both.tool_calls]
    assert [c["id"] for c in sent[index]["tool_calls"]] == ids
    assert [m.get("tool_call_id") for m in sent[index + 1 : index + 3]] == ids
    assert all(m["role"] == "tool" for m in sent[index + 1 : index + 3])


def test_plain_reply_without_tools(memory: HierarchicalMemory) -> None:
    with ScriptedModel([reply("  Hello! How can I help?  ")]) as model:
        result = Agent(memory, model).step("hi")
    assert result.reply == "Hello! How can I help?"
    assert result.steps == 1 and result.tool_results == []
    rows = recall_rows(memory)
    assert [(r["role"], r["content"]) for r in rows] == [
        ("user", "hi"), ("assistant", "Hello! How can I help?")]


def test_step_cap_ends_a_runaway_chain_with_a_notice_and_keeps_edits(
    memory: HierarchicalMemory,
) -> None:
    steps = [call("core_memory_append", content=f"Loop fact number {i}", request_heartbeat=True)
             for i in range(4)]
    with ScriptedModel(steps) as model:
        agent = Agent(memory, model, max_steps=4)
        result = agent.step("go")
    assert len(model.calls) == 4
    assert result.reply is None
    assert result.notice is not None and "stopped after 4 steps" in result.notice
    assert "memory changes so far are kept" in result.notice
    assert sorted(core_texts(memory)) == [f"Loop fact number {i}" for i in range(4)]
    # The turn committed: the next turn sees the whole chain in context.
    with ScriptedModel([reply("ok")]) as model:
        agent.llm = model
        agent.step("still there?")
    seen = model.calls[0].messages
    assert sum(1 for m in seen if m["role"] == "tool") == 4


def test_default_step_cap_is_ten(memory: HierarchicalMemory) -> None:
    endless = [call("archival_memory_search", query="x", request_heartbeat=True)
               for _ in range(10)]
    with ScriptedModel(endless) as model:
        result = Agent(memory, model).step("loop")
    assert result.steps == 10 and "step cap" in (result.notice or "")


def test_repeated_malformed_json_ends_the_turn_after_three_steps(
    memory: HierarchicalMemory,
) -> None:
    broken = [raw_call("core_memory_append", '{"content": "tea"') for _ in range(3)]
    with ScriptedModel(broken) as model:
        result = Agent(memory, model).step("remember tea")
    assert len(model.calls) == 3
    assert result.notice is not None and "3 times in a row" in result.notice
    assert all(r.content.startswith("Error:") and "not valid JSON" in r.content
               for r in result.tool_results)
    assert len(memory.core) == 0


def test_one_good_step_resets_the_malformed_streak(memory: HierarchicalMemory) -> None:
    steps = [raw_call("core_memory_append", "{"), raw_call("core_memory_append", "{"),
             call("core_memory_append", content="User likes tea", request_heartbeat=True),
             raw_call("core_memory_append", "{"), reply("done")]
    with ScriptedModel(steps) as model:
        result = Agent(memory, model).step("remember tea")
    assert result.notice is None and result.reply == "done"


def test_tool_errors_go_back_to_the_model_as_tool_messages(memory: HierarchicalMemory) -> None:
    bad = call("core_memory_replace", old_content="", new_content="x")
    unknown = call("core_memory_delete", content="x")
    with ScriptedModel([bad, unknown, reply("sorry")]) as model:
        result = Agent(memory, model).step("fix my memory")
    assert result.reply == "sorry"
    after_bad = tool_message_for(model.calls[1].messages, bad.tool_calls[0].id)
    assert after_bad["content"].startswith("Error:")
    assert "old_content is empty" in after_bad["content"]
    after_unknown = tool_message_for(model.calls[2].messages, unknown.tool_calls[0].id)
    assert after_unknown["content"].startswith("Error: there is no tool named 'core_memory_delete'")


def test_send_message_with_a_failed_parallel_call_gives_the_model_another_step(
    memory: HierarchicalMemory,
) -> None:
    mixed = calls(("core_memory_replace", {"old_content": "nothing", "new_content": "x"}),
                  ("send_message", {"message": "Done!"}))
    with ScriptedModel([mixed, call("send_message", message="Actually, nothing matched.")]) as m:
        result = Agent(memory, m).step("update it")
    assert len(m.calls) == 2
    assert result.reply == "Done!\n\nActually, nothing matched."


def test_a_plain_reply_after_send_message_is_not_lost(memory: HierarchicalMemory) -> None:
    mixed = calls(("core_memory_replace", {"old_content": "nothing", "new_content": "x"}),
                  ("send_message", {"message": "Done!"}))
    with ScriptedModel([mixed, reply("Correction: nothing matched.")]) as model:
        result = Agent(memory, model).step("update it")
    assert result.reply == "Done!\n\nCorrection: nothing matched."


def _sends(*arguments: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"id": f"c{i}", "type": "function",
             "function": {"name": "send_message", "arguments": json.dumps(a)}}
            for i, a in enumerate(arguments)]


def test_the_summary_leaves_out_a_send_that_was_refused() -> None:
    messages = [{"role": "user", "content": "book it"},
                {"role": "assistant", "content": "",
                 "tool_calls": _sends({"message": "Booked.", "to": "user"},
                                      {"message": "Could not."})},
                {"role": "tool", "tool_call_id": "c0", "content": "Error: no field 'to'"},
                {"role": "tool", "tool_call_id": "c1", "content": "Sent."}]
    assert extractive_summary("", messages) == "user: book it\nassistant: Could not."


def test_a_message_stored_with_a_refused_send_as_said_reads_back_without_it() -> None:
    # Before refused sends were left out of recall, their text was stored as said too: read
    # back as the model's own words, the window said the agent had said it.
    calls_ = _sends({"message": "Booked.", "to": "user"}, {"message": "Could not."})
    old = {"role": "assistant", "content": "Booked.\n\nCould not.", "tool_calls": calls_}
    new = {**old, "content": "Could not."}
    assert as_chat(new, {"c0"})["content"] == ""
    assert as_chat(old, {"c0"}) == {"role": "assistant", "content": "", "tool_calls": calls_}
    assert as_chat(old)["content"] == ""  # its result not at hand: every text was sent
    own = {**old, "content": "Let me check.\n\nBooked.\n\nCould not."}
    assert as_chat(own, {"c0"})["content"] == "Let me check."
    # What the summary reads of them: what was sent, never the refused text.
    results = [{"role": "tool", "tool_call_id": "c0", "content": "Error: no field 'to'"},
               {"role": "tool", "tool_call_id": "c1", "content": "Sent."}]
    for row in (old, new, own):
        assert [m["content"] for m in as_said([row, *results])] == [
            "Let me check.\n\nCould not." if row is own else "Could not."]


def test_a_summary_of_recall_never_quotes_a_refused_send_whose_result_is_gone(
    memory: HierarchicalMemory,
) -> None:
    # The summary is written again from recall after an erasure; read from the calls, a
    # refused send was known only by its Error: result, and rows without it (erased here,
    # or past the end of the range read) quoted it as said.
    refused = calls(("send_message", {"message": "Booked.", "to": "user"}),
                    ("send_message", {"message": "Could not book it."}))
    model = ScriptedModel([refused, reply("Sorry."), reply("Hi.")])
    agent = Agent(memory, model)
    agent.step("book my flight")
    agent.step("hello")
    rows = memory.recall.rows(range(1, len(memory.recall) + 1))
    [error] = [r["id"] for r in rows if r["content"].startswith("Error:")]
    # The window holds the second turn alone, the first summarised out of it.
    keep = [i for i, m in enumerate(agent.context.message_ids) if m >= rows[-2]["id"]]
    agent.context.messages = [agent.context.messages[i] for i in keep]
    agent.context.message_ids = [agent.context.message_ids[i] for i in keep]
    agent.context.summary = "user: book my flight"
    agent.stored_context.save()

    memory.erase(messages=[error], reason="the user asked")
    reloaded = Agent(memory, model)

    assert "Booked" not in reloaded.context.summary
    assert reloaded.context.summary == ("user: book my flight\nassistant: Could not book it."
                                        "\nassistant: Sorry.")


def _without(snapshot: dict[str, Any], message_id: int) -> dict[str, Any]:
    copy = json.loads(json.dumps(snapshot))
    copy["tables"]["messages"] = [
        r for r in copy["tables"]["messages"] if r["id"] != message_id]
    return copy


def test_provider_error_mid_turn_rolls_back_everything_but_the_question(
    memory: HierarchicalMemory,
) -> None:
    model = ScriptedModel([call("core_memory_append", content="User likes tea",
                                request_heartbeat=True), reply("Noted.")])
    agent = Agent(memory, model)
    agent.step("I like tea")
    before = memory.snapshot()
    context_before = (list(agent.context.messages), agent.context.summary)
    error_text = "HTTP 500 upstream exploded badly"
    model.add(
        call("core_memory_append", content="User hates coffee", request_heartbeat=True),
        call("archival_memory_insert", content="coffee note", request_heartbeat=True),
        call("archival_memory_search", query="coffee", request_heartbeat=True),
        ProviderError(error_text, kind="server", status_code=500),
    )
    with pytest.raises(ProviderError, match="exploded"):
        agent.step("I hate coffee")
    model.assert_finished()

    after = memory.snapshot()
    question = [r for r in after["tables"]["messages"] if r["content"] == "I hate coffee"]
    assert len(question) == 1 and question[0]["status"] == "unanswered"
    assert question[0]["role"] == "user"
    assert _without(after, question[0]["id"]) == before
    assert core_texts(memory) == ["User likes tea"]
    assert error_text not in json.dumps(after)
    assert (agent.context.messages, agent.context.summary) == context_before

    # The next turn works, and the failed turn's tool traffic is not in its context.
    model.add(reply("Hi again"))
    assert agent.step("hello").reply == "Hi again"
    assert "coffee note" not in json.dumps(model.calls[-1].messages)


def test_provider_error_on_the_first_call_keeps_only_the_question(
    memory: HierarchicalMemory,
) -> None:
    before = memory.snapshot()
    with pytest.raises(ProviderError):
        Agent(memory, ScriptedModel([ProviderError("timed out", kind="timeout")])).step("hello?")
    after = memory.snapshot()
    (row,) = after["tables"]["messages"]
    assert (row["content"], row["status"]) == ("hello?", "unanswered")
    assert _without(after, row["id"]) == before


def test_state_survives_a_restart(tmp_path: Path) -> None:
    home = tmp_path / "agent"
    script: list[Completion] = []
    for i in range(8):
        script += [call("core_memory_append", content=f"Stored fact {i} about widgets",
                        request_heartbeat=True),
                   call("send_message", message=f"Noted fact {i}. Anything else?")]
    with HierarchicalMemory(home, embedder=HashingEmbedder()) as memory:
        with ScriptedModel(script, context_window=2600) as model:
            agent = Agent(memory, model, summarizer=extractive_summary)
            compacted = False
            for i in range(8):
                result = agent.step(f"Remember fact {i}: widgets need oil every {i + 2} days "
                                    f"and the manual sits on shelf {i}. " * 2)
                compacted = compacted or result.compacted
        assert compacted, "the window is small enough to force a compaction"
        messages = json.loads(json.dumps(agent.context.messages))
        summary = agent.context.summary
        core = [f.to_dict() for f in memory.core]
        assert summary

    with HierarchicalMemory(home, embedder=HashingEmbedder()) as memory:
        with ScriptedModel([reply("welcome back")], context_window=2600) as model:
            again = Agent(memory, model, summarizer=extractive_summary)
            assert again.context.messages == messages
            assert again.context.summary == summary
            assert [f.to_dict() for f in memory.core] == core
            again.step("hello")
        sent = model.calls[0].messages
        assert sent[1 : 1 + len(messages)] == messages
        assert "Stored fact 7 about widgets" in sent[0]["content"]
        assert "<summary>" in sent[0]["content"]


def test_user_text_is_validated_before_anything_is_stored(memory: HierarchicalMemory) -> None:
    agent = Agent(memory, ScriptedModel([]))
    from tiermem.memory import InvalidInputError

    with pytest.raises(InvalidInputError, match="empty"):
        agent.step("   ")
    assert len(memory.recall) == 0


def test_repeating_a_fact_in_one_turn_counts_one_access(memory: HierarchicalMemory) -> None:
    same = {"content": "User likes tea", "request_heartbeat": True}
    script = [calls(("core_memory_append", same), ("core_memory_append", same)),
              call("core_memory_append", **same), reply("ok"),
              call("core_memory_append", **same), reply("ok")]
    with ScriptedModel(script) as model:
        agent = Agent(memory, model)
        result = agent.step("I like tea, I like tea, I like tea")
        assert result.tool_results[1].content.startswith("Already in core;")
        (fact,) = memory.core
        assert fact.access_count == 1
        agent.step("I like tea")
        (fact,) = memory.core
        assert fact.access_count == 2


def test_an_unanswered_question_survives_a_restart_outside_the_context(tmp_path: Path) -> None:
    home = tmp_path / "agent"
    with HierarchicalMemory(home, embedder=HashingEmbedder()) as memory:
        agent = Agent(memory, ScriptedModel([reply("hi"), ProviderError("down", kind="server")]))
        agent.step("hello")
        with pytest.raises(ProviderError):
            agent.step("are you there?")
    with HierarchicalMemory(home, embedder=HashingEmbedder()) as memory:
        agent = Agent(memory, ScriptedModel([]))
        assert [m["content"] for m in agent.context.messages] == ["hello", "hi"]
        statuses = [(r["content"], r["status"]) for r in memory.recall.iter_rows()]
        assert statuses == [("hello", "ok"), ("hi", "ok"), ("are you there?", "unanswered")]


def test_reloaded_context_matches_for_untrimmed_sent_messages(tmp_path: Path) -> None:
    home = tmp_path / "agent"
    script = [call("send_message", message="Noted.\n"),
              calls(("send_message", {"message": " First. "}),
                    ("send_message", {"message": "Second.\n\n"}))]
    with HierarchicalMemory(home, embedder=HashingEmbedder()) as memory:
        with ScriptedModel(script) as model:
            agent = Agent(memory, model)
            agent.step("one")
            agent.step("two")
        messages = json.loads(json.dumps(agent.context.messages))
    with HierarchicalMemory(home, embedder=HashingEmbedder()) as memory:
        assert Agent(memory, ScriptedModel([])).context.messages == messages


def test_blank_content_beside_tool_calls_is_accepted(memory: HierarchicalMemory) -> None:
    chatter = Completion(content="\n\n", tool_calls=call(
        "core_memory_append", content="User likes tea", request_heartbeat=True).tool_calls)
    with ScriptedModel([chatter, reply("ok")]) as model:
        result = Agent(memory, model).step("I like tea")
    assert result.reply == "ok"
    assert core_texts(memory) == ["User likes tea"]


def test_a_tool_call_too_long_to_store_is_kept_cut_and_the_snapshot_restores(
        memory: HierarchicalMemory) -> None:
    # A runaway model: its arguments are longer than any text a memory stores.
    huge = call("archival_memory_insert", content="é" * 60_000 + "x" * 150_000)
    with ScriptedModel([huge, reply("I could not file that.")]) as model:
        result = Agent(memory, model).step("file this document")
    assert result.reply == "I could not file that."
    stored_text = next(r["tool_calls"] for r in recall_rows(memory) if r["tool_calls"])
    assert len(stored_text) <= 200_000
    stored = json.loads(stored_text)[0]
    assert stored["id"] == huge.tool_calls[0].id
    assert stored["function"]["arguments"].endswith(
        "that can be stored; the rest was dropped]")
    # The tool itself refused the content, and told the model.
    said = tool_message_for(model.calls[1].messages, huge.tool_calls[0].id)["content"]
    assert said.startswith("Error:")
    with HierarchicalMemory.restore(memory.snapshot(), embedder=HashingEmbedder()) as copy:
        assert len(copy.recall) == len(memory.recall)


class _DictModel:
    """A client written against the OpenAI SDK's shapes: it returns the message dict."""

    name, context_window = "dict-model", 8192

    def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Any:
        return {"role": "assistant", "content": "hi"}


@pytest.mark.parametrize(("build", "error", "said"), [
    (lambda m: Agent("/tmp/home", ScriptedModel()), TypeError,  # type: ignore[arg-type]
     "memory must be a HierarchicalMemory, not str"),
    (lambda m: Agent(m, object()), TypeError,  # type: ignore[arg-type]
     "llm must follow the LLMClient protocol"),
    (lambda m: Agent(m, ScriptedModel(context_window="8k")), TypeError,  # type: ignore[arg-type]
     "context_window must be a whole number"),
    (lambda m: Agent(m, ScriptedModel(), max_steps=0), ValueError,
     "max_steps must be a whole number of at least 1"),
])
def test_an_agent_built_wrongly_says_so_at_once(
        memory: HierarchicalMemory, build: Any, error: type[Exception], said: str) -> None:
    with pytest.raises(error, match=said):
        build(memory)


def test_a_client_returning_no_completion_is_named(memory: HierarchicalMemory) -> None:
    with pytest.raises(TypeError, match=r"_DictModel.complete\(\) returned dict, not a "
                                        r"Completion"):
        Agent(memory, _DictModel()).step("hello")
