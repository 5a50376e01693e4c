"""Operating-system tools of the fault harness: forked trials and small tmpfs mounts.

A trial that may die (SIGKILL, a crash in native code on a garbled file) runs
in a forked copy of this process: it starts in milliseconds with everything
already imported, and whatever happens to it, the harness lives on. The
child reports through a pipe, one line per event; lines are shorter than
``PIPE_BUF``, so each arrives whole or not at all.
"""

from __future__ import annotations

import contextlib
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from tiermem.bench.fault_result import describe, is_clear

Report = Callable[[str], None]
#: A safety net only (a child that hangs); never how a trial is timed or synchronised.
HANG_LIMIT_S = 120.0


@dataclass
class ForkOutcome:
    """What a forked trial reported, and how it ended."""

    lines: list[str] = field(default_factory=list)
    exit_code: int = 0  # negative: killed by that signal
    hung: bool = False

    @property
    def killed(self) -> bool:
        return self.exit_code == -signal.SIGKILL

    @property
    def error(self) -> tuple[str, str] | None:
        """``(clear|crash, description)`` if the child ended on an exception."""
        for line in self.lines:
            if line.startswith("EXC "):
                kind, _, text = line[4:].partition(" ")
                return kind, text
        return None


def run_forked(work: Callable[[Report], None], *, kill_after: int | None = None) -> ForkOutcome:
    """Run ``work(report)`` in a forked child; SIGKILL it after ``kill_after`` reported lines."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns into the caller's code
        os.close(read_end)
        code = 0
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 1)
            os.dup2(devnull, 2)

            def report(line: str) -> None:
                os.write(write_end, (line.replace("\n", " ")[:3000] + "\n").encode())

            work(report)
        except BaseException as exc:
            with contextlib.suppress(BaseException):
                kind = "clear" if is_clear(exc) else "crash"
                os.write(write_end, f"EXC {kind} {describe(exc)}\n".encode(errors="replace"))
            code = 3
        finally:
            os._exit(code)
    os.close(write_end)
    outcome = ForkOutcome()
    buffer = b""
    deadline = time.monotonic() + HANG_LIMIT_S
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                outcome.hung = True
                break
            ready, _, _ = select.select([read_end], [], [], left)
            if not ready:
                continue
            chunk = os.read(read_end, 65536)
            if not chunk:
                break
            buffer += chunk
            *complete, buffer = buffer.split(b"\n")
            outcome.lines += [line.decode(errors="replace") for line in complete]
            if kill_after is not None and len(outcome.lines) >= kill_after:
                os.kill(pid, signal.SIGKILL)
                kill_after = None
    finally:
        if outcome.hung:
            os.kill(pid, signal.SIGKILL)
        os.close(read_end)
        _, status = os.waitpid(pid, 0)
    outcome.exit_code = os.waitstatus_to_exitcode(status)
    return outcome


def _run(*command: str) -> bool:
    return subprocess.run(command, capture_output=True, check=False).returncode == 0


@contextlib.contextmanager
def tmpfs(size: str) -> Iterator[Path | None]:
    """A fresh tmpfs of ``size`` (e.g. ``"2m"``), or None where mounting is not allowed."""
    if sys.platform != "linux" or os.geteuid() != 0 or shutil.which("mount") is None:
        yield None
        return
    path = Path(tempfile.mkdtemp(prefix="tiermem-tmpfs-"))
    mounted = _run("mount", "-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs", str(path))
    try:
        yield path if mounted else None
    finally:
        if mounted and not _run("umount", str(path)):
            _run("umount", "-l", str(path))
        with contextlib.suppress(OSError):
            path.rmdir()


def remount_read_only(path: Path) -> bool:
    """Make the tmpfs at ``path`` read-only for everyone, root included."""
    return _run("mount", "-o", "remount,ro", str(path))
