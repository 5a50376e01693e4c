"""A server still loading its model: the chat says it waits, Ctrl-C cancels the wait, and a
server that stays loading has later requests refused at once, not waited a minute each."""

from __future__ import annotations

import io
import signal
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fake_openai import FakeOpenAIServer

from tiermem.agent.errors import ProviderError
from tiermem.agent.loading_wait import waiting_text
from tiermem.agent.loop import Agent
from tiermem.agent.openai_client import OpenAIClient
from tiermem.memory import HashingEmbedder, HierarchicalMemory

LOADING = {"error": {"message": "Loading model", "code": 503, "type": "unavailable_error"}}


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        yield m


def loading(server: FakeOpenAIServer, times: int) -> None:
    for _ in range(times):
        server.enqueue_error(503, LOADING)


def statuses(memory: HierarchicalMemory) -> dict[str, str]:
    return {r["content"]: r["status"] for r in memory.recall.iter_rows() if r["role"] == "user"}


def test_each_wait_for_a_loading_model_is_told_as_it_starts(
        server: FakeOpenAIServer, memory: HierarchicalMemory) -> None:
    told: list[str] = []
    sleeps: list[float] = []
    llm = OpenAIClient("qwen3:4b", base_url=server.base_url, max_retries=3,
                       sleep=lambda s: sleeps.append(s) or told.append("slept"),
                       wait_notice=told.append)
    loading(server, 2)
    server.enqueue_reply("Noted.")
    assert Agent(memory, llm).step("I like green tea").reply == "Noted."
    assert told == [waiting_text(10.0), "slept", waiting_text(20.0), "slept"]


def test_a_server_that_stays_loading_has_the_next_turn_refused_at_once(
        server: FakeOpenAIServer, memory: HierarchicalMemory) -> None:
    sleeps: list[float] = []
    llm = OpenAIClient("qwen3:4b", base_url=server.base_url, max_retries=3,
                       sleep=sleeps.append)
    agent = Agent(memory, llm)
    loading(server, 5)
    for said in ("first", "second"):
        with pytest.raises(ProviderError):
            agent.step(said)
    assert len(server.requests) == 5 and sleeps == [10.0, 20.0, 30.0]
    # Once it answers, a later loading of its model is waited for again.
    server.enqueue_reply("Noted.")
    loading(server, 1)
    server.enqueue_reply("Noted again.")
    assert agent.step("third").reply == "Noted."
    assert agent.step("fourth").reply == "Noted again."
    assert sleeps[3:] == [10.0]


SPENT = "the 60 s of waits a loading model is given were spent on earlier requests"


def two_requests_refused(
        server: FakeOpenAIServer) -> tuple[list[float], list[str], list[str]]:
    """The waits a client sleeps and tells over two requests each refused four times, and
    the errors the requests end with."""
    told: list[str] = []
    sleeps: list[float] = []
    errors: list[str] = []
    llm = OpenAIClient("qwen3:4b", base_url=server.base_url, max_retries=3,
                       sleep=sleeps.append, wait_notice=told.append)
    for _ in range(2):
        with pytest.raises(ProviderError) as info:
            llm.complete([{"role": "user", "content": "hi"}], [])
        errors.append(str(info.value))
    return sleeps, told, errors


def test_a_request_after_the_spent_minute_is_refused_at_once_and_waits_nothing(
        server: FakeOpenAIServer) -> None:
    loading(server, 5)
    sleeps, told, errors = two_requests_refused(server)
    assert sleeps == [10.0, 20.0, 30.0] and len(server.requests) == 5
    assert told == [waiting_text(10.0), waiting_text(20.0), waiting_text(30.0)]
    assert "(HTTP 503, 1 attempt)" in errors[1]
    # The second request's error says why it waited so little.
    assert SPENT not in errors[0] and SPENT in errors[1]


@pytest.mark.parametrize(("asked", "first"), [
    # Cut to what is left of the minute; once it is spent, a later request is refused at
    # once, whatever the server asks.
    ("25", [25.0, 25.0, 10.0]),
    # Capped as for any 503; the first request's third attempt finds the minute spent and
    # gets the short backoff (None here).
    ("600", [30.0, 30.0, None]),
])
def test_a_long_retry_after_is_cut_to_what_is_left_of_the_minute_then_not_waited(
        server: FakeOpenAIServer, asked: str, first: list[float | None]) -> None:
    for _ in range(5):
        server.enqueue_error(503, LOADING, headers={"Retry-After": asked})
    sleeps, told, errors = two_requests_refused(server)
    assert [None if s <= 2.0 else s for s in sleeps] == first
    assert len(server.requests) == 5 and "(HTTP 503, 1 attempt)" in errors[1]
    assert told == [waiting_text(s) for s in sleeps if s > 2.0]
    assert SPENT not in errors[0] and SPENT in errors[1]


def test_ctrl_c_during_the_wait_cancels_the_turn_and_sends_nothing_more(
        server: FakeOpenAIServer, memory: HierarchicalMemory) -> None:
    from rich.console import Console

    from tiermem.agent.repl import CANCELLED, ChatRepl

    def pressed(seconds: float) -> None:
        signal.raise_signal(signal.SIGINT)

    llm = OpenAIClient("qwen3:4b", base_url=server.base_url, max_retries=3, sleep=pressed)
    loading(server, 4)
    out = io.StringIO()
    repl = ChatRepl(Agent(memory, llm), console=Console(file=out, width=200),
                    errors=io.StringIO())
    repl.interactive = True
    assert repl.handle("I like green tea") is True
    assert repl.cancelled and CANCELLED in out.getvalue()
    assert len(server.requests) == 1
    assert statuses(memory) == {"I like green tea": "unanswered"}


@pytest.fixture
def no_sleeping(monkeypatch: pytest.MonkeyPatch) -> None:
    """Clients the command line builds wait no time."""
    real = OpenAIClient.from_config.__func__  # type: ignore[attr-defined]

    def without_sleeping(cls: Any, config: Any, **kwargs: Any) -> OpenAIClient:
        return real(cls, config, sleep=lambda seconds: None, **kwargs)

    monkeypatch.setattr(OpenAIClient, "from_config", classmethod(without_sleeping))


def test_the_chat_says_it_waits_for_the_loading_model_and_how_to_stop(
        server: FakeOpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str], no_sleeping: None) -> None:
    from tiermem.cli import main

    monkeypatch.setenv("TIERMEM_HOME", str(tmp_path))
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"I like green tea\n")))
    loading(server, 1)
    server.enqueue_reply("Noted.")
    assert main(["chat", "--embedder", "hashing", "--model", "qwen3:4b", "--base-url",
                 server.base_url, "--context-window", "8192"]) == 0
    captured = capsys.readouterr()
    assert "Noted." in captured.out
    # Piped, Ctrl-C ends the run (exit 130) once the turn is rolled back: the notice says so.
    assert (f"tiermem: {waiting_text(10.0)}; Ctrl-C cancels the turn and ends the run"
            in captured.err.splitlines())


def test_tiermem_forget_says_it_waits_for_the_loading_model_of_its_judge(
        server: FakeOpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str], no_sleeping: None) -> None:
    from tiermem.cli import main

    monkeypatch.setenv("TIERMEM_HOME", str(tmp_path))
    with HierarchicalMemory(tmp_path / "agents" / "ada", embedder=HashingEmbedder()) as m:
        m.add_fact("User's locker code is 4412", "durable")
    loading(server, 2)
    main(["forget", "--agent", "ada", "--embedder", "hashing", "--mode", "top_k_llm",
          "--model", "qwen3:4b", "--base-url", server.base_url, "--context-window", "8192",
          "my locker code"])
    told = capsys.readouterr().err.splitlines()
    assert [line for line in told if "still loading" in line][:2] == [
        f"tiermem: {waiting_text(10.0)}", f"tiermem: {waiting_text(20.0)}"]


def waited_out(server: FakeOpenAIServer,
               memory: HierarchicalMemory) -> tuple[Agent, list[float]]:
    """An agent whose first turn spent its minute of waits on a server that stayed loading,
    and the client's waits since."""
    sleeps: list[float] = []
    agent = Agent(memory, OpenAIClient("qwen3:4b", base_url=server.base_url, max_retries=3,
                                       sleep=sleeps.append))
    loading(server, 4)
    with pytest.raises(ProviderError):
        agent.step("first")
    assert sleeps == [10.0, 20.0, 30.0]
    del sleeps[:]
    return agent, sleeps


@pytest.mark.parametrize(("status", "sent"), [(400, 1), (500, 4)])
def test_a_refusal_from_the_loaded_server_gives_a_later_loading_its_waits_afresh(
        server: FakeOpenAIServer, memory: HierarchicalMemory, status: int, sent: int) -> None:
    agent, sleeps = waited_out(server, memory)
    # Loaded, it refuses the next turn (a 500 is sent again); then it loads its model again.
    for _ in range(sent):
        server.enqueue_error(status, {"error": {"message": "something went wrong"}})
    with pytest.raises(ProviderError):
        agent.step("second")
    assert len(server.requests) == 4 + sent
    del sleeps[:]
    loading(server, 1)
    server.enqueue_reply("Noted.")
    assert agent.step("third").reply == "Noted."
    assert sleeps == [10.0]


@pytest.mark.parametrize(("status", "said"), [
    (502, "Bad Gateway"),
    # Cloudflare's own: the server behind it gave no answer, or could not be reached.
    (520, "Web server is returning an unknown error"), (521, "Web server is down"),
    (522, "Connection timed out"), (523, "Origin is unreachable")])
def test_a_gateway_s_502_is_no_answer_from_the_server_behind_it(
        server: FakeOpenAIServer, memory: HierarchicalMemory, status: int, said: str) -> None:
    agent, sleeps = waited_out(server, memory)
    server.enqueue_error(status, {"error": {"message": said}})
    loading(server, 1)
    with pytest.raises(ProviderError) as info:
        agent.step("second")
    # The 502 is sent again after the short backoff; the loading that follows, its minute
    # still spent, is refused at once.
    assert len(server.requests) == 6 and len(sleeps) == 1 and max(sleeps) <= 2.0
    assert SPENT in str(info.value)


def test_a_model_judged_forget_in_the_chat_says_ctrl_c_stops_it_not_the_turn(
        server: FakeOpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str], no_sleeping: None) -> None:
    from tiermem.cli import main

    monkeypatch.setenv("TIERMEM_HOME", str(tmp_path))
    home = tmp_path / "agents" / "default"
    with HierarchicalMemory(home, embedder=HashingEmbedder()) as m:
        m.add_fact("User's locker code is 4412", "durable")
    (home / "policy.yaml").write_text("forget:\n  mode: top_k_llm\n")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(
        b"/forget my locker code\nI like green tea\n")))
    loading(server, 1)
    server.enqueue_reply("[]")
    loading(server, 1)
    server.enqueue_reply("Noted.")
    main(["chat", "--embedder", "hashing", "--model", "qwen3:4b", "--base-url",
          server.base_url, "--context-window", "8192"])
    told = [line for line in capsys.readouterr().err.splitlines() if "still loading" in line]
    assert told == [f"tiermem: {waiting_text(10.0)}; Ctrl-C stops /forget and ends the run",
                    f"tiermem: {waiting_text(10.0)}; Ctrl-C cancels the turn and ends the run"]


@pytest.mark.parametrize(("running", "piped", "said"), [
    (None, False, "Ctrl-C cancels the turn"),
    ("/forget", False, "Ctrl-C stops /forget"),
    (None, True, "Ctrl-C cancels the turn and ends the run"),
    ("/forget", True, "Ctrl-C stops /forget and ends the run"),
])
def test_the_wait_notice_says_what_ctrl_c_does_at_the_prompt_and_piped(
        running: str | None, piped: bool, said: str) -> None:
    from tiermem.agent.chat_command import wait_cancel

    assert wait_cancel(running, piped) == said
