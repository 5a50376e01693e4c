"""The chat prompt (``read_line``) and what its keys do beyond prompt-toolkit's Emacs keys.

Ctrl-C over typed text discards the text, as in a shell; at an empty prompt it
raises ``KeyboardInterrupt`` (agent/repl.py says what the chat does then).
Ctrl-Space (the NUL byte) does nothing: Emacs keys set the mark with it, and
the next keys then cut the line short without a sign. Tab inserts four spaces,
as Python's own prompt does: the prompt completes nothing, and prompt-toolkit
would drop the key; spaces, not a tab character, so that what the line shows
is what is sent, and a slash command still parts from its argument.

An escape sequence typed or pasted without bracketed paste that reads as a
mouse report (ESC[0m, a colour reset copied from a terminal) is dropped: the
prompt asks the terminal for no mouse reports, so none is one, and
prompt-toolkit's own handler fails on such a sequence, prints a traceback and
takes the next line typed for its "Press ENTER to continue".

A Ctrl-C pressed as the prompt starts, before it takes the terminal (a second press right
after the first, which printed the hint), is held until prompt-toolkit handles Ctrl-C
itself, and then ends the prompt as a press at it does. Raised where it landed, it cut
asyncio's event loop or prompt-toolkit's coroutine in half (a traceback of the broken
loop, a warning of a coroutine never awaited), or reached asyncio's own handler, which
cancelled the prompt so that the press did not count.
"""

from __future__ import annotations

import asyncio
import signal
import sys
import threading
from types import FrameType
from typing import Any

from prompt_toolkit.application import get_app_or_none
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.keys import Keys

from tiermem.agent.interrupts import signals_to


def prompt_output() -> dict[str, Any]:
    """The ``PromptSession`` option that draws the prompt on standard error when standard
    output goes to a file or a pipe and standard error is the terminal (``tiermem chat |
    tee chat.log``); else none. Drawn into the file, the prompt's redrawing would fill it with
    blank lines and broken copies of each line typed, and the terminal show no prompt.
    A dumb terminal (TERM=dumb) keeps prompt-toolkit's plain prompt, which it gets only
    with no output given."""
    from prompt_toolkit.output import create_output
    from prompt_toolkit.utils import is_dumb_terminal

    out, err = sys.stdout, sys.stderr
    if out is None or out.isatty() or err is None or not err.isatty() or is_dumb_terminal():
        return {}
    return {"output": create_output(always_prefer_tty=True)}


def read_line(session: Any) -> str:
    """One line from the prompt of ``session`` (a prompt-toolkit ``PromptSession``).

    A SIGTERM or SIGHUP (agent/interrupts.py) ends the prompt as Ctrl-C does, from
    inside, so prompt-toolkit gives the terminal back (cooked mode, bracketed paste
    off) before ``Terminated`` is raised here; raised wherever the prompt happened
    to be, it could unwind past that. A Ctrl-C before the prompt handles it is held
    (module docstring) and raised as ``KeyboardInterrupt`` once it is safe to."""
    held = _HeldPress()

    def started() -> None:
        if held.pressed:
            held.deliver(session.app)

    try:
        with held, signals_to(lambda ended: _end_prompt(session, ended)):
            line = str(session.prompt(held.message, key_bindings=PROMPT_KEYS,
                                      pre_run=started))
    except asyncio.CancelledError:
        # A Ctrl-C in the instant before the prompt takes the terminal reaches asyncio's
        # own handler, which cancels the prompt instead.
        raise KeyboardInterrupt from None
    if held.pressed:
        # Pressed after the prompt gave the terminal back: outside a turn, as at the prompt.
        raise KeyboardInterrupt
    return line


class _HeldPress:
    """For the length of the block, Ctrl-C (while Python's default handling is in place, in
    the main thread) only sets ``pressed``; prompt-toolkit puts its own handler in place
    while the prompt runs, and this one back after it."""

    def __init__(self) -> None:
        self.pressed = False
        self.previous: Any = None

    def __enter__(self) -> _HeldPress:
        if (threading.current_thread() is threading.main_thread()
                and signal.getsignal(signal.SIGINT) is signal.default_int_handler):
            self.previous = signal.signal(signal.SIGINT, self._press)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.previous is not None:
            signal.signal(signal.SIGINT, self.previous)

    def _press(self, signum: int, frame: FrameType | None) -> None:
        self.pressed = True

    def deliver(self, app: Any) -> None:
        """Once the prompt ``app`` has started: end it as a Ctrl-C at it does, if one was
        pressed."""
        if self.pressed:
            self.pressed = False
            app.exit(exception=KeyboardInterrupt, style="class:aborting")

    def message(self) -> str:
        """The prompt's text, read as each drawing of the prompt starts. On a dumb terminal
        (TERM=dumb) prompt-toolkit runs the prompt as an application of its own, which
        runs no ``pre_run``: its first drawing, once it has the terminal, delivers the
        press instead. Left held, the press would go unseen until Enter, then discard
        the line typed."""
        app = get_app_or_none()
        if self.pressed and app is not None and app.is_running and not app.is_done:
            self.deliver(app)
        return "you> "


def _end_prompt(session: Any, ended: BaseException) -> bool:
    app = getattr(session, "app", None)
    future = getattr(app, "future", None)
    if app is None or not app.is_running or future is None or future.done():
        return False  # no prompt waiting (not yet, or no more): raised where it is
    app.exit(exception=ended)
    return True


def _ctrl_c(event: KeyPressEvent) -> None:
    if event.current_buffer.text.strip():
        event.current_buffer.reset()
    else:
        event.app.exit(exception=KeyboardInterrupt, style="class:aborting")


def _tab(event: KeyPressEvent) -> None:
    event.current_buffer.insert_text(TAB)


def _nothing(event: KeyPressEvent) -> None:
    """A key that does nothing at the prompt."""


#: What Tab inserts at the prompt.
TAB = " " * 4

PROMPT_KEYS = KeyBindings()
PROMPT_KEYS.add("c-c")(_ctrl_c)
PROMPT_KEYS.add("c-@")(_nothing)  # Ctrl-Space, the NUL byte
PROMPT_KEYS.add("tab")(_tab)
PROMPT_KEYS.add(Keys.Vt100MouseEvent)(_nothing)  # the prompt asks for no mouse reports
