"""A scenario against a model server whose failure may pass: that turn fails, the run goes
on, as the loopback server answers the later turns."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fake_openai import FakeOpenAIServer, FakeResponse

from tiermem.agent.openai_client import OpenAIClient
from tiermem.memory import HashingEmbedder
from tiermem.scenarios import all_scenarios
from tiermem.scenarios.runner import run_scenario


def test_a_connection_closed_mid_answer_costs_that_turn_only(
        server: FakeOpenAIServer, tmp_path: Path) -> None:
    # The server crashed while answering the first turn (every attempt), then came back.
    seen: list[dict[str, Any]] = []

    def crashed_first(body: dict[str, Any]) -> FakeResponse | None:
        seen.append(body)
        if len(seen) <= 4:
            return FakeResponse(dropped=True)
        return FakeResponse(message={"role": "assistant", "content": "Noted."})

    server.responder = crashed_first
    llm = OpenAIClient("m", base_url=server.base_url, max_retries=3, context_window=8192,
                       sleep=lambda seconds: None)
    scenario = all_scenarios()["personal-assistant"]
    result = run_scenario(scenario, llm=llm, embedder=HashingEmbedder(), home=tmp_path / "s")
    assert result.failed_turns == 1
    assert "closed the connection before its answer was complete" in result.days[0].errors[0]
    assert len(server.requests) > 4
