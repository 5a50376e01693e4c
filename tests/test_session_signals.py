"""The test session ends on SIGTERM as on Ctrl-C, so its fixtures' teardown runs
(tests/conftest.py): a PostgreSQL server the session started must not outlive it."""

from __future__ import annotations

import os
import signal

import pytest


def test_sigterm_interrupts_the_session_as_ctrl_c_does() -> None:
    handler = signal.getsignal(signal.SIGTERM)
    assert callable(handler)
    with pytest.raises(KeyboardInterrupt, match="stopped by signal 15"):
        handler(signal.SIGTERM, None)


def test_a_process_forked_from_the_session_still_dies_of_sigterm() -> None:
    pid = os.fork()
    if pid == 0:  # the child: the signal must end it, not raise into the test's code
        try:
            os.kill(os.getpid(), signal.SIGTERM)
        finally:
            os._exit(7)
    _, status = os.waitpid(pid, 0)
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGTERM
