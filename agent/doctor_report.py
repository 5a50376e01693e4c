"""What ``tiermem doctor`` found: one row per question it asked, the facts behind them
(agent/doctor_checks.py ``Findings``), and the verdict with its advice."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from tiermem.agent.doctor_checks import Findings

Status = Literal["ok", "warn", "fail", "info", "skip"]
#: More prompt tokens than this over the no-tools baseline means the tools reached the model.
TOOLS_SHOWN_MARGIN = 20


@dataclass
class Row:
    check: str
    status: Status
    result: str
    detail: str = ""


@dataclass
class DoctorReport:
    base_url: str
    model: str | None
    rows: list[Row] = field(default_factory=list)
    findings: Findings = field(default_factory=Findings)
    works: bool = False
    #: Whether the probes could tell if the agent works: not when the server was busy, or the
    #: tool-call probe got no answer.
    known: bool = True
    verdict: str = ""
    advice: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def add(self, check: str, status: Status, result: str, detail: str = "") -> None:
        self.rows.append(Row(check, status, result, detail))

    def to_dict(self) -> dict[str, Any]:
        return {"base_url": self.base_url, "model": self.model, "works": self.works,
                "known": self.known,
                "verdict": self.verdict, "advice": self.advice,
                "rows": [vars(r) for r in self.rows], "facts": asdict(self.findings),
                "seconds": round(self.seconds, 2)}
