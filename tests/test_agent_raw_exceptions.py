"""Nothing the model or the provider sends raises a raw exception out of a turn or the chat.

Tool arguments that break Python (nesting deeper than its recursion limit,
4,300-digit numbers, lone surrogates) come back to the model as ``Error:`` tool
messages; malformed provider answers become ``ProviderError``; and anything
else that goes wrong in a turn leaves the chat running.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Iterator
from typing import Any, cast

import pytest
from fake_openai import FakeOpenAIServer
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rich.console import Console

from tiermem.agent.errors import ProviderError
from tiermem.agent.llm import Usage
from tiermem.agent.loop import Agent
from tiermem.agent.openai_client import OpenAIClient
from tiermem.agent.repl import ChatRepl
from tiermem.agent.response import MalformedResponseError, parse_completion
from tiermem.agent.scripted import ScriptedModel, call, raw_call, reply
from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.tools.dispatch import MAX_ARGUMENT_NESTING
from tiermem.tools.memory_tools import ToolContext, memory_toolbox


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        yield m


def nested_tags(depth: int) -> str:
    return '{"content": "a note", "tags": ' + "[" * depth + "]" * depth + "}"


# --- dispatch ---------------------------------------------------------------------------


@pytest.mark.parametrize("depth", [5_000, 200_000])
def test_arguments_nested_past_the_recursion_limit_are_an_error_not_a_crash(depth: int) -> None:
    result = memory_toolbox().dispatch("archival_memory_insert", nested_tags(depth))
    assert not result.ok and result.error_kind == "invalid_json"
    assert result.content.startswith("Error: the arguments of archival_memory_insert are nested "
                                     "too deeply to read")
    assert '{"content": "..."}' in result.content  # what to send instead


def test_arguments_nested_past_the_limit_are_refused_before_validation() -> None:
    result = memory_toolbox().dispatch("archival_memory_insert",
                                       nested_tags(MAX_ARGUMENT_NESTING + 5))
    assert result.error_kind == "invalid_arguments"
    assert f"nested more than {MAX_ARGUMENT_NESTING} levels deep (at tags[0]" in result.content


def test_deeply_nested_dict_arguments_do_not_raise() -> None:
    deep: Any = []
    for _ in range(100_000):
        deep = [deep]
    result = memory_toolbox().dispatch("archival_memory_insert", {"content": "x", "tags": deep})
    assert result.error_kind == "invalid_arguments" and result.content.startswith("Error:")


def test_a_number_too_long_to_convert_is_invalid_json() -> None:
    result = memory_toolbox().dispatch("archival_memory_search",
                                       '{"query": "x", "page": ' + "9" * 5_000 + "}")
    assert result.error_kind == "invalid_json"
    assert "not valid JSON" in result.content and "4300 digits" in result.content


def test_anything_unforeseen_in_dispatch_is_a_crashed_error() -> None:
    result = memory_toolbox().dispatch(cast(Any, ["not", "a", "name"]), "{}")
    assert not result.ok and result.error_kind == "crashed"
    assert result.content.startswith("Error: the call to [\"not\", \"a\", \"name\"] could not be "
                                     "processed (TypeError")


# Text with a lone surrogate now and then: json.dumps escapes it, json.loads brings it back.
TEXT = st.one_of(st.text(), st.builds(lambda a, b: f"{a}\ud83d{b}", st.text(max_size=6),
                                      st.text(max_size=6)))
JSON_LEAF = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), TEXT)
JSON_VALUE = st.recursive(JSON_LEAF, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(TEXT, inner, max_size=4)), max_leaves=12)
FIELDS = st.sampled_from(["content", "query", "page", "tags", "message", "old_content",
                          "durability", "request_heartbeat", "start_date", "roles"])


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(name=st.sampled_from([*memory_toolbox().names, "", "x\ud800", "send_message\x00"]),
       arguments=st.one_of(TEXT, JSON_VALUE.map(json.dumps),
                           st.dictionaries(FIELDS, JSON_VALUE, max_size=4).map(json.dumps)))
def test_dispatch_never_raises_and_its_text_is_storable(name: str, arguments: str) -> None:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as memory:
        context = ToolContext(memory=memory, turn=1)
        result = memory_toolbox().dispatch(name, arguments, call_id="c", context=context)
    result.content.encode("utf-8")  # storable: no lone surrogate
    result.name.encode("utf-8")
    assert "\x00" not in result.content
    assert result.ok or result.content.startswith("Error: ")


# --- lone surrogates through the loop -----------------------------------------------------


def test_a_tool_name_with_a_lone_surrogate_is_reported_as_unknown(
    memory: HierarchicalMemory,
) -> None:
    with ScriptedModel([raw_call("core_memory_\ud800append", "{}"), reply("Sorry.")]) as model:
        result = Agent(memory, model).step("remember tea")
    assert result.reply == "Sorry."
    (outcome,) = result.tool_results
    assert outcome.error_kind == "unknown_tool"
    assert outcome.content.startswith(
        "Error: there is no tool named 'core_memory_\ufffdappend'; available tools:")
    stored = [r for r in memory.recall.iter_rows() if r["role"] == "tool"]
    assert [r["tool_name"] for r in stored] == ["core_memory_\ufffdappend"]


def test_a_tag_with_a_lone_surrogate_goes_back_to_the_model(memory: HierarchicalMemory) -> None:
    bad = call("archival_memory_insert", content="Invoices are due monthly", tags=["bil\udc80l"])
    good = call("archival_memory_insert", content="Invoices are due monthly", tags=["billing"],
                request_heartbeat=True)
    with ScriptedModel([bad, good, reply("Filed.")]) as model:
        result = Agent(memory, model).step("file the invoice rule")
    assert result.reply == "Filed."
    first = result.tool_results[0]
    assert first.error_kind == "invalid_arguments"
    assert "'tags[0]' has a lone surrogate" in first.content and "at character 3" in first.content
    assert [h.tags for h in memory.archival_search("invoices", k=5).hits] == [["billing"]]


# --- malformed provider answers, through the loopback server ------------------------------

REPLY = {"role": "assistant", "content": "hi"}
CALL = {"id": "c1", "type": "function", "function": {"name": "send_message",
                                                      "arguments": '{"message": "hi"}'}}


def completion_body(message: Any = REPLY, **fields: Any) -> bytes:
    body: dict[str, Any] = {"id": "x", "object": "chat.completion", "model": "fake-model",
                            "choices": [{"index": 0, "message": message,
                                         "finish_reason": "stop"}]}
    body.update(fields)
    return json.dumps(body).encode()


MALFORMED = {
    "choices as an object": (completion_body(choices={"0": {"message": REPLY}}),
                             "'choices' is an object, not a list"),
    "choices as a string": (completion_body(choices="hi"), "'choices' is a string, not a list"),
    "no choices": (completion_body(choices=[]), "it has no choices"),
    "choice as a list": (completion_body(choices=[[REPLY]]), "choices[0] is a list"),
    "missing message": (completion_body(choices=[{"finish_reason": "stop"}]),
                        "choices[0] has no 'message'"),
    "message as a string": (completion_body("hi"), "choices[0].message is a string"),
    "content as a number": (completion_body({"role": "assistant", "content": 7}),
                            "the message content is a number"),
    "tool_calls as an object": (completion_body({"role": "assistant", "tool_calls": CALL}),
                                "'tool_calls' is an object, not a list"),
    "tool_calls as a number": (completion_body({"role": "assistant", "tool_calls": 3}),
                               "'tool_calls' is a number, not a list"),
    "tool call as a string": (completion_body({"role": "assistant", "tool_calls": ["c1"]}),
                              "tool_calls[0] is a string, not an object"),
    "function as a string": (completion_body({"role": "assistant", "tool_calls": [
        {"id": "c1", "function": "send_message"}]}), "tool_calls[0].function is a string"),
    "name as a number": (completion_body({"role": "assistant", "tool_calls": [
        {"id": "c1", "function": {"name": 5, "arguments": "{}"}}]}),
        "tool_calls[0].function.name is a number, not a string"),
    "body as a list": (b"[1, 2]", "the body is a list, not a JSON object"),
    "body as null": (b"null", "the body is null"),
    "an error object with status 200": (b'{"error": {"message": "model is loading"}}',
                                        "it answered with an error: model is loading"),
    "nested past the recursion limit": (b'{"choices": ' + b"[" * 100_000 + b"]" * 100_000
                                        + b"}", "not a chat completion"),
    "garbage bytes": (b"\xff\xfe\x00garbage", "not a chat completion"),
    "JSON cut short": (completion_body()[:40], "not a chat completion"),
}


@pytest.mark.parametrize("case", MALFORMED)
def test_a_malformed_answer_is_a_provider_error_and_memory_is_unchanged(
    server: FakeOpenAIServer, memory: HierarchicalMemory, case: str,
) -> None:
    body, fragment = MALFORMED[case]
    server.enqueue_raw(200, body)
    agent = Agent(memory, OpenAIClient("fake-model", base_url=server.base_url, max_retries=0))
    with pytest.raises(ProviderError) as info:
        agent.step("hello")
    assert info.value.kind == "bad_response"
    assert fragment in str(info.value) and server.base_url in str(info.value)
    assert [(r["role"], r["status"]) for r in memory.recall.iter_rows()] == [
        ("user", "unanswered")]


@pytest.mark.parametrize(("usage", "counted"), [
    ({"prompt_tokens": "many", "completion_tokens": 4}, Usage(0, 4, 4)),
    ({"prompt_tokens": 7.0, "completion_tokens": None, "total_tokens": -5}, Usage(7, 0, 7)),
    ({"prompt_tokens": True, "completion_tokens": [3]}, Usage(0, 0, 0)),
    ([1, 2], Usage(0, 0, 0)),
    ("lots", Usage(0, 0, 0)),
])
def test_usage_that_is_not_a_count_counts_as_zero(
    server: FakeOpenAIServer, memory: HierarchicalMemory, usage: Any, counted: Usage,
) -> None:
    server.enqueue_raw(200, completion_body(usage=usage))
    result = Agent(memory, OpenAIClient("fake-model", base_url=server.base_url)).step("hello")
    assert result.reply == "hi" and result.usage == counted


def test_documented_variants_still_parse(server: FakeOpenAIServer) -> None:
    parts = {"role": "assistant", "content": [{"type": "text", "text": "Hello "},
                                              {"type": "image_url"},
                                              {"type": "text", "text": "there."}]}
    legacy = {"role": "assistant", "content": None,
              "function_call": {"name": "send_message", "arguments": '{"message": "hi"}'}}
    mixed = {"role": "assistant", "content": None, "tool_calls": [
        {"type": "function", "function": {"name": "archival_memory_search",
                                          "arguments": {"query": "tea"}}},
        {"id": "c2", "type": "custom", "custom": {"name": "send_message", "input": "{}"}}]}
    for message in (parts, legacy, mixed):
        server.enqueue_raw(200, completion_body(message))
    client = OpenAIClient("fake-model", base_url=server.base_url)
    messages = [{"role": "user", "content": "hi"}]
    assert client.complete(messages, []).content == "Hello there."
    [legacy_call] = client.complete(messages, []).tool_calls
    assert (legacy_call.name, legacy_call.arguments) == ("send_message", '{"message": "hi"}')
    made_up, given = client.complete(messages, []).tool_calls
    assert (made_up.name, made_up.arguments) == ("archival_memory_search", '{"query": "tea"}')
    assert (given.id, given.name, given.arguments) == ("c2", "send_message", "{}")
    # Ids made up for calls sent without one: the client's own, then response and index.
    assert re.fullmatch(r"call_[0-9a-f]{12}_2_0", legacy_call.id)
    assert made_up.id == legacy_call.id.removesuffix("_2_0") + "_3_0"


CALL_SHAPE = st.one_of(JSON_VALUE, st.fixed_dictionaries({}, optional={
    "id": JSON_VALUE, "type": JSON_VALUE, "custom": JSON_VALUE,
    "function": st.one_of(JSON_VALUE, st.fixed_dictionaries(
        {}, optional={"name": JSON_VALUE, "arguments": JSON_VALUE}))}))
MESSAGE_SHAPE = st.fixed_dictionaries({}, optional={
    "content": JSON_VALUE, "function_call": JSON_VALUE,
    "tool_calls": st.one_of(JSON_VALUE, st.lists(CALL_SHAPE, max_size=3))})
BODY_SHAPE = st.one_of(JSON_VALUE, st.fixed_dictionaries(
    {"choices": st.one_of(JSON_VALUE, st.lists(st.fixed_dictionaries(
        {"message": st.one_of(MESSAGE_SHAPE, JSON_VALUE)},
        optional={"finish_reason": JSON_VALUE}), max_size=2))},
    optional={"usage": JSON_VALUE, "model": JSON_VALUE, "error": JSON_VALUE}))


@settings(max_examples=500, deadline=None)
@given(BODY_SHAPE)
def test_any_json_body_is_a_completion_or_malformed(body: Any) -> None:
    try:
        completion = parse_completion(body, model="m", call_id=lambda index: f"c{index}")
    except MalformedResponseError:
        return
    assert completion.content is None or isinstance(completion.content, str)
    assert all(isinstance(c.id, str) and c.id and isinstance(c.name, str)
               and isinstance(c.arguments, str) for c in completion.tool_calls)
    usage = completion.usage
    assert min(usage.prompt_tokens, usage.completion_tokens, usage.total_tokens) >= 0


# --- provider chaos: each class ends as a ProviderError or an Error: tool message ---------


def chaos_client(server: FakeOpenAIServer, sleeps: list[float], **kwargs: Any) -> OpenAIClient:
    return OpenAIClient("fake-model", base_url=server.base_url, max_retries=1,
                        sleep=sleeps.append, **kwargs)


@pytest.mark.parametrize(("case", "kind"), [
    ("500", "server"), ("429", "rate_limit"), ("garbage", "bad_response"),
    ("truncated", "connection"), ("hang", "timeout"), ("wrong-typed choices", "bad_response"),
])
def test_provider_chaos_is_a_provider_error(
    server: FakeOpenAIServer, memory: HierarchicalMemory, case: str, kind: str,
) -> None:
    for _ in range(2):  # the first try and the one retry
        if case in ("500", "429"):
            server.enqueue_error(int(case))
        elif case == "garbage":
            server.enqueue_raw(200, b"<html>502 Bad Gateway</html>")
        elif case == "truncated":
            server.enqueue_truncated(completion_body()[:30], declared_length=400)
        elif case == "hang":
            server.enqueue_delay(30.0)
        else:
            server.enqueue_raw(200, completion_body(choices={"first": REPLY}))
    sleeps: list[float] = []
    timeout = {"timeout": 0.3} if case == "hang" else {}
    with pytest.raises(ProviderError) as info:
        Agent(memory, chaos_client(server, sleeps, **timeout)).step("hello")
    assert info.value.kind == kind
    assert len(memory.core) == len(memory.archival) == 0
    assert [r["role"] for r in memory.recall.iter_rows()] == ["user"]


def test_provider_chaos_unknown_tools_are_error_tool_messages(
    server: FakeOpenAIServer, memory: HierarchicalMemory,
) -> None:
    [call_id] = server.enqueue_tool_calls([("rm_rf", '{"path": "/"}')])
    server.enqueue_reply("I cannot do that.")
    result = Agent(memory, OpenAIClient("fake-model", base_url=server.base_url)).step("clean up")
    assert result.reply == "I cannot do that."
    sent = {m.get("tool_call_id"): m["content"] for m in server.requests[1]["messages"]}
    assert sent[call_id].startswith("Error: there is no tool named 'rm_rf'")


# --- the chat survives ------------------------------------------------------------------


def chat(memory: HierarchicalMemory, model: ScriptedModel) -> tuple[ChatRepl, io.StringIO,
                                                                     io.StringIO]:
    out, errors = io.StringIO(), io.StringIO()
    repl = ChatRepl(Agent(memory, model), console=Console(file=out, width=200), errors=errors)
    return repl, out, errors


def test_an_unexpected_exception_in_a_turn_is_one_line_on_stderr_and_the_chat_goes_on(
    memory: HierarchicalMemory,
) -> None:
    model = ScriptedModel([RuntimeError("the GPU melted"), reply("Back again.")])
    repl, out, errors = chat(memory, model)
    assert repl.run_piped(["first", "second"]) == 1  # a failed turn fails the run
    lines = errors.getvalue().splitlines()
    assert lines == ["tiermem: internal error (RuntimeError: the GPU melted); this turn was not "
                     "completed and its memory changes were rolled back. The session goes on; "
                     "please report this."]
    assert "Back again." in out.getvalue()
    statuses = {r["content"]: r["status"] for r in memory.recall.iter_rows()}
    assert statuses["first"] == "unanswered" and statuses["second"] == "ok"


def test_a_failing_command_is_reported_and_the_chat_goes_on(
    memory: HierarchicalMemory, monkeypatch: pytest.MonkeyPatch,
) -> None:
    repl, out, errors = chat(memory, ScriptedModel([reply("Still here.")]))

    def broken() -> dict[str, Any]:
        raise KeyError("fill")

    monkeypatch.setattr(memory, "diagnostics", broken)
    assert repl.run_piped(["/diagnostics", "hello"]) == 1
    assert "KeyError: 'fill'); the command /diagnostics failed" in errors.getvalue()
    assert "Still here." in out.getvalue()


@pytest.mark.parametrize("stop", [KeyboardInterrupt(), SystemExit(3)])
def test_interrupts_and_exits_are_not_swallowed(memory: HierarchicalMemory,
                                                stop: BaseException) -> None:
    repl, _, errors = chat(memory, ScriptedModel([stop]))
    with pytest.raises(type(stop)):
        repl.run_piped(["hello"])
    # Ctrl-C says where the message went; an exit from a tool or plugin stays silent.
    expected = ("tiermem: cancelled; your message is kept in recall as unanswered\n"
                if isinstance(stop, KeyboardInterrupt) else "")
    assert errors.getvalue() == expected
