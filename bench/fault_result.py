"""The tally of one fault class: trials, clear errors, crashes, data lost and diverged.

A *clear error* is one of tiermem's documented exceptions (a ``TiermemError``)
or an ``Error:`` tool message: the caller is told what went wrong. A *crash*
is any other exception or a traceback. *Lost* counts operations reported as
committed that are missing; *diverged* counts states where derived data
disagrees with SQLite, a limit is broken, a unit of writes is half there, or
a search answers with data that was never committed or was replaced.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tiermem.memory.errors import TiermemError

#: Problems kept per class and per kind: enough to diagnose, bounded for the table and JSON.
MAX_NOTES = 12


def is_clear(exc: BaseException) -> bool:
    """Whether ``exc`` is one of the errors tiermem documents for its callers."""
    return isinstance(exc, TiermemError)


def describe(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text[:200]}" if text else type(exc).__name__


@dataclass
class FaultResult:
    """One row of the fault table."""

    name: str
    group: str
    trials: int = 0
    clear_errors: int = 0
    crashes: int = 0
    lost: int = 0
    diverged: int = 0
    skipped: str | None = None
    seconds: float = 0.0
    figures: dict[str, Any] = field(default_factory=dict)
    notes: dict[str, list[str]] = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        return self.crashes == 0 and self.lost == 0 and self.diverged == 0

    def note(self, kind: str, text: str) -> None:
        # Notes quote hostile input; a lone surrogate must not break printing them.
        text = text.encode("utf-8", "backslashreplace").decode("utf-8")
        kept = self.notes.setdefault(kind, [])
        if len(kept) < MAX_NOTES and text not in kept:
            kept.append(text)

    def clear(self, text: str | None = None) -> None:
        self.clear_errors += 1
        if text:
            self.note("clear", text)

    def crash(self, text: str) -> None:
        self.crashes += 1
        self.note("crash", text)

    def exception(self, exc: BaseException, where: str) -> None:
        """Count ``exc`` as a clear error or a crash, by its class."""
        if is_clear(exc):
            self.clear(f"{where}: {describe(exc)}")
        else:
            self.crash(f"{where}: {describe(exc)}")

    def lose(self, text: str, count: int = 1) -> None:
        self.lost += count
        self.note("lost", text)

    def diverge(self, text: str, count: int = 1) -> None:
        self.diverged += count
        self.note("diverged", text)

    def diverge_all(self, problems: list[str], where: str) -> None:
        """Count every problem; note the first few, so one bad trial cannot fill the notes."""
        for index, problem in enumerate(problems):
            self.diverged += 1
            if index < 2:
                self.note("diverged", f"{where}: {problem}")

    def first_problem(self) -> str:
        for kind in ("crash", "lost", "diverged"):
            if self.notes.get(kind):
                return self.notes[kind][0]
        return ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "group": self.group,
            "passed": self.passed,
            "skipped": self.skipped,
            "trials": self.trials,
            "clear_errors": self.clear_errors,
            "crashes": self.crashes,
            "lost": self.lost,
            "diverged": self.diverged,
            "seconds": round(self.seconds, 2),
            "figures": self.figures,
            "notes": self.notes,
        }
