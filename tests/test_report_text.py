"""The reports of a scenario run, the battery and the fault harness print the text they
quote (a model's answer, a fact that went missing, fuzzed input) as it was written: rich's
markup drops a backslash before a "[" that opens no tag, and rich's ``escape`` doubles a
trailing one."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from tiermem.agent.scripted import ScriptedModel, reply
from tiermem.bench.fault_result import FaultResult
from tiermem.bench.faults import print_table
from tiermem.bench.report import print_report
from tiermem.bench.result import CheckResult
from tiermem.memory import HashingEmbedder
from tiermem.scenarios import Day, Question, Scenario
from tiermem.scenarios.render import print_result
from tiermem.scenarios.runner import run_scenario

QUOTED = ["regex \\[0-9] matches a digit", "list \\[1]", "the share is C:\\",
          "kept \\[b]as typed\\\\"]


def console_output() -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, width=200, highlight=False), out


@pytest.mark.parametrize("text", QUOTED)
def test_a_scenario_prints_the_model_s_answer_as_written(text: str) -> None:
    scenario = Scenario(name="tiny", description="one fact, one question",
                        days=(Day("monday", ("I keep shares on C:",)),),
                        questions=(Question("Where are my shares?", "C:", tier="core"),))
    model = ScriptedModel([reply("Noted."), reply(text)])
    result = run_scenario(scenario, llm=model, embedder=HashingEmbedder())
    console, out = console_output()
    print_result(console, result)
    assert f"\n   {text}\n" in out.getvalue()


@pytest.mark.parametrize("text", QUOTED)
def test_the_battery_prints_a_failed_check_s_detail_as_written(text: str) -> None:
    console, out = console_output()
    print_report(console, [CheckResult("core_limit", False, detail=text)], 1.0)
    assert f"FAIL core_limit: {text}\n" in out.getvalue()


@pytest.mark.parametrize("text", QUOTED)
def test_the_fault_table_prints_a_note_as_written(text: str) -> None:
    console, out = console_output()
    failed = FaultResult(name="fuzz_tools", group="fuzz", trials=1, crashes=1,
                         notes={"crash": [text]})
    print_table(console, [failed], 1.0, "faults")
    assert f"FAIL fuzz_tools: {text}\n" in out.getvalue()
