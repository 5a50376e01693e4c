"""Ctrl-C during a turn: it cancels the turn, but never in the middle of a write.

Python raises Ctrl-C (SIGINT) as ``KeyboardInterrupt`` wherever the program
happens to be. A few steps of a turn must not be cut in half by it: storing
the user's message, rolling a cancelled turn back (a second Ctrl-C there
would leave the in-memory tiers out of step with the database) and the
commit of a finished turn. ``TurnInterrupts`` holds Ctrl-C back during those
steps and lets it cancel the turn everywhere else.

SIGTERM and SIGHUP (a ``kill``, a closed terminal) unwind the same way inside
``terminate_on_signals``: they raise ``Terminated``, a ``SystemExit`` whose
status is 128 + the signal's number, so a turn rolls back as for Ctrl-C (held
back during the same steps), and the chat prompt gives the terminal back as it
does when it ends, where a killed process would leave it raw.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Callable, Iterator
from types import FrameType
from typing import Any


class Terminated(SystemExit):
    """SIGTERM or SIGHUP, raised where the program was; its exit status is 128 + its number
    (143, 129)."""

    def __init__(self, signum: int) -> None:
        super().__init__(128 + signum)
        self.signum = signum
        #: Whether a line on standard error has said what the signal stopped and left.
        self.reported = False

    @property
    def name(self) -> str:
        return signal.Signals(self.signum).name


class InterruptReported(KeyboardInterrupt):
    """Ctrl-C, once the command it stopped has said on standard error what it left: the
    command line (cli.py) exits 130 without a line of its own. A plain KeyboardInterrupt
    reaching it gets the command's generic line (agent/interrupted.py)."""


#: The signals ``terminate_on_signals`` turns into ``Terminated`` (no SIGHUP on Windows).
TERMINATING = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP")
                    if hasattr(signal, name))


class _Terminator:
    """The handler ``terminate_on_signals`` installs: the first signal raises ``Terminated``
    (or hands it to ``deliver``: ``signals_to``), and any later one is ignored while the
    program unwinds from it."""

    def __init__(self) -> None:
        self.raised = False
        self.deliver: Callable[[Terminated], bool] | None = None

    def __call__(self, signum: int, frame: FrameType | None) -> None:
        if not self.raised:
            self.raised = True
            ended = Terminated(signum)
            if self.deliver is None or not self.deliver(ended):
                raise ended


@contextlib.contextmanager
def signals_to(deliver: Callable[[Terminated], bool]) -> Iterator[None]:
    """Inside ``terminate_on_signals``, hand a SIGTERM or SIGHUP to ``deliver`` for the
    length of the block rather than raising it wherever the program is; it is raised
    after all when ``deliver`` returns False (it could not take it). The chat prompt
    ends with it that way, as with Ctrl-C, and gives the terminal back."""
    terminators = {handler for signum in TERMINATING
                   if isinstance(handler := signal.getsignal(signum), _Terminator)}
    for terminator in terminators:
        terminator.deliver = deliver
    try:
        yield
    finally:
        for terminator in terminators:
            terminator.deliver = None


@contextlib.contextmanager
def terminate_on_signals() -> Iterator[None]:
    """Raise ``Terminated`` at SIGTERM or SIGHUP for the length of the block. Only in the
    main thread, and only for a signal left to its default action (under ``nohup``
    SIGHUP stays ignored)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    terminator = _Terminator()
    previous = {signum: signal.signal(signum, terminator) for signum in TERMINATING
                if signal.getsignal(signum) is signal.SIG_DFL}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


class SecondSignals:
    """SIGTERM and SIGHUP once a first one ends the program: ignored until ``restore``. The
    handler ``terminate_on_signals`` installed ignores them only while its block lasts, and
    then the memory still closes: a second signal there (``kill`` sent twice, a service
    manager's SIGTERM and then SIGHUP) would cut the close short and replace the exit
    status the first one's line goes with."""

    def __init__(self) -> None:
        self._previous: dict[int, Any] = {}

    @contextlib.contextmanager
    def ignored_after(self) -> Iterator[None]:
        """Ignore them from the moment ``Terminated`` leaves the block."""
        try:
            yield
        except Terminated:
            if threading.current_thread() is threading.main_thread():
                for signum in TERMINATING:
                    self._previous.setdefault(signum, signal.signal(signum, signal.SIG_IGN))
            raise

    def restore(self) -> None:
        """Give them back the handling they had, once what the program closes is closed."""
        for signum, handler in self._previous.items():
            signal.signal(signum, handler)
        self._previous.clear()


@contextlib.contextmanager
def ctrl_c_held() -> Iterator[None]:
    """Hold Ctrl-C back until the block ends, then raise it as ``KeyboardInterrupt``: for a
    line that must be written whole, once (``TerminalConsole`` drops what Ctrl-C cut from a
    print, so a cut note would not be written whole later). Only Python's default
    handling is taken over, in the main thread, as ``turn_interrupts`` does."""
    if (threading.current_thread() is not threading.main_thread()
            or signal.getsignal(signal.SIGINT) is not signal.default_int_handler):
        yield
        return
    pressed: list[int] = []
    signal.signal(signal.SIGINT, lambda signum, frame: pressed.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if pressed:
        raise KeyboardInterrupt


class TurnInterrupts:
    """What Ctrl-C does during one turn, and inside ``terminate_on_signals`` SIGTERM and
    SIGHUP; see ``turn_interrupts``."""

    def __init__(self, terminator: _Terminator | None = None) -> None:
        self.holding = False
        self.held = False
        self.cancelling = False
        self.terminator = terminator
        #: A SIGTERM or SIGHUP received: the program ends once the turn is saved or undone.
        self.terminating: int | None = None

    def on_terminate(self, signum: int, frame: FrameType | None) -> None:
        if self.terminator is not None:
            self.terminator.raised = True  # one more after the turn is ignored
        if self.terminating is not None:
            return
        self.terminating = signum
        if not (self.holding or self.cancelling):
            self.cancelling = True
            raise Terminated(signum)

    def ended(self) -> None:
        """Once a cancelled turn is rolled back: raise ``Terminated`` if a SIGTERM or SIGHUP
        came (held during the rollback, or the cancellation itself)."""
        if self.terminating is not None:
            raise Terminated(self.terminating)

    def on_sigint(self, signum: int, frame: FrameType | None) -> None:
        if self.holding or self.cancelling:
            self.held = True
            return
        # What follows is the unwinding of the cancelled turn: hold further presses.
        self.cancelling = True
        raise KeyboardInterrupt

    def hold(self) -> None:
        """From now on Ctrl-C waits (``release``)."""
        self.holding = True

    def release(self) -> None:
        """Let Ctrl-C cancel again; one pressed while held cancels now, as does a SIGTERM
        or SIGHUP held."""
        self.holding = False
        if self.terminating is not None and not self.cancelling:
            self.cancelling = True
            raise Terminated(self.terminating)
        if self.held and not self.cancelling:
            self.held = False
            self.cancelling = True
            raise KeyboardInterrupt

    def rearm(self) -> None:
        """Forget earlier presses and let the next one raise at once (after a cancellation,
        for best-effort work the user may still want to cut short)."""
        self.holding = self.held = self.cancelling = False


@contextlib.contextmanager
def turn_interrupts() -> Iterator[TurnInterrupts]:
    """Handle Ctrl-C with a ``TurnInterrupts`` for the length of the block.

    A press held until the block ends is dropped: the turn it meant to cancel
    has already finished or failed. Only Python's default handling is taken
    over; outside the main thread, or when the program handles or ignores
    SIGINT its own way, the block runs with that handling unchanged. A SIGTERM
    or SIGHUP held until the block ends is kept as ``terminating``: the program
    must still end.
    """
    if threading.current_thread() is not threading.main_thread():
        yield TurnInterrupts()
        return
    # SIGTERM and SIGHUP only as ``terminate_on_signals`` takes them.
    terminating = {signum: handler for signum in TERMINATING
                   if isinstance(handler := signal.getsignal(signum), _Terminator)}
    guard = TurnInterrupts(next(iter(terminating.values()), None))
    for signum in terminating:
        signal.signal(signum, guard.on_terminate)
    sigint = signal.getsignal(signal.SIGINT) is signal.default_int_handler
    if sigint:
        signal.signal(signal.SIGINT, guard.on_sigint)
    try:
        yield guard
    finally:
        if sigint:
            signal.signal(signal.SIGINT, signal.default_int_handler)
        for signum, handler in terminating.items():
            signal.signal(signum, handler)
