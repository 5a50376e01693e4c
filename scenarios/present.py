"""The present-tense share: how many questions about how things are now get the latest answer.

A question about the present (``Question.present``) counts as answered
correctly when its reply holds the expected text, found in the expected
tier, none of the values it replaced (``Question.stale``), and not the
question itself quoted back. Run every
scenario through the offline policy and print the share::

    python -m scenarios.present [--embedder hashing|local] [--json PATH]

Each scenario runs in a temporary home, so the last runs kept for
``tiermem diagnostics --scenario`` are left alone.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from tiermem.memory.output_file import OutputPathError, emit_json, output_path
from tiermem.scenarios.runner import ScenarioResult, run_scenario


@dataclass(frozen=True)
class PresentShare:
    """Present-tense questions of one scenario (or of all): how many, and how many right."""

    name: str
    asked: int
    correct: int

    @property
    def share(self) -> float:
        return self.correct / self.asked if self.asked else 1.0

    def line(self) -> str:
        return f"{self.name:24} {self.correct:3}/{self.asked:<3} {100 * self.share:5.1f}%"


def present_share(result: ScenarioResult) -> PresentShare:
    """The present-tense share of one scenario run."""
    present = [a for a in result.answers if a.question.present]
    return PresentShare(result.scenario.name, len(present), sum(a.passed for a in present))


def overall(shares: Iterable[PresentShare]) -> PresentShare:
    """The shares of several scenarios pooled question by question."""
    listed = list(shares)
    return PresentShare("all scenarios", sum(s.asked for s in listed),
                        sum(s.correct for s in listed))


def measure(embedder_name: str = "hashing") -> list[PresentShare]:
    """Run every scenario offline and return each one's present-tense share."""
    from tiermem.memory import HashingEmbedder
    from tiermem.scenarios import all_scenarios

    shares = []
    with tempfile.TemporaryDirectory(prefix="tiermem-present-") as tmp:
        for name, scenario in sorted(all_scenarios().items()):
            embedder = HashingEmbedder() if embedder_name == "hashing" else None
            result = run_scenario(scenario, embedder=embedder, home=Path(tmp) / name)
            shares.append(present_share(result))
    return shares


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m scenarios.present", description=__doc__
                                     .split("\n\n")[0])
    parser.add_argument("--embedder", choices=("hashing", "local"), default="hashing",
                        help="the model-free hashing embedder (default) or the local MiniLM")
    parser.add_argument("--json", metavar="PATH", help="also write the figures here")
    args = parser.parse_args(argv)
    try:
        json_path = output_path(args.json)  # before the scenarios run, not after
    except OutputPathError as exc:
        sys.stderr.write(f"scenarios.present: {exc}\n")
        return 2
    shares = measure(args.embedder)
    total = overall(shares)
    if args.json != "-":  # with `--json -`, standard output holds the JSON alone
        for share in [*shares, total]:
            print(share.line())
    if args.json:
        emit_json([{"scenario": s.name, "asked": s.asked, "correct": s.correct,
                    "share": round(s.share, 4)} for s in [*shares, total]], json_path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
