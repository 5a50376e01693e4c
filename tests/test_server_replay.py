"""The agent against answers recorded from real local servers, replayed by the loopback server.

The recordings (tests/data/servers, see its README) are what llama-cpp-python
0.3.36 with ``--chat_format chatml-function-calling`` and llama.cpp's
``llama-server --jinja`` answered SmolLM2-135M-Instruct requests with. Each
test first checks what the recording shows the server did, then replays it
and checks what tiermem makes of it.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fake_openai import FakeOpenAIServer
from server_recordings import DATA, Recording, has_null_content, recording

from tiermem.agent.errors import ProviderError
from tiermem.agent.loop import Agent
from tiermem.agent.openai_client import OpenAIClient
from tiermem.bench import record_server
from tiermem.memory import HashingEmbedder, HierarchicalMemory

LCP = "llama-cpp-python"
LS = "llama-server"
QWEN = "llama-server-qwen25-template"


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        yield m


def client(server: FakeOpenAIServer, **kwargs: Any) -> OpenAIClient:
    kwargs.setdefault("max_retries", 0)
    return OpenAIClient("fake-model", base_url=server.base_url, sleep=lambda _: None, **kwargs)


def answer_by(choose: Any) -> Any:
    return lambda body: choose(body).response


def recall_rows(memory: HierarchicalMemory) -> list[dict[str, Any]]:
    return memory.recall.rows(range(1, len(memory.recall) + 1))


def test_llama_cpp_python_reads_the_tools_only_when_tool_choice_is_sent(
        server: FakeOpenAIServer) -> None:
    baseline = recording(LCP, "03_allergy_no_tools_baseline")
    dropped = recording(LCP, "03_tools_no_tool_choice")
    auto = recording(LCP, "04_tools_choice_auto")
    # Recorded: with tools and no tool_choice the prompt was as long as with no tools.
    assert dropped.request["tools"] and "tool_choice" not in dropped.request
    assert dropped.prompt_tokens == baseline.prompt_tokens == 34
    assert auto.request["tool_choice"] == "auto" and auto.prompt_tokens == 293

    server.responder = answer_by(lambda body: auto if body.get("tool_choice") else dropped)
    completion = client(server).complete(dropped.request["messages"], dropped.request["tools"])
    assert completion.usage.prompt_tokens == auto.prompt_tokens


def test_llama_cpp_python_never_sees_null_content_even_after_a_reload(
        server: FakeOpenAIServer, memory: HierarchicalMemory) -> None:
    null = recording(LCP, "05_second_step_content_null")
    empty = recording(LCP, "05_second_step_content_empty")
    assert (null.status, has_null_content(null.request)) == (500, True)
    assert (empty.status, has_null_content(empty.request)) == (200, False)
    named = recording(LCP, "04_tools_choice_named")  # a tool call beside content: null
    assert named.message["content"] is None and named.message["tool_calls"]

    server.enqueue(named.response)
    Agent(memory, client(server)).step("Remember that I am allergic to peanuts.")
    assert [f.text for f in memory.core] == ["The fact to remember."]
    server.responder = answer_by(lambda body: null if has_null_content(body) else empty)
    result = Agent(memory, client(server)).step("What do you know about me?")  # reloaded
    assert len(server.requests) == 2 and result.reply


def test_llama_cpp_python_validation_500_is_sent_once(server: FakeOpenAIServer) -> None:
    null = recording(LCP, "05_second_step_content_null")
    server.enqueue(null.response)
    with pytest.raises(ProviderError) as info:
        client(server, max_retries=3).complete(null.request["messages"], null.request["tools"])
    assert len(server.requests) == 1
    assert (info.value.kind, info.value.retryable) == ("bad_request", False)
    assert "the server refused the request: 7 validation errors" in str(info.value)


@pytest.mark.parametrize("server_name", [LCP, LS])
def test_a_recorded_context_overflow_is_sent_once_and_names_the_window(
        server: FakeOpenAIServer, server_name: str) -> None:
    overflow = recording(server_name, "07_context_exceeded")
    assert overflow.status == 400
    server.enqueue(overflow.response)
    with pytest.raises(ProviderError) as info:
        client(server, max_retries=3).complete([{"role": "user", "content": "hi"}], [])
    assert len(server.requests) == 1 and info.value.kind == "context_exceeded"
    assert ("if --context-window or TIERMEM_CONTEXT_WINDOW is larger, set it to the window it "
            "runs with (4096)") in str(info.value)


@pytest.mark.parametrize(("server_name", "name"), [
    (LCP, "04_tools_choice_required"),  # an AssertionError in the handler, empty message
    (QWEN, "04_tools_prefill_auto"),  # "output that does not match the expected format"
])
def test_a_recorded_plain_500_is_retried(server: FakeOpenAIServer, server_name: str,
                                         name: str) -> None:
    failure = recording(server_name, name)
    assert failure.status == 500
    server.enqueue(failure.response)
    server.enqueue_reply("recovered")
    completion = client(server, max_retries=1).complete([{"role": "user", "content": "hi"}], [])
    assert completion.content == "recovered" and len(server.requests) == 2


def test_a_text_tool_call_from_llama_server_is_run(server: FakeOpenAIServer,
                                                    memory: HierarchicalMemory) -> None:
    # The tool-less template ignores the tools even with tool_choice, so calls come as text.
    assert (recording(LS, "04_tools_choice_auto").prompt_tokens
            == recording(LS, "03_allergy_no_tools_baseline").prompt_tokens)
    text_call = recording(LS, "08_text_tool_call_prompted")
    assert text_call.message["content"].startswith("<tool_call>{")
    assert "tool_calls" not in text_call.message
    server.enqueue(text_call.response)  # it asks for a heartbeat: one more step follows
    server.enqueue(recording(LS, "02_chat_plain").response)

    result = Agent(memory, client(server)).step("Remember that my name is Alice.")
    assert [f.text for f in memory.core] == ["The user's name is Alice."]
    assert [(r.name, r.ok, r.from_text) for r in result.tool_results] == [
        ("core_memory_append", True, True)]
    assert result.reply == "The capital of France is Paris."
    assert not any("<tool_call>" in r["content"] for r in recall_rows(memory))


def test_an_escaped_text_call_cut_at_max_tokens_is_not_run_and_the_model_is_told(
        server: FakeOpenAIServer, memory: HierarchicalMemory) -> None:
    cut = recording(LCP, "08_text_tool_call_prompted")
    assert cut.body["choices"][0]["finish_reason"] == "length"
    assert cut.message["content"].startswith("&lt;tool_call&gt;{&#34;name&#34;")
    server.enqueue(cut.response)
    server.enqueue(recording(LS, "02_chat_plain").response)
    result = Agent(memory, client(server)).step("Remember that I am allergic to peanuts.")
    assert [(r.name, r.ok) for r in result.tool_results] == [("core_memory_append", False)]
    assert "was cut off at the reply's token limit" in result.tool_results[0].content
    assert result.reply == "The capital of France is Paris." and len(memory.core) == 0
    assert not any("tool_call&gt;" in r["content"] for r in recall_rows(memory))
    assert result.notice is not None and "call to core_memory_append" in result.notice


def test_the_complete_calls_of_a_cut_reply_run_and_the_cut_one_does_not(
        server: FakeOpenAIServer, memory: HierarchicalMemory) -> None:
    cut = recording(QWEN, "04_tools_prefill_required")
    calls = cut.message["tool_calls"]
    assert cut.body["choices"][0]["finish_reason"] == "length" and len(calls) == 3
    assert calls[2]["function"]["arguments"] == '{\n    "'
    server.enqueue(cut.response)
    server.enqueue(recording(LS, "02_chat_plain").response)

    result = Agent(memory, client(server)).step("Remember that I am allergic to peanuts.")
    assert [(r.name, r.ok) for r in result.tool_results] == [
        ("core_memory_append", True), ("send_message", True), ("core_memory_append", False)]
    assert "was cut off at the reply's token limit" in result.tool_results[2].content
    assert [f.text for f in memory.core] == ["The fact to remember."]
    stored = [c["id"] for r in recall_rows(memory) for c in r["tool_calls"] or []]
    assert stored == [call["id"] for call in calls]
    assert result.notice is not None
    assert "call to core_memory_append, which was not run" in result.notice


def test_an_echoed_tool_call_tag_followed_by_prose_is_a_cut_reply(
        server: FakeOpenAIServer, memory: HierarchicalMemory) -> None:
    echoed: Recording = recording(LS, "04_tools_prefill_auto")
    content = echoed.message["content"]
    assert content.startswith("<tool_call>\n\nI'm sorry")
    server.enqueue(echoed.response)
    result = Agent(memory, client(server, max_tokens=64)).step("Remember my allergy.")
    assert result.tool_results == []
    assert result.reply == content.strip() + " [cut off at max_tokens=64]"


def test_the_fixtures_can_be_recorded_again_from_a_running_server(
        server: FakeOpenAIServer, tmp_path: Path) -> None:
    sources = tmp_path / "requests"
    sources.mkdir()
    for name in ("02_chat_plain", "01_props"):
        shutil.copy(DATA / LS / f"{name}.json", sources)
    server.enqueue_reply("Paris.")
    out = tmp_path / "again"
    assert record_server.main(["--base-url", server.base_url.removesuffix("/v1"), "--server",
                               "fake", "--requests", str(sources), "--out", str(out)]) == 0
    chat = json.loads((out / "02_chat_plain.json").read_text())
    assert chat["request"]["body"]["model"] == server.model
    assert chat["request"]["body"]["messages"] == recording(LS, "02_chat_plain").request[
        "messages"]
    assert chat["response"]["status"] == 200
    assert chat["response"]["body"]["choices"][0]["message"]["content"] == "Paris."
    props = json.loads((out / "01_props.json").read_text())
    assert props["response"]["status"] == 404  # the fake server has no /props
    assert record_server.main(["--base-url", "http://192.0.2.1:8080", "--server", "x",
                               "--out", str(out)]) == 2
