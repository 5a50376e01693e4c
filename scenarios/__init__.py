"""Scripted multi-day workloads with their expected outcomes, run by scenarios.runner."""

from __future__ import annotations

from tiermem.scenarios.model import Day, Question, Scenario


def all_scenarios() -> dict[str, Scenario]:
    """Every scenario shipped with tiermem, by name."""
    from tiermem.scenarios import changing, incident, personal, support

    found = [incident.SCENARIO, personal.SCENARIO, support.SCENARIO, changing.SCENARIO]
    return {s.name: s for s in found}


__all__ = ["Day", "Question", "Scenario", "all_scenarios"]
