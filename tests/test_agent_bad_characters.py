"""One bad character or one long text never costs a turn.

Text tiermem generates or relays (tool results, error messages, the model's
replies) is made storable before it is stored: lone surrogates become U+FFFD,
NUL is dropped, an over-long reply is cut with a marker. Long tool arguments
and results are stored in full and shown to the model trimmed.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_agent_context import prompt_tokens

from tiermem.agent.earlier_turns import extractive_summary
from tiermem.agent.llm import Completion
from tiermem.agent.loop import Agent
from tiermem.agent.scripted import ScriptedModel, call, reply
from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.validation import MAX_TEXT_CHARS
from tiermem.tools.declare import ToolError, tool
from tiermem.tools.dispatch import Toolbox
from tiermem.tools.memory_tools import MEMORY_TOOLS

# A file name read from disk with surrogateescape: what a tool's own error may quote.
ODD_NAME = b"caf\xe9.txt".decode("utf-8", "surrogateescape")


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        yield m


def rows(memory: HierarchicalMemory) -> list[dict[str, Any]]:
    return list(memory.recall.iter_rows())


@tool(heartbeat=True)
def open_file(name: str) -> str:
    """Open a file.

    Args:
        name: Which file.
    """
    if name == "listing":
        return f"files: {ODD_NAME}, notes.txt\x00"
    raise ToolError(f"cannot open {ODD_NAME}: no such file")


def test_a_tool_error_quoting_a_lone_surrogate_is_stored_as_the_tool_message(
    memory: HierarchicalMemory,
) -> None:
    toolbox = Toolbox([*MEMORY_TOOLS, open_file])
    script = [call("open_file", name="x"),
              call("open_file", name="listing", request_heartbeat=True), reply("Done.")]
    with ScriptedModel(script) as model:
        result = Agent(memory, model, toolbox=toolbox).step("open my file")
    assert result.reply == "Done."
    stored = [r["content"] for r in rows(memory) if r["role"] == "tool"]
    assert stored == ["Error: cannot open caf\ufffd.txt: no such file",
                      "files: caf\ufffd.txt, notes.txt"]
    assert [r.content for r in result.tool_results] == stored
    assert {r["status"] for r in rows(memory)} == {"ok"}


def test_a_validation_error_about_a_lone_surrogate_reaches_the_model(
    memory: HierarchicalMemory,
) -> None:
    script = [call("archival_memory_search", query="tea", page="\ud800"), reply("Sorry.")]
    with ScriptedModel(script) as model:
        result = Agent(memory, model).step("find tea")
    assert result.reply == "Sorry."
    (tool_row,) = [r for r in rows(memory) if r["role"] == "tool"]
    assert tool_row["content"].startswith("Error: the arguments of archival_memory_search")
    assert "lone surrogate" in tool_row["content"]


@pytest.mark.parametrize(("sent", "kept"), [
    ("Tea is\x00 noted.", "Tea is noted."),
    ("Tea is noted \ud83d.", "Tea is noted \ufffd."),
    ("\x00\udfff", "\ufffd"),
])
def test_a_reply_with_nul_or_a_lone_surrogate_is_kept_cleaned(
    memory: HierarchicalMemory, sent: str, kept: str,
) -> None:
    with ScriptedModel([reply(sent)]) as model:
        result = Agent(memory, model).step("I like tea")
    assert result.reply == kept
    assert [(r["role"], r["content"], r["status"]) for r in rows(memory)] == [
        ("user", "I like tea", "ok"), ("assistant", kept, "ok")]


def test_a_sent_message_with_nul_is_kept_cleaned(memory: HierarchicalMemory) -> None:
    with ScriptedModel([call("send_message", message="Tea\x00 is noted.")]) as model:
        result = Agent(memory, model).step("I like tea")
    assert result.reply == "Tea is noted."
    assert rows(memory)[1]["content"] == "Tea is noted."


def test_an_over_long_reply_is_stored_truncated_with_a_marker(memory: HierarchicalMemory) -> None:
    long_reply = "All the details follow. " * 12_000  # 288,000 characters
    with ScriptedModel([reply(long_reply), reply("Short one.")]) as model:
        agent = Agent(memory, model, summarizer=extractive_summary)
        result = agent.step("tell me everything")
        agent.step("and briefly?")
    stored = rows(memory)[1]["content"]
    assert len(stored) <= MAX_TEXT_CHARS and stored.startswith("All the details follow.")
    assert stored.endswith("[truncated: the reply was 288,000 characters, over the 200,000 "
                           "that can be stored; the rest was dropped]")
    assert result.reply == stored
    assert [r["status"] for r in rows(memory)] == ["ok"] * 4


def words(n: int) -> str:
    """``n`` distinct-ish words: text that costs about a token per word."""
    return " ".join(f"item{i % 997}" if i % 3 else f"note-{i}" for i in range(n))


def test_long_legal_arguments_on_a_small_window_are_stored_in_full_and_shown_trimmed(
    memory: HierarchicalMemory,
) -> None:
    document = words(6_000)
    assert len(document) > 30_000
    file_it = call("archival_memory_insert", content=document, request_heartbeat=True)
    with ScriptedModel([file_it, reply("Filed.")], context_window=4096) as model:
        result = Agent(memory, model).step("file this document")

    assert result.reply == "Filed." and result.notice is None
    (passage,) = memory.archival_search("note-30", k=1).hits
    assert passage.text == document
    (assistant,) = [r for r in rows(memory) if r["tool_calls"]]
    stored_call = json.loads(assistant["tool_calls"])[0]
    assert json.loads(stored_call["function"]["arguments"])["content"] == document

    second = model.calls[1]
    assert prompt_tokens(second) < 4096
    shown_call = next(m for m in second.messages if m.get("tool_calls"))["tool_calls"][0]
    shown = json.loads(shown_call["function"]["arguments"])
    assert shown["request_heartbeat"] is True
    assert shown["content"].startswith(document[:200])
    assert "characters not shown; the full text is stored in recall]" in shown["content"]
    assert len(shown["content"]) < len(document) // 5


def test_a_page_of_long_hits_on_a_small_window_is_stored_whole_and_shown_trimmed(
    memory: HierarchicalMemory,
) -> None:
    # Five hits of 3,000 characters: one tool result larger than a 4,096-token window.
    # The turn that asked for it could only end with ContextOverflowError, advising the
    # user to send a shorter message.
    for i in range(6):
        memory.archival_insert(f"Passage {i} about tea: {words(1_500)}")
    search = call("archival_memory_search", query="tea", request_heartbeat=True)
    with ScriptedModel([search, reply("Found it.")], context_window=4096) as model:
        result = Agent(memory, model).step("what about tea?")

    assert result.reply == "Found it." and result.notice is None
    full = result.tool_results[0].content
    assert len(full) > 15_000
    assert rows(memory)[2]["content"] == full  # recall keeps the result whole
    second = model.calls[1]
    assert prompt_tokens(second) < 4096
    shown = second.messages[-1]["content"]
    assert shown.startswith(full[:100]) and len(shown) < len(full) // 2
    # Every hit of the page is shown, by id and the start of its text: cut from the end,
    # the page showed its first hit or two, and no call reached the others (page 2 starts
    # after them).
    page, whole = json.loads(shown), json.loads(full)
    assert [h["id"] for h in page["results"]] == [h["id"] for h in whole["results"]]
    assert len(page["results"]) == 5 and page["page"] == whole["page"]
    for hit, kept in zip(page["results"], whole["results"], strict=True):
        assert hit["text"].startswith(kept["text"][:40])
        assert hit["text"].endswith("characters not shown; search with words from further "
                                    "on to find the rest]")


def test_a_long_sent_message_is_shown_trimmed_after_a_restart_too(tmp_path: Path) -> None:
    answer = words(7_000)
    home = tmp_path / "agent"
    with HierarchicalMemory(home, embedder=HashingEmbedder()) as memory:
        model = ScriptedModel([call("send_message", message=answer), reply("Yes.")],
                              context_window=4096)
        agent = Agent(memory, model)
        assert agent.step("write it all out").reply == answer
        assert agent.step("done?").reply == "Yes."
        shown = json.loads(json.dumps(agent.context.messages))
        assert prompt_tokens(model.calls[1]) < 4096
    with HierarchicalMemory(home, embedder=HashingEmbedder()) as memory:
        reloaded = Agent(memory, ScriptedModel([], context_window=4096)).context.messages
        assert reloaded == shown
        assert rows(memory)[1]["content"] == answer  # recall keeps the reply whole


def test_short_arguments_are_shown_exactly_as_sent(memory: HierarchicalMemory) -> None:
    note = call("core_memory_append", content="User likes tea", request_heartbeat=True)
    with ScriptedModel([note, reply("ok")], context_window=4096) as model:
        Agent(memory, model).step("I like tea")
    shown = next(m for m in model.calls[1].messages if m.get("tool_calls"))
    assert shown["tool_calls"] == [c.as_dict() for c in note.tool_calls]


def test_text_beside_long_calls_is_trimmed_in_the_window_only(memory: HierarchicalMemory) -> None:
    musing = words(5_000)
    step = Completion(content=musing, tool_calls=call(
        "archival_memory_search", query="tea", request_heartbeat=True).tool_calls)
    with ScriptedModel([step, reply("Nothing found.")], context_window=4096) as model:
        assert Agent(memory, model).step("find tea").reply == "Nothing found."
    assert rows(memory)[1]["content"] == musing
    shown = next(m for m in model.calls[1].messages if m.get("tool_calls"))
    assert shown["content"].endswith("characters not shown; the full text is stored in recall]")


def test_a_summary_written_by_the_model_is_kept_cleaned(memory: HierarchicalMemory) -> None:
    script = [reply("Noted. " + words(400)), reply("Sum\x00mary of \ud800 tea."),
              reply("Yes, tea.")]
    with ScriptedModel(script, context_window=2800) as model:
        agent = Agent(memory, model)  # a scripted model summarises with its own words
        agent.step("I like tea. " + words(300))
        assert agent.step("Do I like tea?").compacted
    assert agent.context.summary == "Summary of \ufffd tea."
    assert "<summary>\nSummary of \ufffd tea.\n</summary>" in model.calls[2].messages[0]["content"]
