"""The outcome of one battery check."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class CheckResult:
    """One check: whether it passed, the figures it measured, and a sentence explaining it."""

    name: str
    passed: bool
    figures: dict[str, Any] = field(default_factory=dict)
    detail: str = ""
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "passed": self.passed,
            "figures": self.figures,
            "detail": self.detail,
            "seconds": round(self.seconds, 3),
        }
