"""Ctrl-C during a turn: it cancels the turn, but never in the middle of a write.

Python raises Ctrl-C (SIGINT) as ``KeyboardInterrupt`` wherever the program
happens to be. A few steps of a turn must not be cut in half by it: storing
the user's message, rolling a cancelled turn back (a second Ctrl-C there
would leave the in-memory tiers out of step with the database) and the
commit of a finished turn. ``TurnInterrupts`` holds Ctrl-C back during those
steps and lets it cancel the turn everywhere else.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from types import FrameType


class TurnInterrupts:
    """What Ctrl-C does during one turn; see ``turn_interrupts``."""

    def __init__(self) -> None:
        self.holding = False
        self.held = False
        self.cancelling = False

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
        """Let Ctrl-C cancel again; one pressed while held cancels now."""
        self.holding = False
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
    SIGINT its own way, the block runs with that handling unchanged.
    """
    guard = TurnInterrupts()
    if threading.current_thread() is not threading.main_thread() or (
            signal.getsignal(signal.SIGINT) is not signal.default_int_handler):
        yield guard
        return
    signal.signal(signal.SIGINT, guard.on_sigint)
    try:
        yield guard
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)
