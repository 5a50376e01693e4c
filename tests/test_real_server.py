"""The incident scenario against a real local model server; off unless one is named.

    TIERMEM_TEST_BASE_URL=http://127.0.0.1:8091/v1 [TIERMEM_TEST_MODEL=NAME] \\
    [TIERMEM_TEST_CONTEXT_WINDOW=4096] [TIERMEM_TEST_TIMEOUT=300] \\
    pytest -m slow -s tests/test_real_server.py

The server must be on this machine (the suite blocks every other address). A
small model fails many of the scenario's answer checks; what this test demands
is that the agent and the server work together: the model called memory tools,
and the run finished with every check the scenario defines reported. It prints
the figures: checks passed, tool calls made, seconds per turn.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from tiermem.agent.config import resolve_llm_config
from tiermem.agent.http_json import request_json
from tiermem.agent.server_options import open_client
from tiermem.memory import HashingEmbedder
from tiermem.scenarios import all_scenarios
from tiermem.scenarios.runner import run_scenario

BASE_URL = os.environ.get("TIERMEM_TEST_BASE_URL", "").strip()

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not BASE_URL, reason="set TIERMEM_TEST_BASE_URL to a local "
                                            "OpenAI-compatible server to run it"),
    # About thirty turns on a small CPU: far beyond the suite's usual hang guard.
    pytest.mark.timeout(3600),
]


def _model() -> str:
    named = os.environ.get("TIERMEM_TEST_MODEL", "").strip()
    if named:
        return named
    listing = request_json("GET", f"{BASE_URL.rstrip('/')}/models", timeout=10).body
    return str(listing["data"][0]["id"])


def test_the_incident_scenario_on_a_real_server(tmp_path: Path) -> None:
    window = os.environ.get("TIERMEM_TEST_CONTEXT_WINDOW", "").strip()
    config = resolve_llm_config(
        _model(), BASE_URL, env={}, context_window=int(window) if window else None,
        timeout=float(os.environ.get("TIERMEM_TEST_TIMEOUT", "").strip() or 300))
    assert config is not None
    notes: list[str] = []
    llm = open_client(config, notes.append)
    scenario = all_scenarios()["long-running-incident"]
    started = time.perf_counter()
    result = run_scenario(scenario, llm=llm, embedder=HashingEmbedder(),
                          home=tmp_path / "incident")
    seconds = time.perf_counter() - started
    turns = sum(day.turns for day in result.days)
    passed = sum(check.passed for check in result.checks)
    print(f"\n{llm.name}, window {llm.context_window} ({'; '.join(notes) or 'not assumed'})")
    print(f"{passed} of {len(result.checks)} checks passed; {result.tool_calls} tool calls "
          f"({result.memory_tool_calls} to memory tools) in {turns} turns; "
          f"{seconds / turns:.1f} s per turn; {result.failed_turns} failed turns")
    for day in result.days:
        print(f"  {day.name}: {day.turns} turns, {day.tool_calls} tool calls, "
              f"{day.seconds:.0f} s, errors {day.errors[:2]}")
    for check in result.checks:
        print(f"  {'pass' if check.passed else 'FAIL'} {check.name}: {check.detail}")

    asked = sum(1 for day in scenario.days for m in day.messages if not isinstance(m, str))
    expected = (1 + len(scenario.durable_in_core) + len(scenario.rotated_to_archival)
                + len(scenario.not_in_core) + asked + len(scenario.questions))
    assert len(result.checks) == expected
    assert result.memory_tool_calls > 0, result.warning
