"""SIGKILL a writer process once it has reported N committed operations.

The writer and this module speak a line protocol on the writer's stdout:

- ``READY`` once the writer is set up (memory open, imports done);
- then one line per operation, printed and flushed only after that operation
  returned, that is, after its transaction committed.

The parent reads whole lines and sends SIGKILL right after the N-th operation
line, so the kill lands while the writer is inside a later operation. Lines
the writer managed to print before the kill arrived are read afterwards and
count as committed too; a line cut off by the kill (no newline) does not.

The number of operations, not a delay, decides when the kill comes, so a
loaded machine changes where inside an operation the kill lands but never
how much work a round does. A hang guard (minutes, far beyond any round)
turns a stuck writer into a reported failure instead of a blocked caller.
"""

from __future__ import annotations

import signal
import subprocess
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

READY = "READY"
#: A writer that has not reached its kill point after this long is stuck, not slow.
HANG_GUARD_S = 600.0


@dataclass
class KilledWriter:
    """What a writer reported before it was killed, and how it ended."""

    ready: bool
    returncode: int
    #: Operation lines, in order, without their newline.
    ops: list[str] = field(default_factory=list)
    #: True when the hang guard, not the operation count, ended the writer.
    hung: bool = False

    @property
    def killed_as_planned(self) -> bool:
        return self.ready and not self.hung and self.returncode == -signal.SIGKILL


def kill_after_ops(
    argv: Sequence[str],
    ops: int,
    *,
    cwd: Path | str | None = None,
    env: Mapping[str, str] | None = None,
    stderr: IO[bytes] | int | None = subprocess.DEVNULL,
    hang_guard_s: float = HANG_GUARD_S,
) -> KilledWriter:
    """Start the writer ``argv``, SIGKILL it after its ``ops``-th operation line.

    A writer that exits or dies earlier is reported as it ended, with the
    operations it got through (``killed_as_planned`` is then False).
    """
    if ops < 1:
        raise ValueError("ops must be at least 1")
    proc = subprocess.Popen(list(argv), cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=stderr)
    assert proc.stdout is not None
    hung = threading.Event()

    def give_up() -> None:
        hung.set()
        proc.kill()

    guard = threading.Timer(hang_guard_s, give_up)
    guard.start()
    lines: list[bytes] = []
    ready = False
    try:
        ready = proc.stdout.readline() == f"{READY}\n".encode()
        while ready and len(lines) < ops:
            line = proc.stdout.readline()
            if not line.endswith(b"\n"):
                break  # the writer ended on its own
            lines.append(line)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        guard.cancel()
        rest = proc.stdout.read()
        proc.stdout.close()
    lines += rest.splitlines(keepends=True)
    complete = [line.decode(errors="replace").rstrip("\n") for line in lines
                if line.endswith(b"\n")]
    return KilledWriter(ready=ready, returncode=proc.returncode, ops=complete,
                        hung=hung.is_set())
