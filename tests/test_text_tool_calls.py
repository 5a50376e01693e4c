"""Tool calls written as text: the parser, then the agent over the loopback server."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fake_openai import FakeOpenAIServer, FakeResponse
from rich.console import Console
from test_cli import tiermem

from tiermem.agent.config import LLMConfig, resolve_llm_config
from tiermem.agent.errors import LLMConfigError
from tiermem.agent.loop import Agent
from tiermem.agent.openai_client import OpenAIClient
from tiermem.agent.repl import ChatRepl
from tiermem.agent.text_tool_calls import (
    calls_ending_thinking,
    find_text_tool_calls,
    parse_text_tool_calls,
)
from tiermem.memory import HashingEmbedder, HierarchicalMemory

NAMES = ["core_memory_append", "send_message", "archival_memory_search"]
SCHEMAS = {"core_memory_append": {"type": "object", "properties": {"content": {}},
                                  "required": ["content"]}}
APPEND = {"name": "core_memory_append", "arguments": {"content": "Allergic to peanuts"}}
APPEND_JSON = json.dumps(APPEND)


def calls(content: str, **kwargs: Any) -> list[tuple[str, Any]]:
    found = find_text_tool_calls(content, NAMES, **kwargs).calls
    assert all(c.from_text for c in found)
    return [(c.name, _loaded(c.arguments)) for c in found]


def _loaded(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text  # a cut call's unfinished arguments


FACT = {"content": "Allergic to peanuts"}


@pytest.mark.parametrize("content", [
    f"<tool_call>{APPEND_JSON}</tool_call>",
    f"<tool_call>\n{APPEND_JSON}\n</tool_call>",
    f"<tool_call>{APPEND_JSON}",  # the stop token came before the closing tag
    f"<tool_call>\n```json\n{APPEND_JSON}\n```\n</tool_call>",
    APPEND_JSON,
    f"  {APPEND_JSON}\n",
    json.dumps({"name": "core_memory_append", "arguments": json.dumps(FACT)}),
    json.dumps({"name": "core_memory_append", "parameters": FACT}),
    json.dumps({"type": "function", "function": APPEND}),
    f"```json\n{APPEND_JSON}\n```",
    f"```\n{APPEND_JSON}\n```",
    f"```json\n[{APPEND_JSON}]\n```",
    f"```json\r\n{APPEND_JSON}\r\n```",  # a Windows line end after the label
    f"```\r\n{APPEND_JSON}\r\n```",
    f"<tool_call>\r\n```json\r\n{APPEND_JSON}\r\n```\r\n</tool_call>",
    # JSON with Python's habits in a fence: a trailing comma, single quotes, True/None
    '```json\n{"name": "core_memory_append", "arguments": {"content": "Allergic to peanuts",},}'
    '\n```',
    "```json\n{'name': 'core_memory_append', 'arguments': {'content': 'Allergic to peanuts'}}"
    "\n```",
    "```\n[{'name': 'core_memory_append', 'arguments': {'content': 'Allergic to peanuts'}},]"
    "\n```",
    # llama-cpp-python's chatml-function-calling HTML-escapes what the model echoes.
    "&lt;tool_call&gt;{&#34;name&#34;: &#34;core_memory_append&#34;, &#34;arguments&#34;: "
    "{&#34;content&#34;: &#34;Allergic to peanuts&#34;}}&lt;/tool_call&gt;",
])
def test_each_text_form_is_one_call(content: str) -> None:
    assert calls(content) == [("core_memory_append", FACT)]


def test_several_calls_and_the_text_around_them() -> None:
    reply = json.dumps({"name": "send_message", "arguments": {"message": "Noted."}})
    found = find_text_tool_calls(
        f"I'll remember that.\n<tool_call>{APPEND_JSON}</tool_call>\n<tool_call>{reply}"
        "</tool_call>", NAMES, call_id=lambda i: f"id{i}")
    assert [(c.id, c.name) for c in found.calls] == [("id0", "core_memory_append"),
                                                     ("id1", "send_message")]
    assert found.rest == "I'll remember that."
    assert calls(f"{APPEND_JSON}\n{reply}") == [("core_memory_append", FACT),
                                                 ("send_message", {"message": "Noted."})]
    assert calls(f"[{APPEND_JSON}, {reply}]") == [("core_memory_append", FACT),
                                                  ("send_message", {"message": "Noted."})]
    fenced = find_text_tool_calls(f"Saving it:\n```json\n{APPEND_JSON}\n```\nDone.", NAMES)
    assert len(fenced.calls) == 1 and fenced.rest == "Saving it:\n\nDone."


@pytest.mark.parametrize("content", [
    "I can call core_memory_append to store that if you like.",
    'You could send {"name": "core_memory_append", "arguments": {}} to store it.',
    json.dumps({"name": "Alice", "arguments": {"age": 3}}),  # not an offered tool
    json.dumps({"name": "core_memory_append", "description": "Append a fact.",
                "parameters": {"type": "object", "properties": {"content": {}}}}),
    json.dumps({"name": "core_memory_append", "parameters": {
        "type": "object", "properties": {"content": {"type": "string"}}}}),
    json.dumps({"name": "core_memory_append"}),  # bare, without arguments: data
    json.dumps([APPEND, {"name": "Alice", "arguments": {}}]),  # half calls: data
    "<tool_call>\n\nI'm sorry for any misunderstanding.",  # a prefill echoed, then prose
    '<tool_response>\n{"status": "OK"}\n</tool_response>',
    f"```python\n{APPEND_JSON}\n```",
    "```json\n{'name': 'Alice', 'arguments': {'age': 3}}\n```",  # not an offered tool
    "```json\n{'name': 'core_memory_append', 'arguments': {'content': open('f').read()}}"
    "\n```",  # an expression, not a value: never run
    "```json\n{'name': 'core_memory_append'}\n```",  # without arguments: data
    "",
])
def test_text_that_is_not_a_call(content: str) -> None:
    found = find_text_tool_calls(content, NAMES)
    assert found.calls == [] and found.rest == content
    assert parse_text_tool_calls(content, NAMES) == []


def test_only_offered_names_count() -> None:
    assert parse_text_tool_calls(APPEND_JSON, ["send_message"]) == []
    assert parse_text_tool_calls(APPEND_JSON, []) == []


CUT = '<tool_call>{"name": "core_memory_append", "arguments": {"content": "Allergic to pea'


@pytest.mark.parametrize("content", [
    CUT,
    CUT[len("<tool_call>"):],
    "```json\n" + CUT[len("<tool_call>"):],
])
def test_a_call_cut_at_the_length_limit_is_found_only_when_cut(content: str) -> None:
    # In its tags and not cut, the model ended its call unreadable (text_call_unreadable)
    assert calls(content) == ([] if not content.startswith("<tool_call>") else
                              [("core_memory_append", content[len("<tool_call>"):])])
    [(name, arguments)] = calls(content, cut=True)
    assert name == "core_memory_append" and isinstance(arguments, str)  # not valid JSON
    assert find_text_tool_calls(content, NAMES, cut=True).rest == ""


def test_a_cut_fragment_naming_no_offered_tool_is_text_unless_in_call_markup() -> None:
    bare = '{"name": "weather", "arguments": {"ci'
    assert find_text_tool_calls(bare, NAMES, cut=True).calls == []
    [call] = find_text_tool_calls(f"<tool_call>{bare}", NAMES, cut=True).calls
    assert call.name == "weather" and call.arguments == bare  # cut: never run


@pytest.mark.parametrize("content", [
    json.dumps({"name": "functions.core_memory_append", "arguments": FACT}),
    f"<tool_call>{json.dumps({'name': 'functions.core_memory_append', 'arguments': FACT})}"
    "</tool_call>",
    'Saving it. <function=functions.core_memory_append>{"content": "Allergic to peanuts"}'
    "</function>",
    '[default_api.core_memory_append(content="Allergic to peanuts")]',
])
def test_a_tool_name_in_a_models_namespace_names_the_offered_tool(content: str) -> None:
    assert calls(content) == [("core_memory_append", FACT)]


@pytest.mark.parametrize("content", [
    json.dumps({"name": "functions.delete_everything", "arguments": {}}),
    json.dumps({"name": "tools.core_memory_append", "arguments": FACT}),
    json.dumps({"name": "functions.functions.core_memory_append", "arguments": FACT}),
])
def test_other_namespaced_names_are_no_call(content: str) -> None:
    assert calls(content) == []


def test_an_offered_name_with_a_dot_is_kept_as_it_is() -> None:
    named = ["functions.core_memory_append", "core_memory_append"]
    found = find_text_tool_calls(
        json.dumps({"name": "functions.core_memory_append", "arguments": FACT}), named)
    assert [c.name for c in found.calls] == ["functions.core_memory_append"]


# -- the agent, over the loopback server -------------------------------------------------

@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        yield m


def client(server: FakeOpenAIServer, **kwargs: Any) -> OpenAIClient:
    return OpenAIClient("fake-model", base_url=server.base_url, max_retries=0, **kwargs)


TEXT_FORMS = {
    "tagged": '<tool_call>{"name": "core_memory_append", "arguments": {"content": '
              '"Allergic to peanuts", "request_heartbeat": true}}</tool_call>',
    "bare": '{"name": "core_memory_append", "arguments": {"content": "Allergic to peanuts", '
            '"request_heartbeat": true}}',
    "bare, arguments as text": json.dumps({"name": "core_memory_append", "arguments": json.dumps(
        {"content": "Allergic to peanuts", "request_heartbeat": True})}),
    "bare, parameters": '{"name": "core_memory_append", "parameters": {"content": '
                        '"Allergic to peanuts", "request_heartbeat": true}}',
    "fenced": '```json\n{"name": "core_memory_append", "arguments": {"content": '
              '"Allergic to peanuts", "request_heartbeat": true}}\n```',
    "bare, heartbeat beside the arguments": '{"name": "core_memory_append", "arguments": '
                                            '{"content": "Allergic to peanuts"}, '
                                            '"request_heartbeat": true}',
    "fenced, Python's habits": "```json\n{'name': 'core_memory_append', 'arguments': "
                               "{'content': 'Allergic to peanuts', 'request_heartbeat': True,},}"
                               "\n```",
    "Llama 3.1": '<|python_tag|>{"name": "core_memory_append", "parameters": {"content": '
                 '"Allergic to peanuts", "request_heartbeat": true}}',
    "Llama 3.2": '<function=core_memory_append>{"content": "Allergic to peanuts", '
                 '"request_heartbeat": true}</function>',
    "Mistral": '[TOOL_CALLS] [{"name": "core_memory_append", "arguments": {"content": '
               '"Allergic to peanuts", "request_heartbeat": true}}]',
    "Mistral, name then arguments": '[TOOL_CALLS]core_memory_append[ARGS]{"content": '
                                    '"Allergic to peanuts", "request_heartbeat": true}',
    "Llama 3.2 small, pythonic": '[core_memory_append(content="Allergic to peanuts", '
                                 'request_heartbeat=True)]<|eot_id|>',
    "Gemma tool_code": '```tool_code\nprint(default_api.core_memory_append(content='
                       '"Allergic to peanuts", request_heartbeat=True))\n```',
}


@pytest.mark.parametrize("form", TEXT_FORMS)
def test_a_text_call_is_dispatched_and_never_stored_as_the_reply(
        server: FakeOpenAIServer, memory: HierarchicalMemory, form: str) -> None:
    server.enqueue_reply(TEXT_FORMS[form])
    server.enqueue_reply("I'll remember that.")
    result = Agent(memory, client(server)).step("I'm allergic to peanuts")

    assert [f.text for f in memory.core] == ["Allergic to peanuts"]
    [outcome] = result.tool_results
    assert outcome.ok and outcome.from_text and outcome.name == "core_memory_append"
    assert result.reply == "I'll remember that."
    rows = memory.recall.rows(range(1, len(memory.recall) + 1))
    stored = [r for r in rows if r["role"] == "assistant"]
    assert stored[0]["tool_calls"][0]["function"]["name"] == "core_memory_append"
    assert all('"name"' not in r["content"] for r in rows if r["role"] != "user")
    assert all(mark not in r["content"] for r in rows for mark in ("<", "[TOOL_CALLS]"))
    # The model sees its call as a call, answered by the tool's result.
    second = server.requests[1]["messages"]
    [call] = [m for m in second if m.get("tool_calls")]
    [answer] = [m for m in second if m["role"] == "tool"]
    assert call["tool_calls"][0]["id"] == answer["tool_call_id"] and call["content"] == ""


def test_a_python_list_call_with_positional_values_is_run(
        server: FakeOpenAIServer, memory: HierarchicalMemory) -> None:
    # Llama 3.2 1B/3B: the tool's schema, sent with the request, names the parameter.
    server.enqueue_reply('[core_memory_append("Allergic to peanuts")]<|eot_id|>')
    result = Agent(memory, client(server)).step("I'm allergic to peanuts")
    assert [f.text for f in memory.core] == ["Allergic to peanuts"]
    [outcome] = result.tool_results
    assert outcome.ok and outcome.from_text and outcome.name == "core_memory_append"
    assert "core_memory_append(" not in (result.reply or "")


def test_a_structured_call_in_the_functions_namespace_runs_the_offered_tool(
        server: FakeOpenAIServer, memory: HierarchicalMemory) -> None:
    # Models trained on OpenAI's harmony format (gpt-oss) name it functions.NAME.
    server.enqueue_tool_calls([("functions.core_memory_append",
                                '{"content": "Allergic to peanuts"}')])
    result = Agent(memory, client(server)).step("I'm allergic to peanuts")
    assert [f.text for f in memory.core] == ["Allergic to peanuts"]
    [outcome] = result.tool_results
    assert outcome.ok and outcome.name == "core_memory_append" and not outcome.from_text
    rows = memory.recall.rows(range(1, len(memory.recall) + 1))
    [stored] = [r for r in rows if r["role"] == "assistant" and r["tool_calls"]]
    assert stored["tool_calls"][0]["function"]["name"] == "core_memory_append"


@pytest.mark.parametrize("message", [
    {"role": "assistant", "content": None},
    {"role": "assistant", "content": "", "tool_calls": []},
])
def test_a_reply_marked_as_tool_calls_with_none_says_so(
        server: FakeOpenAIServer, memory: HierarchicalMemory, message: dict[str, Any]) -> None:
    # The server's tool-call parser took the model's output and found no call in it.
    server.enqueue(FakeResponse(message=message, finish_reason="tool_calls"))
    result = Agent(memory, client(server)).step("I'm allergic to peanuts")
    assert result.tool_results == [] and not result.reply
    assert result.notice is not None
    assert "the server said the model called a tool but sent no call" in result.notice


def test_a_reply_marked_as_tool_calls_with_text_is_the_reply(
        server: FakeOpenAIServer, memory: HierarchicalMemory) -> None:
    server.enqueue_reply("Hello!", finish_reason="tool_calls")
    result = Agent(memory, client(server)).step("hi")
    assert result.reply == "Hello!" and result.notice is None


@pytest.mark.parametrize("thinking", [
    # Qwen3: the block in the reply, a draft call inside it.
    "<think>\nMaybe <tool_call>{\"name\": \"core_memory_append\", \"arguments\": "
    "{\"content\": \"User hates peanuts\"}}</tool_call> no.\n</think>\n\n",
    # DeepSeek-R1: its template opened the block in the prompt.
    "The user has an allergy; I should store it.\n</think>\n",
])
def test_a_reasoning_model_s_thinking_is_neither_run_nor_kept(
        server: FakeOpenAIServer, memory: HierarchicalMemory, thinking: str) -> None:
    server.enqueue_reply(thinking + TEXT_FORMS["tagged"])
    server.enqueue_reply("<think>Done; now answer briefly.</think>I'll remember that.")
    result = Agent(memory, client(server)).step("I'm allergic to peanuts")
    assert [f.text for f in memory.core] == ["Allergic to peanuts"]
    assert result.reply == "I'll remember that."
    rows = memory.recall.rows(range(1, len(memory.recall) + 1))
    assert all("think>" not in r["content"] for r in rows)
    # Nor is it sent back to the model.
    assert "think>" not in json.dumps(server.requests[1]["messages"])


TAGGED_PLAIN = '<tool_call>{"name": "core_memory_append", "arguments": {"content": ' \
               '"Allergic to peanuts"}}</tool_call>'


@pytest.mark.parametrize("thinking", [
    f"The user is allergic. I'll save it.\n{TAGGED_PLAIN}",
    f"The user is allergic. I'll save it. {TAGGED_PLAIN}\n",
    f"Save it.\n<tool_call>{APPEND_JSON}",  # nor the call's closing tag
    f"Save it.\n<|tool_call|>[{APPEND_JSON}]<|/tool_call|>",  # Phi-4-mini's
    f"Save it.\n```json\n{APPEND_JSON}\n```",
    'Save it.\n```tool_code\ncore_memory_append(content="Allergic to peanuts")\n```',
    # bare JSON or a Python list only as the whole block, as only as the whole reply
    APPEND_JSON,
    f"\n{APPEND_JSON}\n",
    '[core_memory_append("Allergic to peanuts")]',
    # a draft earlier in the thinking is not run; the call that ends it is
    'Maybe <tool_call>{"name": "send_message", "arguments": {"message": "hi"}}</tool_call>? '
    f"No, save it first.\n{TAGGED_PLAIN}",
])
def test_the_call_an_unclosed_thinking_block_ends_with_is_read(thinking: str) -> None:
    found = calls_ending_thinking(thinking, NAMES, schemas=SCHEMAS)
    assert [(c.name, json.loads(c.arguments)) for c in found.calls] == [
        ("core_memory_append", FACT)]
    assert found.rest == "" and all(c.from_text for c in found.calls)


def test_every_call_an_unclosed_thinking_block_ends_with_is_read() -> None:
    reply = json.dumps({"name": "send_message", "arguments": {"message": "Noted."}})
    found = calls_ending_thinking(f"Two things.\n{TAGGED_PLAIN}\n<tool_call>{reply}</tool_call>",
                                  NAMES)
    assert [c.name for c in found.calls] == ["core_memory_append", "send_message"]


@pytest.mark.parametrize("thinking", [
    f"Maybe {TAGGED_PLAIN} but no, I'll simply answer.",  # more thinking after it
    f"I could write {APPEND_JSON}",  # bare JSON amid the prose
    'I could write [core_memory_append("x")]',
    # Bare JSON or a Python list after thinking, even on lines of its own, cannot be told
    # from an example of the format, as after a reply's prose.
    f"I'd explain the format:\n{APPEND_JSON}",
    f"The call would be:\n\n  {APPEND_JSON}\n",
    'In Python it reads:\n[core_memory_append("Allergic to peanuts")]',
    "The user said hello. I should greet them.",
    "",
])
def test_an_unclosed_thinking_block_not_ending_with_a_call_has_none(thinking: str) -> None:
    assert calls_ending_thinking(thinking, NAMES, schemas=SCHEMAS).calls == []


UNOFFERED = '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>'


def test_markup_for_a_tool_not_offered_after_thinking_is_an_explanation_as_in_a_reply() -> None:
    explained = f"Hermes models write calls like this:\n{UNOFFERED}"
    assert calls(explained) == []  # the reply: prose, then the markup
    assert calls_ending_thinking(explained, NAMES).calls == []
    # Nor does an offered call after it run: the markup is all one explanation.
    assert calls_ending_thinking(f"{explained}\n{TAGGED_PLAIN}", NAMES).calls == []
    # Nothing but the markup is a call, answered as one to a tool there is not.
    assert [c.name for c in calls_ending_thinking(UNOFFERED, NAMES).calls] == ["get_weather"]
    assert [c.name for c in find_text_tool_calls(UNOFFERED, NAMES).calls] == ["get_weather"]


def test_bare_json_ending_an_unclosed_block_writes_no_memory(
        server: FakeOpenAIServer, memory: HierarchicalMemory) -> None:
    server.enqueue_reply("<think>\nThe user asks how tools are called. I'd explain the "
                         f"format:\n{APPEND_JSON}")
    result = Agent(memory, client(server)).step("how do you call a tool?")
    assert result.tool_results == [] and len(memory.core) == 0


def test_an_unclosed_block_that_ended_the_turn_runs_its_last_call(
        server: FakeOpenAIServer, memory: HierarchicalMemory) -> None:
    # The model forgot </think>; the server ended the reply at its end-of-turn token.
    server.enqueue_reply("<think>\nThe user has an allergy; it belongs in core.\n"
                         + TEXT_FORMS["tagged"])
    server.enqueue_reply("I'll remember that.")
    result = Agent(memory, client(server)).step("I'm allergic to peanuts")
    assert [f.text for f in memory.core] == ["Allergic to peanuts"]
    [outcome] = result.tool_results
    assert outcome.ok and outcome.from_text and result.reply == "I'll remember that."
    rows = memory.recall.rows(range(1, len(memory.recall) + 1))
    assert all("belongs in core" not in r["content"] for r in rows)
    assert "belongs in core" not in json.dumps(server.requests[1]["messages"])


@pytest.mark.parametrize(("thinking", "finish"), [
    # cut at max_tokens: it was still thinking, whatever it wrote last
    (f"<think>Maybe this: {TAGGED_PLAIN}", "length"),
    (f"<think>Maybe this: {TAGGED_PLAIN}", "content_filter"),
    # ended inside its thinking, but the call was a draft
    (f"<think>Maybe {TAGGED_PLAIN}, or maybe not. Hello!", "stop"),
    # a closed block: an example in it is never run, whatever ends it
    (f"<think>Like this:\n{TAGGED_PLAIN}</think>", "stop"),
    (f"<think>Like this:\n{TAGGED_PLAIN}\n</think>\nHello!", "stop"),
])
def test_a_call_in_thinking_that_did_not_end_the_turn_is_never_run(
        server: FakeOpenAIServer, memory: HierarchicalMemory, thinking: str,
        finish: str) -> None:
    server.enqueue_reply(thinking, finish_reason=finish)
    result = Agent(memory, client(server)).step("I'm allergic to peanuts")
    assert result.tool_results == [] and len(memory.core) == 0
    assert "Allergic" not in (result.reply or "")


def test_text_tool_calls_off_leaves_an_unclosed_block_unread(
        server: FakeOpenAIServer, memory: HierarchicalMemory) -> None:
    server.enqueue_reply(f"<think>Save it.\n{TAGGED_PLAIN}")
    result = Agent(memory, client(server, text_tool_calls="off")).step("I'm allergic")
    assert result.tool_results == [] and len(memory.core) == 0


@pytest.mark.parametrize("reply", [
    "End the reasoning block with `</think>`, then write the answer.",
    "Qwen3 begins its reasoning with a `<think>` tag; /no_think turns it off.",
    "Models wrap it in `<think>` and `</think>` tags, then answer.",
    "```\n<think>{reasoning}</think>\n{answer}\n```",
])
def test_a_reply_that_mentions_the_tags_is_kept_whole(
        server: FakeOpenAIServer, memory: HierarchicalMemory, reply: str) -> None:
    server.enqueue_reply(reply)
    assert Agent(memory, client(server)).step("how do thinking models format it?").reply == reply


def test_a_reply_cut_while_thinking_is_empty_not_the_thinking(
        server: FakeOpenAIServer, memory: HierarchicalMemory) -> None:
    server.enqueue_reply("<think>Let me consider every option at great length")
    server.enqueue_reply("Noted.")
    result = Agent(memory, client(server)).step("hello")
    assert "consider every option" not in (result.reply or "")
    rows = memory.recall.rows(range(1, len(memory.recall) + 1))
    assert all("consider every option" not in r["content"] for r in rows)


def test_a_prose_mention_is_the_reply(server: FakeOpenAIServer,
                                      memory: HierarchicalMemory) -> None:
    text = "I could use core_memory_append to remember that."
    server.enqueue_reply(text)
    result = Agent(memory, client(server)).step("I'm allergic to peanuts")
    assert result.reply == text and result.tool_results == [] and len(memory.core) == 0


def test_off_leaves_the_text_as_the_reply(server: FakeOpenAIServer,
                                          memory: HierarchicalMemory) -> None:
    server.enqueue_reply(TEXT_FORMS["tagged"])
    result = Agent(memory, client(server, text_tool_calls="off")).step("I'm allergic")
    assert result.reply == TEXT_FORMS["tagged"]
    assert result.tool_results == [] and len(memory.core) == 0


def test_no_tools_offered_means_no_text_calls(server: FakeOpenAIServer) -> None:
    server.enqueue_reply(APPEND_JSON)
    completion = client(server).complete([{"role": "user", "content": "hi"}], [])
    assert completion.tool_calls == [] and completion.content == APPEND_JSON


def test_structured_calls_win_over_text(server: FakeOpenAIServer) -> None:
    server.enqueue_tool_calls([("send_message", '{"message": "hi"}')], content=APPEND_JSON)
    tools = [{"type": "function", "function": {"name": n, "parameters": {}}} for n in NAMES]
    completion = client(server).complete([{"role": "user", "content": "hi"}], tools)
    assert [(c.name, c.from_text) for c in completion.tool_calls] == [("send_message", False)]
    assert completion.content == APPEND_JSON


def test_a_text_call_is_labelled_in_the_chat(server: FakeOpenAIServer,
                                             memory: HierarchicalMemory) -> None:
    server.enqueue_reply(TEXT_FORMS["tagged"])
    server.enqueue_reply("Noted.")
    out = io.StringIO()
    repl = ChatRepl(Agent(memory, client(server)), console=Console(file=out, width=200))
    repl.handle("I'm allergic to peanuts")
    assert "core_memory_append (parsed from text): ok" in out.getvalue()


def test_the_mode_is_configurable() -> None:
    local = {"OPENAI_BASE_URL": "http://127.0.0.1:1/v1", "TIERMEM_MODEL": "m"}
    config = resolve_llm_config(env=local)
    assert config is not None and config.text_tool_calls == "auto"
    config = resolve_llm_config(env={**local, "TIERMEM_TEXT_TOOL_CALLS": "OFF"})
    assert config is not None and config.text_tool_calls == "off"
    config = resolve_llm_config(env={**local, "TIERMEM_TEXT_TOOL_CALLS": "off"},
                                text_tool_calls="auto")
    assert config is not None and config.text_tool_calls == "auto"
    assert OpenAIClient.from_config(LLMConfig("m", text_tool_calls="off")).text_tool_calls == "off"
    with pytest.raises(LLMConfigError, match="TIERMEM_TEXT_TOOL_CALLS"):
        resolve_llm_config(env={**local, "TIERMEM_TEXT_TOOL_CALLS": "maybe"})


def test_the_flag_takes_its_mode_in_any_case_as_the_variable_does() -> None:
    # "--text-tool-calls OFF" was refused (invalid choice), though TIERMEM_TEXT_TOOL_CALLS=OFF
    # is taken.
    from tiermem.agent.cli_parser import build_parser

    chat = ["chat", "--model", "m", "--base-url", "http://127.0.0.1:1/v1"]
    assert build_parser().parse_args([*chat, "--text-tool-calls", "OFF"]).text_tool_calls == "off"
    with pytest.raises(SystemExit):
        build_parser().parse_args([*chat, "--text-tool-calls", "maybe"])


@pytest.mark.parametrize(("flags", "stored"), [([], True), (["--text-tool-calls", "off"], False)])
def test_chat_runs_tool_calls_written_as_text_unless_told_not_to(
        tmp_path: Path, flags: list[str], stored: bool) -> None:
    text_call = ('<tool_call>{"name": "core_memory_append", "arguments": '
                 '{"content": "User likes tea"}}</tool_call>')
    with FakeOpenAIServer() as server:
        server.enqueue_reply(text_call)
        done = tiermem(tmp_path, "chat", "--embedder", "hashing", "--model", "fake-model",
                       "--base-url", server.base_url, "--max-tokens", "99", *flags,
                       stdin="I like tea\n")
        assert done.returncode == 0, done.stderr
        assert server.requests[0]["max_tokens"] == 99
    assert ("core + User likes tea" in done.stdout) is stored
    assert ("core_memory_append (parsed from text): ok" in done.stdout) is stored
    assert ("<tool_call>" in done.stdout) is not stored


@pytest.mark.parametrize(("form", "content"), [
    ("a Python list of calls", '[core_memory_append(content="Allergic to peanuts")]'),
    ("a tool_code block", '```tool_code\ncore_memory_append(content="Allergic to peanuts")\n```'),
])
def test_the_option_s_help_names_each_form_it_runs(tmp_path: Path, form: str,
                                                   content: str) -> None:
    """--text-tool-calls auto runs these forms, so its help, which lists the forms, names
    them (README: Chat)."""
    assert calls(content) == [("core_memory_append", FACT)]
    helped = tiermem(tmp_path, "chat", "--help")
    assert form in " ".join(helped.stdout.split())
