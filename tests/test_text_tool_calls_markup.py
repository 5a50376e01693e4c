"""Tool calls in the markup of Llama and Mistral models, prose around a call, and calls in
call markup to tools the request did not offer."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from fake_openai import FakeOpenAIServer

from tiermem.agent import text_call_markup
from tiermem.agent.loop import Agent, TurnResult
from tiermem.agent.openai_client import OpenAIClient
from tiermem.agent.text_tool_calls import find_text_tool_calls
from tiermem.memory import HashingEmbedder, HierarchicalMemory

NAMES = ["core_memory_append", "send_message"]
FACT = {"content": "Allergic to peanuts"}
FACT_JSON = json.dumps(FACT)
APPEND_JSON = json.dumps({"name": "core_memory_append", "arguments": FACT})
LLAMA_APPEND = json.dumps({"name": "core_memory_append", "parameters": FACT})
SEND = {"message": "Noted."}
SEND_JSON = json.dumps({"name": "send_message", "arguments": SEND})


def found(content: str, **kwargs: Any) -> tuple[list[tuple[str, Any]], str]:
    result = find_text_tool_calls(content, NAMES, **kwargs)
    assert all(c.from_text for c in result.calls)
    return [(c.name, _loaded(c.arguments)) for c in result.calls], result.rest


def _loaded(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text  # a cut call's unfinished arguments


@pytest.mark.parametrize(("content", "rest"), [
    # Llama 3.1
    (f"<|python_tag|>{LLAMA_APPEND}", ""),
    (f"<|python_tag|>{LLAMA_APPEND}<|eom_id|>", ""),
    (f"I'll note that.\n<|python_tag|>{LLAMA_APPEND}", "I'll note that."),
    # Mistral, the JSON list and the newer name-then-arguments form
    (f"[TOOL_CALLS] [{APPEND_JSON}]", ""),
    (f"[TOOL_CALLS]{APPEND_JSON}</s>", ""),
    (f"[TOOL_CALLS]core_memory_append[ARGS]{FACT_JSON}", ""),
    (f"[TOOL_CALLS]core_memory_append[CALL_ID]a1b2c3d4e[ARGS]{FACT_JSON}", ""),
    (f"Saving it. [TOOL_CALLS]core_memory_append[ARGS]{FACT_JSON}", "Saving it."),
    # Mistral's v11 tokenizer without [ARGS]: the name, then the arguments at once
    (f"[TOOL_CALLS]core_memory_append{FACT_JSON}", ""),
    (f"[TOOL_CALLS] core_memory_append {FACT_JSON}</s>", ""),
    (f"Saving it. [TOOL_CALLS]core_memory_append{FACT_JSON}", "Saving it."),
    # a marker repeated with nothing after it is neither a call nor a reply
    (f"[TOOL_CALLS][{APPEND_JSON}][TOOL_CALLS]", ""),
    (f"[TOOL_CALLS][TOOL_CALLS][{APPEND_JSON}]\n[TOOL_CALLS]</s>", ""),
    (f"<|python_tag|>{LLAMA_APPEND}<|python_tag|>", ""),
    # Llama 3.2
    (f"<function=core_memory_append>{FACT_JSON}</function>", ""),
    (f"<function=core_memory_append>{FACT_JSON}", ""),  # the stop token came first
    (f"Sure.\n<function=core_memory_append>{FACT_JSON}</function>\nDone.", "Sure.\n\nDone."),
    # Phi-4-mini: a list in its tags, its end-of-turn token after them or in place of them
    (f"<|tool_call|>[{APPEND_JSON}]<|/tool_call|><|end|>", ""),
    (f"<|tool_call|>{APPEND_JSON}<|/tool_call|>", ""),
    (f"<|tool_call|>[{APPEND_JSON}]<|end|>", ""),
    (f"Saving it.\n<|tool_call|>[{APPEND_JSON}]<|/tool_call|>", "Saving it."),
])
def test_each_form_is_one_call(content: str, rest: str) -> None:
    assert found(content) == ([("core_memory_append", FACT)], rest)


@pytest.mark.parametrize("content", [
    f"<|python_tag|>{LLAMA_APPEND}; {SEND_JSON}",
    f"[TOOL_CALLS] [{APPEND_JSON}, {SEND_JSON}]",
    f"[TOOL_CALLS]core_memory_append[ARGS]{FACT_JSON}[TOOL_CALLS]send_message[ARGS]"
    f"{json.dumps(SEND)}",
    f"[TOOL_CALLS]core_memory_append{FACT_JSON}[TOOL_CALLS]send_message{json.dumps(SEND)}",
    f"<function=core_memory_append>{FACT_JSON}</function>"
    f"<function=send_message>{json.dumps(SEND)}</function>",
    f"<|tool_call|>[{APPEND_JSON}, {SEND_JSON}]<|/tool_call|><|end|>",
    f"<|tool_call|>[{APPEND_JSON}]<|/tool_call|><|tool_call|>[{SEND_JSON}]<|/tool_call|>",
])
def test_several_calls_in_one_form(content: str) -> None:
    calls, _ = found(content)
    assert calls == [("core_memory_append", FACT), ("send_message", SEND)]


@pytest.mark.parametrize("content", [
    f'<tool_call>{{"name": "memory_store", "arguments": {FACT_JSON}}}</tool_call>',
    f'<|python_tag|>{{"name": "memory_store", "parameters": {FACT_JSON}}}',
    f'[TOOL_CALLS] [{{"name": "memory_store", "arguments": {FACT_JSON}}}]',
    f"[TOOL_CALLS]memory_store[ARGS]{FACT_JSON}",
    f"<function=memory_store>{FACT_JSON}</function>",
    f'<|tool_call|>[{{"name": "memory_store", "arguments": {FACT_JSON}}}]<|/tool_call|>',
])
def test_in_call_markup_a_tool_that_was_not_offered_is_still_a_call(content: str) -> None:
    assert found(content) == ([("memory_store", FACT)], "")


@pytest.mark.parametrize("content", [
    f'Try this: {{"name": "memory_store", "arguments": {FACT_JSON}}}',  # not offered
    'Like so: {"name": "core_memory_append"}',  # without arguments: data
    f"Use {APPEND_JSON} whenever you like.",  # in the middle of a sentence
    "Write `<function=name>{...}</function>` to call a tool.",  # the syntax, described
    "[TOOL_CALLS] are how Mistral marks its calls.",
    "[TOOL_CALLS]name{...} is how newer Mistral models write a call.",
    '<|python_tag|>brave_search.call(query="peanut allergy")',
    '<tool_call>\n\nI could not find that.',
    # Bare JSON after prose: an example cannot be told from a call, and must not write.
    f"Sure! I will remember that. {APPEND_JSON}",
    f"To save a note the model would emit:\n{APPEND_JSON}",
    # Markup for a tool nobody offered, amid prose: an explanation.
    f"Llama 3.2 writes a call as <function=get_weather>{FACT_JSON}</function> - your "
    f"parser must read it.",
    'Example: <tool_call>{"name": "weather", "arguments": {}}</tool_call> is Hermes format.',
    f'Llama 3.1 ends with <|python_tag|>{{"name": "x", "parameters": {FACT_JSON}}}',
    "<|tool_call|> and <|/tool_call|> are how Phi marks its calls.",
    f'Phi writes <|tool_call|>[{{"name": "weather", "arguments": {FACT_JSON}}}]<|/tool_call|>.',
    # Only JSON in Phi's tags: the Python dict is the small Qwen models' habit, not Phi's.
    "<|tool_call|>[{'name': 'core_memory_append', 'arguments': {'content': 'x'}}]"
    "<|/tool_call|>",
])
def test_text_that_is_not_a_call(content: str) -> None:
    assert found(content) == ([], content)


@pytest.mark.parametrize(("content", "rest"), [
    ('<|python_tag|>{"name": "core_memory_append", "parameters": {"content": "Allergic', ""),
    ('<function=core_memory_append>{"content": "Allergic', ""),
    ('<|tool_call|>[{"name": "core_memory_append", "arguments": {"content": "Allergic', ""),
])
def test_a_call_cut_at_the_length_limit_is_found_only_when_cut(content: str, rest: str) -> None:
    assert found(content) == ([], content)
    [(name, arguments)], left = found(content, cut=True)
    assert name == "core_memory_append" and isinstance(arguments, str)  # not valid JSON
    assert left == rest


# -- the agent, over the loopback server -------------------------------------------------

def _told_of_an_allergy(server: FakeOpenAIServer) -> tuple[TurnResult, list[dict[str, Any]]]:
    """One turn over the server's replies: what it did, and recall after it (which must
    hold the fact the replies store in core)."""
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        client = OpenAIClient("fake-model", base_url=server.base_url, max_retries=0)
        result = Agent(memory, client).step("I'm allergic to peanuts")
        rows = memory.recall.rows(range(1, len(memory.recall) + 1))
        assert [f.text for f in memory.core] == ["Allergic to peanuts"]
    return result, rows


def test_a_text_call_to_a_tool_not_offered_is_answered_like_a_structured_one(
        server: FakeOpenAIServer) -> None:
    server.enqueue_reply(f'<tool_call>{{"name": "memory_store", "arguments": {FACT_JSON}}}'
                         f"</tool_call>")
    server.enqueue_reply(f"<tool_call>{APPEND_JSON}</tool_call>")
    result, rows = _told_of_an_allergy(server)
    unknown, stored = result.tool_results
    assert not unknown.ok and unknown.error_kind == "unknown_tool" and unknown.from_text
    assert "there is no tool named 'memory_store'; available tools:" in unknown.content
    assert stored.ok and stored.name == "core_memory_append"
    assert all("<tool_call>" not in r["content"] for r in rows)
    # The model was told, as an answer to its call.
    [told] = [m for m in server.requests[1]["messages"] if m["role"] == "tool"]
    assert told["content"] == unknown.content


@pytest.mark.parametrize(("extra", "arguments"), [
    ({"id": "call_1"}, FACT),
    ({"id": "call_1", "index": 0}, FACT),
    # A heartbeat written beside the arguments is the model's, and joins them.
    ({"request_heartbeat": True}, {**FACT, "request_heartbeat": True}),
    ({"id": "call_1", "request_heartbeat": False}, {**FACT, "request_heartbeat": False}),
    ({"request_heartbeat": "true"}, {**FACT, "request_heartbeat": "true"}),
    ({"request_heartbeat": None}, FACT),  # none given: no argument for the tool to refuse
])
def test_a_key_beside_the_name_and_arguments_in_markup_keeps_the_call(
        extra: dict[str, Any], arguments: dict[str, Any]) -> None:
    call = json.dumps({"name": "core_memory_append", "arguments": FACT, **extra})
    assert found(f"<tool_call>\n{call}\n</tool_call>") == ([("core_memory_append", arguments)],
                                                             "")
    assert found(f"[TOOL_CALLS] [{call}]") == ([("core_memory_append", arguments)], "")
    as_text = json.dumps({"name": "core_memory_append", "arguments": json.dumps(FACT), **extra})
    assert found(f"<tool_call>{as_text}</tool_call>") == ([("core_memory_append", arguments)], "")
    bare = json.dumps({"name": "core_memory_append", "content": "x", **extra})
    assert found(f"<tool_call>{bare}</tool_call>")[0] == []  # no arguments given: not read


def test_a_heartbeat_the_arguments_give_is_the_one_that_counts() -> None:
    own = {**FACT, "request_heartbeat": False}
    call = json.dumps({"name": "core_memory_append", "arguments": own, "request_heartbeat": True})
    assert found(f"<tool_call>{call}</tool_call>") == ([("core_memory_append", own)], "")


def test_an_unknown_key_beside_a_call_outside_markup_makes_it_other_data() -> None:
    call = json.dumps({"name": "core_memory_append", "arguments": FACT, "score": 0.9})
    assert found(call) == ([], call)


@pytest.mark.parametrize(("heartbeat", "arguments"), [
    (True, {**FACT, "request_heartbeat": True}),
    (None, FACT),
])
def test_a_heartbeat_beside_a_call_outside_markup_joins_its_arguments(
        heartbeat: bool | None, arguments: dict[str, Any]) -> None:
    # As a model that learned MemGPT's tools writes it, beside the arguments, not in them
    for key in ("arguments", "parameters"):
        call = json.dumps({"name": "core_memory_append", key: FACT,
                           "request_heartbeat": heartbeat})
        expected = ([("core_memory_append", arguments)], "")
        assert found(call) == expected
        assert found(f"```json\n{call}\n```") == expected
        assert found(f"{call}\n\nSaved.") == (expected[0], "Saved.")
    other = json.dumps({"name": "weather", "arguments": {}, "request_heartbeat": heartbeat})
    assert found(other) == ([], other)  # not an offered tool: data


def test_a_tagged_call_with_a_heartbeat_key_beside_it_runs_and_gets_its_step(
        server: FakeOpenAIServer) -> None:
    call = json.dumps({"name": "core_memory_append", "arguments": FACT,
                       "request_heartbeat": True})
    server.enqueue_reply(f"<tool_call>\n{call}\n</tool_call>")
    server.enqueue_reply("Noted, I will keep that in mind.")
    result, rows = _told_of_an_allergy(server)
    assert [(r.name, r.ok, r.from_text, r.heartbeat) for r in result.tool_results] == [
        ("core_memory_append", True, True, True)]
    assert result.reply == "Noted, I will keep that in mind." and server.pending == 0
    assert all("<tool_call>" not in r["content"] for r in rows)


def test_mistral_s_calls_without_args_markers_run_once_and_leave_no_markup(
        server: FakeOpenAIServer) -> None:
    server.enqueue_reply(f"[TOOL_CALLS]core_memory_append{FACT_JSON}"
                         f"[TOOL_CALLS]send_message{json.dumps(SEND)}</s>")
    result, rows = _told_of_an_allergy(server)
    assert result.reply == "Noted." and result.notice is None
    assert [(r.name, r.ok, r.from_text) for r in result.tool_results] == [
        ("core_memory_append", True, True), ("send_message", True, True)]
    assert all("[TOOL_CALLS]" not in r["content"] for r in rows)


def test_phi_4_mini_s_calls_run_and_leave_no_markup_in_recall(
        server: FakeOpenAIServer) -> None:
    server.enqueue_reply(f"<|tool_call|>[{APPEND_JSON}, {SEND_JSON}]<|/tool_call|><|end|>")
    result, rows = _told_of_an_allergy(server)
    assert result.reply == "Noted." and result.notice is None
    assert all(r.ok and r.from_text for r in result.tool_results)
    assert all("tool_call|>" not in r["content"] and "<|end|>" not in r["content"] for r in rows)


@pytest.mark.parametrize("end", ["<|im_end|>", "<end_of_turn>", "<|endoftext|>", "<|end|>",
                                 "</s>"])
@pytest.mark.parametrize("call", [
    '<tool_call>\n{"name": "core_memory_append", "arguments": {"content": "x"}}\n</tool_call>',
    '{"name": "core_memory_append", "arguments": {"content": "x"}}',
    '```json\n{"name": "core_memory_append", "arguments": {"content": "x"}}\n```',
    '```tool_code\ncore_memory_append(content="x")\n```',
    '[core_memory_append(content="x")]',
    '<|tool_call|>[{"name": "core_memory_append", "arguments": {"content": "x"}}]<|/tool_call|>',
])
def test_an_end_of_turn_token_left_after_a_call_is_neither_call_nor_reply(
        call: str, end: str) -> None:
    found = find_text_tool_calls(f"{call}{end}\n", ["core_memory_append"])
    assert [(c.name, c.arguments) for c in found.calls] == [
        ("core_memory_append", '{"content": "x"}')]
    assert found.rest == ""


def test_an_end_of_turn_token_after_an_html_escaped_call_is_no_reply() -> None:
    # llama-cpp-python's chatml-function-calling escapes the markup; the token is not escaped.
    escaped = ('&lt;tool_call&gt;{&#34;name&#34;: &#34;core_memory_append&#34;, '
               '&#34;arguments&#34;: {&#34;content&#34;: &#34;x&#34;}}&lt;/tool_call&gt;')
    found = find_text_tool_calls(f"{escaped}<|im_end|>", ["core_memory_append"])
    assert [(c.name, c.arguments) for c in found.calls] == [
        ("core_memory_append", '{"content": "x"}')]
    assert found.rest == ""


def test_an_end_of_turn_token_after_a_plain_reply_is_left_alone() -> None:
    found = find_text_tool_calls("Hello!<|im_end|>", ["core_memory_append"])
    assert found.calls == [] and found.rest == "Hello!<|im_end|>"


@pytest.mark.parametrize("content", [
    "<tool_call>{'name': 'core_memory_append', 'arguments': {'content': 'x'}}</tool_call>",
    "<tool_call>\n{'name': 'core_memory_append', 'arguments': {'content': 'x', "
    "'request_heartbeat': True}}\n</tool_call>",
    "Saving.\n<tool_call>[{'name': 'core_memory_append', 'arguments': {'content': 'x'}}]",
    # Python without a single quote in it: whether the fact has an apostrophe must not matter
    '<tool_call>{"name": "core_memory_append", "arguments": {"content": "x", '
    '"request_heartbeat": True}}</tool_call>',
    '<tool_call>{"name": "core_memory_append", "arguments": {"content": "x"},}</tool_call>',
])
def test_a_python_dict_in_call_markup_is_read_as_a_literal(content: str) -> None:
    [call] = find_text_tool_calls(content, ["core_memory_append"]).calls
    assert call.name == "core_memory_append" and json.loads(call.arguments)["content"] == "x"


@pytest.mark.parametrize("content", [
    "<tool_call>{'name': 'core_memory_append', 'arguments': {'content': open('f').read()}}"
    "</tool_call>",
    "<tool_call>{'name': 'core_memory_append', 'arguments': {'content': x}}</tool_call>",
    "{'name': 'core_memory_append', 'arguments': {'content': 'x'}}",  # no markup: data
])
def test_python_that_is_no_literal_call_in_markup_is_no_call(content: str) -> None:
    found = find_text_tool_calls(content, ["core_memory_append"])
    assert found.calls == [] and found.rest == content


@pytest.mark.parametrize(("content", "rest"), [
    (f"```\n<tool_call>\n{APPEND_JSON}\n</tool_call>\n```", ""),
    (f"I will call the tool.\n\n```xml\n<tool_call>\n{APPEND_JSON}\n</tool_call>\n```",
     "I will call the tool."),
    (f"[TOOL_CALLS] ```json\n[{APPEND_JSON}]\n```", ""),
    (f"Saving it.\n<|python_tag|>\n```json\n{LLAMA_APPEND}\n```", "Saving it."),
])
def test_what_wrapped_the_calls_is_no_reply(content: str, rest: str) -> None:
    assert found(content) == ([("core_memory_append", FACT)], rest)


def test_a_fence_written_inline_around_a_call_is_no_reply() -> None:
    assert found(f"```xml<tool_call>{APPEND_JSON}</tool_call>```") == (
        [("core_memory_append", FACT)], "")


@pytest.mark.parametrize("prose", [
    "Run:\n```python\nprint(1)\n```\n\n```bash\nls\n```",
    "An empty block looks like this:\n```\n```",
    "To call a tool, write <tool_call>",
    "Mistral begins with [TOOL_CALLS]",
])
def test_the_model_s_own_fences_and_markers_stay_in_the_reply(prose: str) -> None:
    assert found(f"<tool_call>{APPEND_JSON}</tool_call>\n{prose}") == (
        [("core_memory_append", FACT)], prose)


def test_a_fence_around_a_tagged_call_is_not_shown_as_the_reply(
        server: FakeOpenAIServer) -> None:
    server.enqueue_reply(f"```xml\n<tool_call>\n{APPEND_JSON}\n</tool_call>\n```")
    result, rows = _told_of_an_allergy(server)
    assert [(r.name, r.ok) for r in result.tool_results] == [("core_memory_append", True)]
    assert result.reply is None and "```" not in str(result.notice)
    assert all("```" not in r["content"] for r in rows)


QUOTING = {"content": "Hermes closes a call with </tool_call>."}


@pytest.mark.parametrize(("content", "rest"), [
    (f'<tool_call>{{"name": "core_memory_append", "arguments": {json.dumps(QUOTING)}}}'
     "</tool_call>", ""),
    (f'Saving.\n<tool_call>{{"name": "core_memory_append", "arguments": {json.dumps(QUOTING)}}}'
     f"</tool_call>\n<tool_call>{SEND_JSON}</tool_call>\nDone.", "Saving.\n\n\nDone."),
    # The last closing tag left out (a stop string): the call runs to the end.
    (f'<tool_call>{{"name": "core_memory_append", "arguments": {json.dumps(QUOTING)}}}', ""),
    ("<function=core_memory_append>"
     '{"content": "Llama closes it with </function>."}</function>', ""),
])
def test_a_closing_tag_inside_a_call_s_text_does_not_end_the_call(content: str,
                                                                   rest: str) -> None:
    calls, left = found(content)
    assert calls[0][0] == "core_memory_append" and "</" in calls[0][1]["content"]
    assert [name for name, _ in calls[1:]] == (["send_message"] if "send_message" in content
                                               else [])
    assert left == rest


def test_a_call_quoting_its_closing_tag_runs_once_and_is_no_reply(
        server: FakeOpenAIServer) -> None:
    server.enqueue_reply('<tool_call>{"name": "archival_memory_insert", "arguments": '
                         '{"content": "Hermes ends a call with </tool_call>."}}</tool_call>'
                         f"\n<tool_call>{SEND_JSON}</tool_call>")
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        client = OpenAIClient("fake-model", base_url=server.base_url, max_retries=0)
        result = Agent(memory, client).step("Remember how Hermes ends a call.")
        assert [(r.name, r.ok) for r in result.tool_results] == [
            ("archival_memory_insert", True), ("send_message", True)]
        assert [r["text"] for r in memory.archival.iter_rows()] == [
            "Hermes ends a call with </tool_call>."]
    assert result.reply == "Noted." and len(server.requests) == 1


class _Counted(str):
    """Text that counts the characters its searches for a closing tag pass over."""

    scanned = 0

    def find(self, sub: str, start: Any = None, end: Any = None) -> int:  # type: ignore[override]
        begin = 0 if start is None else start
        found = super().find(sub, start, end)
        _Counted.scanned += (found if found >= 0 else len(self)) - begin
        return found


class _CountedPattern:
    """An opening tag's pattern that counts the characters its searches pass over."""

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.pattern = pattern

    def search(self, text: str, position: int = 0) -> re.Match[str] | None:
        match = self.pattern.search(text, position)
        _Counted.scanned += (match.start() if match else len(text)) - position
        return match


@pytest.mark.parametrize(("form", "pattern", "tag"), [
    (text_call_markup.hermes_calls, "_HERMES_OPEN", "<tool_call>"),
    (text_call_markup.function_tag_calls, "_FUNCTION_OPEN", "<function=send_message>"),
])
def test_many_opening_tags_and_no_closing_one_take_linear_work(
        monkeypatch: pytest.MonkeyPatch, form: Any, pattern: str, tag: str) -> None:
    # 240k characters of such tags once took 3 s: each tag searched to the end for the
    # closing one. The characters searched are counted, which no machine's load changes.
    monkeypatch.setattr(text_call_markup, pattern,
                        _CountedPattern(getattr(text_call_markup, pattern)))
    content = _Counted((tag + "x ") * 4000)
    _Counted.scanned = 0
    result = form(content, frozenset(NAMES), False)
    assert result.calls == [] and result.rest == content
    assert _Counted.scanned <= 4 * len(content)


@pytest.mark.parametrize("content", [
    f"I save a fact with `<tool_call>{APPEND_JSON}</tool_call>`, then answer.",
    f"`<tool_call>{APPEND_JSON}</tool_call>` is how I save a fact.",
    "Qwen3-Coder writes `<function=core_memory_append><parameter=content>x</parameter>"
    "</function>` instead.",
    f"Phi writes `<|tool_call|>[{APPEND_JSON}]<|/tool_call|>`.",
    f"I save a fact with ``<tool_call>{APPEND_JSON}</tool_call>``, then answer.",
])
def test_markup_quoted_as_inline_code_in_a_sentence_is_an_example(content: str) -> None:
    assert found(content) == ([], content)


@pytest.mark.parametrize(("content", "rest"), [
    (f"`<tool_call>{APPEND_JSON}</tool_call>`", ""),  # alone, it is the call
    (f"``<tool_call>{APPEND_JSON}</tool_call>``", ""),
    (f"```<tool_call>{APPEND_JSON}</tool_call>```", ""),  # a fence's backticks
    (f"Saving that: `<tool_call>{APPEND_JSON}</tool_call>", "Saving that: `"),  # no span
])
def test_markup_that_is_no_inline_code_in_a_sentence_is_a_call(content: str, rest: str) -> None:
    assert found(content) == ([("core_memory_append", FACT)], rest)


def test_an_example_of_a_call_in_inline_code_is_the_reply_and_stores_nothing(
        server: FakeOpenAIServer) -> None:
    example = ('I keep facts with `<tool_call>{"name": "core_memory_append", "arguments": '
               '{"content": "..."}}</tool_call>`, and find them again by searching.')
    server.enqueue_reply(example)
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        client = OpenAIClient("fake-model", base_url=server.base_url, max_retries=0)
        result = Agent(memory, client).step("How do you remember things?")
        assert list(memory.core) == []
    assert result.reply == example and result.tool_results == []


@pytest.mark.parametrize("content", [
    f"`<tool_call>{APPEND_JSON}</tool_call>` `<tool_call>{SEND_JSON}</tool_call>`",
    f"`<tool_call>{APPEND_JSON}</tool_call>`\n`<tool_call>{SEND_JSON}</tool_call>`\n",
    f"`<tool_call>{APPEND_JSON}</tool_call>`\n<tool_call>{SEND_JSON}</tool_call>",
])
def test_calls_each_quoted_as_inline_code_and_nothing_else_are_calls(content: str) -> None:
    assert found(content) == ([("core_memory_append", FACT), ("send_message", SEND)], "")


def test_quoted_calls_beside_a_sentence_stay_examples() -> None:
    content = (f"`<tool_call>{APPEND_JSON}</tool_call>` and `<tool_call>{SEND_JSON}</tool_call>`"
               " are the two forms.")
    assert found(content) == ([], content)
