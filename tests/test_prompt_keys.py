"""Keys typed at the chat prompt (agent/prompt_keys.py), through a prompt-toolkit pipe input."""

from __future__ import annotations

import asyncio
import gc
import io
import signal
import sys
import warnings
from collections.abc import Iterator
from typing import Any

import pytest
from prompt_toolkit import PromptSession
from prompt_toolkit.application import Application, create_app_session
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from rich.console import Console

from tiermem.agent.loop import Agent
from tiermem.agent.offline import OfflinePolicy
from tiermem.agent.repl import ChatRepl
from tiermem.memory import HashingEmbedder, HierarchicalMemory


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        yield m


@pytest.fixture(autouse=True)
def loop_errors_fail(monkeypatch: pytest.MonkeyPatch) -> None:
    """An exception in the prompt's event loop ends the prompt with it, failing the test at
    once: prompt-toolkit's own handler prints it and waits for ENTER, for ever at EOF."""
    def end_prompt(app: Application[Any], loop: Any, context: dict[str, Any]) -> None:
        app.exit(exception=context.get("exception") or RuntimeError(context["message"]))

    monkeypatch.setattr(Application, "_handle_exception", end_prompt)


def typed(memory: HierarchicalMemory, keys: bytes) -> tuple[list[str], str, str]:
    """The messages sent when ``keys`` are typed, what the chat printed, and its errors."""
    out, errors = io.StringIO(), io.StringIO()
    repl = ChatRepl(Agent(memory, OfflinePolicy()), console=Console(file=out, width=200),
                    errors=errors)
    with create_pipe_input() as pipe:
        pipe.send_bytes(keys)
        pipe.close()  # the keys are all there is: the prompt then ends (EOF)
        session: PromptSession[str] = PromptSession(input=pipe, output=DummyOutput())
        assert repl.run_interactive(session=session) == 0
    sent = [r["content"] for r in memory.recall.iter_rows() if r["role"] == "user"]
    return sent, out.getvalue(), errors.getvalue()


def test_ctrl_space_does_not_cut_the_line(memory: HierarchicalMemory) -> None:
    sent, text, errors = typed(memory, b"My team is\x00 Blue.\r")
    assert sent == ["My team is Blue."]
    assert "core + User's team is Blue" in text and errors == ""


def test_tab_inserts_spaces_rather_than_vanishing(memory: HierarchicalMemory) -> None:
    sent, text, _ = typed(memory, b"tab\tcompletion?\r/recall\ttab\r")
    assert sent == ["tab    completion?"]
    assert "user: tab completion?" in text  # the command took its argument


def test_an_escape_sequence_typed_that_reads_as_a_mouse_report_is_dropped(
        memory: HierarchicalMemory) -> None:
    # ESC[0m (a colour reset, copied from a terminal) parses as a mouse report; the chat
    # asks for none, and prompt-toolkit's handler failed on it, then took the next line.
    sent, _, errors = typed(memory, b"x\x1b[0my\rnext\r")
    assert sent == ["xy", "next"] and errors == ""


def test_ctrl_c_as_the_prompt_starts_counts_as_a_press_and_breaks_nothing(
        memory: HierarchicalMemory, monkeypatch: pytest.MonkeyPatch) -> None:
    # Ctrl-C twice in quick succession: each lands as a prompt's event loop starts, before
    # prompt-toolkit handles Ctrl-C itself (in a terminal, between the hint the first press
    # prints and the prompt drawn after it).
    real_run = asyncio.run
    presses = iter([True, True])

    def run(main: Any, **kwargs: Any) -> Any:
        if next(presses, False):
            signal.raise_signal(signal.SIGINT)
        return real_run(main, **kwargs)

    monkeypatch.setattr(asyncio, "run", run)
    unraisable: list[Any] = []
    monkeypatch.setattr(sys, "unraisablehook", unraisable.append)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sent, text, errors = typed(memory, b"never read\r")
        gc.collect()
    # The first press gives the hint, the second leaves: no line is read after them.
    assert text.count("press Ctrl-C again") == 1 and text.rstrip().endswith("bye")
    assert sent == [] and errors == ""
    # Neither cut asyncio or prompt-toolkit in half: no coroutine left never awaited, no
    # half-made event loop failing as it is collected.
    assert [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)] == []
    assert unraisable == []


def test_on_a_dumb_terminal_ctrl_c_as_the_prompt_starts_keeps_the_line_typed_after_it(
        memory: HierarchicalMemory, monkeypatch: pytest.MonkeyPatch) -> None:
    # TERM=dumb (Emacs's shell): prompt-toolkit runs a plain prompt of its own. A press as
    # it starts must end it then, not stay unseen until Enter and discard the line typed.
    monkeypatch.setenv("TERM", "dumb")
    real_run = asyncio.run
    presses = iter([True])

    def run(main: Any, **kwargs: Any) -> Any:
        if next(presses, False):
            signal.raise_signal(signal.SIGINT)
        return real_run(main, **kwargs)

    monkeypatch.setattr(asyncio, "run", run)
    out = io.StringIO()
    repl = ChatRepl(Agent(memory, OfflinePolicy()), console=Console(file=out, width=200),
                    errors=io.StringIO())
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
        pipe.send_bytes(b"I like tea.\r")
        pipe.close()
        session: PromptSession[str] = PromptSession()  # no output given: the dumb prompt
        assert repl.run_interactive(session=session) == 0
    sent = [r["content"] for r in memory.recall.iter_rows() if r["role"] == "user"]
    assert out.getvalue().count("press Ctrl-C again") == 1
    assert sent == ["I like tea."]
