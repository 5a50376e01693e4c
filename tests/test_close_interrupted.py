"""A Ctrl-C inside ``SQLiteStore.close()``, caught by a library caller that goes on: calling
close again finishes it, the home can be opened again, and no later release of the writer
lock touches a descriptor the system has since given to another file. Ctrl-C is raised by
a line tracer at each line in turn, never by a timer."""

from __future__ import annotations

import contextlib
import gc
import inspect
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from line_ctrl_c import ctrl_c_at

from tiermem.memory.store.sqlite.store import SQLiteStore
from tiermem.memory.store.sqlite.writer_lock import WriterLock


def _code_lines(function: Callable[..., Any]) -> list[int]:
    """The numbers of the lines of ``function`` that run code (not its signature, comments
    or blank lines)."""
    lines, first = inspect.getsourcelines(function)
    return [first + i for i, line in enumerate(lines)
            if i > 0 and line.strip() and not line.strip().startswith("#")]


def _close_with_ctrl_c_at(store: SQLiteStore, function: Callable[..., Any], line: int) -> bool:
    """``store.close()`` with Ctrl-C raised the first time ``function`` reaches ``line``;
    whether it was."""
    with ctrl_c_at(function, line) as pressed, contextlib.suppress(KeyboardInterrupt):
        store.close()
    return pressed[0]


_CLOSING = [(function, line) for function in (SQLiteStore.close, WriterLock.release)
            for line in _code_lines(function)]


@pytest.mark.parametrize(("function", "line"), _CLOSING,
                         ids=[f"{f.__qualname__}:{n}" for f, n in _CLOSING])
def test_a_close_cut_short_by_ctrl_c_finishes_and_leaves_other_files_alone(
        tmp_path: Path, function: Callable[..., Any], line: int) -> None:
    home = tmp_path / "home"
    store = SQLiteStore(home)
    hooks_run: list[str] = []
    store.on_close(lambda: hooks_run.append("let go"))
    reached = _close_with_ctrl_c_at(store, function, line)
    # A file opened now may be given the number the lock's descriptor had.
    other = tmp_path / "notes.txt"
    other.write_text("kept")
    descriptor = os.open(other, os.O_RDWR)
    try:
        store.close()  # the caller that caught the Ctrl-C closes again
        del store
        gc.collect()  # the lock's own cleanup runs as it goes
        assert os.fstat(descriptor).st_ino == other.stat().st_ino
        assert other.read_text() == "kept"
    finally:
        os.close(descriptor)
    again = SQLiteStore(home)  # the lock was let go of
    again.close()
    assert hooks_run == ["let go"]
    if function is SQLiteStore.close:
        assert reached, f"line {line} of close() never ran"



def _lines_run(open_home: Callable[[], Any], function: Callable[..., Any]) -> list[int]:
    """The lines of ``function`` that ``open_home()`` runs, in order, each once."""
    code, ran = function.__code__, dict[int, None]()

    def local(frame: Any, event: str, arg: Any) -> Any:
        if event == "line":
            ran[frame.f_lineno] = None
        return local

    previous = sys.gettrace()
    sys.settrace(lambda frame, event, arg: local if frame.f_code is code else None)
    try:
        open_home().close()
    finally:
        sys.settrace(previous)
    return list(ran)


def test_an_open_cut_short_by_ctrl_c_lets_the_home_be_opened_again(tmp_path: Path) -> None:
    home = tmp_path / "home"
    lines = _lines_run(lambda: SQLiteStore(home), SQLiteStore.__init__)
    assert len(lines) > 20
    # The half-opened store is let go of only when the cycle collector runs: the lock must
    # not wait for it.
    gc.disable()
    try:
        for line in lines:
            with (ctrl_c_at(SQLiteStore.__init__, line) as pressed,
                  contextlib.suppress(KeyboardInterrupt)):
                SQLiteStore(home).close()
            assert pressed[0], f"line {line} of __init__ never ran"
            SQLiteStore(home).close()  # not refused as locked, by this very process
    finally:
        gc.enable()
