"""Ctrl-C raised at a chosen line of a chosen function by a line tracer, so a test stops code
exactly where it means to, never by a timer."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator
from typing import Any


@contextlib.contextmanager
def ctrl_c_at(function: Callable[..., Any], line: int) -> Iterator[list[bool]]:
    """Ctrl-C raised the first time ``function`` reaches ``line``, before it runs; the list
    yielded holds, once the block ends, whether it was."""
    code, pressed = function.__code__, [False]

    def local(frame: Any, event: str, arg: Any) -> Any:
        if event == "line" and frame.f_lineno == line and not pressed[0]:
            pressed[0] = True
            raise KeyboardInterrupt
        return local

    def tracer(frame: Any, event: str, arg: Any) -> Any:
        return local if frame.f_code is code else None

    previous = sys.gettrace()
    sys.settrace(tracer)
    try:
        yield pressed
    finally:
        sys.settrace(previous)
