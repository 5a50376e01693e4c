"""SIGTERM and SIGHUP during a chat: the turn under way is cancelled as Ctrl-C cancels it,
then the chat ends with status 143 or 129 (agent/interrupts.py ``Terminated``).

The signals are real (``signal.raise_signal``), sent from inside the step being
tested, so where each lands is fixed by the test, not by timing. That the
prompt gives the terminal back is tested in a real terminal (test_chat_pty.py).
"""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from network_guard import guarded_env
from prompt_toolkit import PromptSession
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from rich.console import Console

from tiermem.agent.chat_reports import piped_stop_note
from tiermem.agent.interrupts import Terminated
from tiermem.agent.llm import Completion
from tiermem.agent.loop import Agent
from tiermem.agent.repl import TERMINATED_AT_COMMIT, TURN_CANCELLED, ChatRepl
from tiermem.agent.scripted import ScriptedModel, reply
from tiermem.memory import HashingEmbedder, HierarchicalMemory


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        yield m


@pytest.fixture(autouse=True)
def default_signals() -> Iterator[None]:
    """SIGTERM and SIGHUP left to their default action, as a chat starts with them (the
    test session stops cleanly on SIGTERM: tests/conftest.py)."""
    previous = {s: signal.signal(s, signal.SIG_DFL) for s in (signal.SIGTERM, signal.SIGHUP)}
    yield
    for signum, handler in previous.items():
        signal.signal(signum, handler)


def statuses(memory: HierarchicalMemory) -> dict[str, str]:
    return {r["content"]: r["status"] for r in memory.recall.iter_rows() if r["role"] == "user"}


def kept_by_ada(tmp_path: Path) -> dict[str, str]:
    """The status of each message of agent ada's memory, kept under ``tmp_path``."""
    with HierarchicalMemory(tmp_path / "home" / "agents" / "ada", embedder=HashingEmbedder(),
                            read_only=True) as kept:
        return statuses(kept)


def send(signum: int) -> None:
    """``signum`` to this process, unless the chat left it to its default action, which
    would end the test run, not the chat."""
    assert signal.getsignal(signum) is not signal.SIG_DFL, "the chat does not handle it"
    signal.raise_signal(signum)


def killed(signum: int) -> Any:
    """A model step that receives ``signum`` while the model is thinking."""
    def step(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Completion:
        send(signum)
        return reply("never shown")
    return step


def chat(memory: HierarchicalMemory, *steps: Any, json_lines: bool = False
         ) -> tuple[ChatRepl, io.StringIO, io.StringIO]:
    out, errors = io.StringIO(), io.StringIO()
    repl = ChatRepl(Agent(memory, ScriptedModel([*steps])), console=Console(file=out),
                    errors=errors, json_lines=json_lines)
    return repl, out, errors


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_a_signal_mid_turn_cancels_the_turn_and_ends_a_piped_run(
        memory: HierarchicalMemory, signum: int) -> None:
    repl, out, errors = chat(memory, reply("Noted."), killed(signum), reply("never asked"),
                             json_lines=True)
    with pytest.raises(Terminated) as ended:
        repl.run_piped(["I like tea", "I like coffee", "never read"])
    assert ended.value.code == 128 + signum
    assert statuses(memory) == {"I like tea": "ok", "I like coffee": "unanswered"}
    name = signal.Signals(signum).name
    assert errors.getvalue() == f"tiermem: {name}: {TURN_CANCELLED}\n"
    records = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [r["error"] for r in records] == [None, {"kind": "cancelled",
                                                    "message": TURN_CANCELLED}]
    # The handlers are the program's own again once the chat is over.
    assert signal.getsignal(signum) is signal.SIG_DFL


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_a_signal_between_piped_lines_says_where_the_chat_stopped(
        memory: HierarchicalMemory, signum: int) -> None:
    def lines() -> Iterator[str]:
        yield "I like tea"
        send(signum)  # as the chat waits for the next line
        yield "never read"

    repl, _, errors = chat(memory, reply("Noted."), reply("never asked"))
    with pytest.raises(Terminated) as ended:
        repl.run_piped(lines())
    assert ended.value.code == 128 + signum
    assert statuses(memory) == {"I like tea": "ok"}
    name = signal.Signals(signum).name
    assert errors.getvalue() == (
        f"tiermem: chat stopped ({name}) while waiting for the next line; the lines before it "
        f"were handled, and none after it was read\n")


def test_sigterm_during_a_piped_slash_command_says_what_it_left(
        memory: HierarchicalMemory) -> None:
    repl, out, errors = chat(memory, json_lines=True)
    ran = repl.commands.run

    def killed_as_it_runs(text: str) -> bool:
        send(signal.SIGTERM)
        return ran(text)

    repl.commands.run = killed_as_it_runs  # type: ignore[method-assign]
    with pytest.raises(Terminated):
        repl.run_piped(["/core", "never read"])
    said = piped_stop_note("/core", "default", None, "SIGTERM")
    assert said.startswith("chat stopped (SIGTERM) during /core: it changed nothing;")
    assert errors.getvalue() == f"tiermem: {said}\n"
    [record] = [json.loads(line) for line in out.getvalue().splitlines()]
    assert record == {"command": "/core", "output": "",
                      "error": {"kind": "cancelled", "message": said}}


def _blocked_reading_stdin(child: subprocess.Popen[bytes]) -> None:
    """Wait until ``child`` is blocked reading its standard input (Linux's view of the
    system call a process is in; the number of ``read`` is what reading that view is)."""
    try:
        read_call = Path("/proc/self/syscall").read_text().split()[0]
        Path(f"/proc/{child.pid}/syscall").read_text()
    except OSError:  # none, or another process's withheld (ptrace scope)
        pytest.skip("no /proc/PID/syscall to tell where the chat waits")
    waiting = f"{read_call} 0x0 "
    while not Path(f"/proc/{child.pid}/syscall").read_text().startswith(waiting):
        assert child.poll() is None, "the chat ended before it waited for a line"
        time.sleep(0.005)  # polls the condition; the wait ends only when it holds


def test_sigterm_to_a_piped_chat_waiting_for_a_line_prints_where_it_stopped(
        tmp_path: Path) -> None:
    env = {**os.environ, "TIERMEM_HOME": str(tmp_path / "home"), "HF_HUB_OFFLINE": "1"}
    command = [sys.executable, "-m", "tiermem", "chat", "--agent", "ada", "--offline",
               "--embedder", "hashing"]
    with subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, cwd=tmp_path, env=guarded_env(env)) as child:
        assert child.stdin is not None and child.stdout is not None
        try:
            child.stdin.write(b"I like tea\n")
            child.stdin.flush()
            assert child.stdout.readline(), "the chat answered nothing"
            _blocked_reading_stdin(child)
            child.send_signal(signal.SIGTERM)
            _, err = child.communicate()
        finally:
            if child.poll() is None:
                child.kill()
    assert child.returncode == 143
    assert err.decode().endswith(
        "tiermem: chat stopped (SIGTERM) while waiting for the next line; the lines before it "
        "were handled, and none after it was read\n"), err
    assert kept_by_ada(tmp_path) == {"I like tea": "ok"}


def test_sigterm_while_a_finished_turn_is_saved_keeps_it_then_ends_the_run(
        memory: HierarchicalMemory) -> None:
    repl, out, errors = chat(memory, reply("Noted."), reply("never asked"))
    commits: list[int] = []

    def killed_at_the_turns_commit() -> None:
        commits.append(memory.tick)
        if len(commits) == 2:  # the first commit stores the message, the second the turn
            send(signal.SIGTERM)

    memory.store.on_commit(killed_at_the_turns_commit)
    try:
        with pytest.raises(Terminated) as ended:
            repl.run_piped(["I like tea", "never read"])
    finally:
        memory.store._commit_hooks.remove(killed_at_the_turns_commit)
    assert ended.value.code == 143
    assert statuses(memory) == {"I like tea": "ok"}
    assert "Noted." in out.getvalue()
    assert errors.getvalue() == f"tiermem: SIGTERM: {TERMINATED_AT_COMMIT}\n"


class KilledAtSecondPrompt:
    """A prompt session that receives SIGTERM as its second prompt starts waiting."""

    def __init__(self, session: PromptSession[str]) -> None:
        self.session, self.prompts = session, 0

    def prompt(self, *args: Any, **options: Any) -> str:
        self.prompts += 1
        if self.prompts == 2:
            options["pre_run"] = lambda: send(signal.SIGTERM)
        return self.session.prompt(*args, **options)


def test_sigterm_at_the_prompt_ends_an_interactive_chat_with_143(
        memory: HierarchicalMemory) -> None:
    repl, _, errors = chat(memory, reply("Noted."))
    with create_pipe_input() as pipe:
        pipe.send_text("I like tea\rnever sent\r")
        pipe.close()
        session = KilledAtSecondPrompt(PromptSession(input=pipe, output=DummyOutput()))
        with pytest.raises(Terminated) as ended:
            repl.run_interactive(session=session)
    assert ended.value.code == 143
    assert statuses(memory) == {"I like tea": "ok"}
    assert errors.getvalue() == (
        "tiermem: chat stopped (SIGTERM) at the prompt; the turns and commands before it were "
        "saved, and a line typed but not sent was not\n")


def test_sigterm_mid_turn_at_the_prompt_cancels_the_turn_and_ends_the_chat(
        memory: HierarchicalMemory) -> None:
    repl, _, errors = chat(memory, killed(signal.SIGTERM))
    with create_pipe_input() as pipe:
        pipe.send_text("I like tea\rnever sent\r")
        pipe.close()
        with pytest.raises(Terminated):
            repl.run_interactive(session=PromptSession(input=pipe, output=DummyOutput()))
    assert statuses(memory) == {"I like tea": "unanswered"}
    assert errors.getvalue() == f"tiermem: SIGTERM: {TURN_CANCELLED}\n"


def test_a_signal_the_program_ignores_stays_ignored(memory: HierarchicalMemory) -> None:
    def hung_up(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Completion:
        signal.raise_signal(signal.SIGHUP)
        return reply("Noted.")

    previous = signal.signal(signal.SIGHUP, signal.SIG_IGN)  # as under nohup
    try:
        repl, _, _ = chat(memory, hung_up)
        assert repl.run_piped(["I like tea"]) == 0
    finally:
        signal.signal(signal.SIGHUP, previous)
    assert statuses(memory) == {"I like tea": "ok"}


def run_script(tmp_path: Path, patches: str, given: bytes
               ) -> subprocess.CompletedProcess[bytes]:
    """A piped offline chat with agent ada, in a child Python that first runs ``patches``
    (the names os, signal and cli are imported), its home under ``tmp_path``, ``given``
    its input."""
    script = (f"import os, signal, sys\nfrom tiermem import cli\n{patches}\nsys.exit(cli.main("
              f"['chat', '--agent', 'ada', '--offline', '--embedder', 'hashing']))\n")
    env = {**os.environ, "TIERMEM_HOME": str(tmp_path / "home"), "HF_HUB_OFFLINE": "1"}
    return subprocess.run([sys.executable, "-c", script], input=given, capture_output=True,
                          cwd=tmp_path, env=guarded_env(env), check=False)


#: A piped chat whose input sends SIGTERM after its first line, and whose memory, as it
#: closes, gets a SIGHUP: a second signal while the chat ends by the first.
_SIGNALLED_TWICE = """
from tiermem.agent import line_input
from tiermem.memory import hierarchy

def lines(stream, warn):
    yield "I like tea\\n"
    os.kill(os.getpid(), signal.SIGTERM)
    yield "never read\\n"

closing = hierarchy.close_session

def close_as_hung_up(memory):
    os.kill(os.getpid(), signal.SIGHUP)
    closing(memory)

line_input.decoded_lines = lines
hierarchy.close_session = close_as_hung_up
"""


def test_a_second_signal_as_the_ended_chat_closes_its_memory_is_ignored(
        tmp_path: Path) -> None:
    done = run_script(tmp_path, _SIGNALLED_TWICE, b"")
    # The first signal's status and line, not a death by the second.
    assert (done.returncode, done.stderr.decode()) == (143, (
        "tiermem: chat stopped (SIGTERM) while waiting for the next line; the lines before it "
        "were handled, and none after it was read\n"))
    assert kept_by_ada(tmp_path) == {"I like tea": "ok"}


#: A piped chat sent SIGTERM as its memory opens, before it reads a line.
_SIGNALLED_AS_IT_OPENS = """
from tiermem.agent.place import AgentPlace

opening = AgentPlace.open_memory

def open_as_terminated(place, **options):
    os.kill(os.getpid(), signal.SIGTERM)
    return opening(place, **options)

AgentPlace.open_memory = open_as_terminated
"""


def test_sigterm_as_a_piped_chat_opens_its_memory_says_nothing_was_sent(
        tmp_path: Path) -> None:
    done = run_script(tmp_path, _SIGNALLED_AS_IT_OPENS, b"I like tea\n")
    assert (done.returncode, done.stderr.decode()) == (143, (
        "tiermem: chat stopped (SIGTERM) before it read any input; no message was sent or "
        "kept\n"))
    assert not (tmp_path / "home" / "agents" / "ada" / "memory.sqlite3").exists()


#: A piped chat sent SIGTERM once its input has ended, before its memory closes.
_SIGNALLED_AS_IT_ENDS = """
from tiermem.agent.repl import ChatRepl

piped = ChatRepl.run_piped

def run_then_terminated(repl, lines):
    code = piped(repl, lines)
    os.kill(os.getpid(), signal.SIGTERM)
    return code

ChatRepl.run_piped = run_then_terminated
"""


def test_sigterm_as_a_piped_chat_ends_says_its_turns_were_saved(tmp_path: Path) -> None:
    done = run_script(tmp_path, _SIGNALLED_AS_IT_ENDS, b"I like tea\n")
    assert (done.returncode, done.stderr.decode()) == (143, (
        "tiermem: chat stopped (SIGTERM) as the session ended; every turn and command it "
        "finished was saved\n"))
    assert kept_by_ada(tmp_path) == {"I like tea": "ok"}


#: As ``_SIGNALLED_AS_IT_ENDS``, in a chat whose store is lost as its first line is handled
#: (a database connection the server ended).
_SIGNALLED_AFTER_THE_STORE_WAS_LOST = _SIGNALLED_AS_IT_ENDS + """
from tiermem.memory.store.sqlite.store import SQLiteStore

SQLiteStore.lost = property(lambda store: True)
"""


def test_sigterm_after_the_store_was_lost_does_not_say_every_turn_was_saved(
        tmp_path: Path) -> None:
    from tiermem.agent.repl import STORE_LOST

    done = run_script(tmp_path, _SIGNALLED_AFTER_THE_STORE_WAS_LOST,
                      b"I like tea\nI like coffee\n")
    assert (done.returncode, done.stderr.decode()) == (143, (
        f"tiermem: {STORE_LOST}\n"
        "tiermem: chat stopped (SIGTERM) as the session ended, after the memory's database "
        "connection was lost\n"))


@pytest.mark.parametrize("interactive", [False, True])
def test_sigterm_as_the_lost_store_ends_a_chat_does_not_say_its_turns_were_saved(
        memory: HierarchicalMemory, monkeypatch: pytest.MonkeyPatch, interactive: bool) -> None:
    from tiermem.agent.repl import STORE_LOST, STORE_LOST_INTERACTIVE

    monkeypatch.setattr(type(memory.store), "lost", property(lambda store: True))
    repl, _, errors = chat(memory, reply("Noted."))
    said_lost = f"tiermem: {STORE_LOST_INTERACTIVE if interactive else STORE_LOST}\n"
    write_error = repl._write_error

    def terminated_as_the_loss_is_told(text: str) -> None:
        write_error(text)
        if text == said_lost:
            signal.raise_signal(signal.SIGTERM)

    monkeypatch.setattr(repl, "_write_error", terminated_as_the_loss_is_told)
    with create_pipe_input() as pipe, pytest.raises(Terminated):
        pipe.send_text("I like tea\rnever sent\r")
        pipe.close()
        if interactive:
            repl.run_interactive(session=PromptSession(input=pipe, output=DummyOutput()))
        else:
            repl.run_piped(["I like tea", "never read"])
    # Not "the turns and commands before it were saved" right after "it was not kept".
    assert errors.getvalue() == said_lost + (
        "tiermem: chat stopped (SIGTERM) as the session ended, after the memory's database "
        "connection was lost\n")
