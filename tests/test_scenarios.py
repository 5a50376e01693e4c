"""Scenarios run through the real agent, and the diagnostics report of their memory."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from network_guard import guarded_env

import tiermem.cli as cli
from tiermem.agent.errors import ProviderError
from tiermem.agent.openai_client import OpenAIClient
from tiermem.agent.scripted import ScriptedModel, reply
from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.text.updates import read_statement
from tiermem.scenarios import Day, Question, Scenario, all_scenarios
from tiermem.scenarios.present import PresentShare, overall, present_share
from tiermem.scenarios.runner import Answer, run_scenario

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("name", sorted(all_scenarios()))
def test_every_scenario_passes_offline(name: str) -> None:
    result = run_scenario(all_scenarios()[name], embedder=HashingEmbedder())
    failed = [f"{c.name}: {c.detail}" for c in result.checks if not c.passed]
    assert not failed
    evicted = sum(len(day.evicted) for day in result.days)
    assert evicted > 0, "a scenario must make core evict"


def test_incident_keeps_durable_facts_and_rotates_noise() -> None:
    result = run_scenario(all_scenarios()["long-running-incident"], embedder=HashingEmbedder())
    evicted = [text for day in result.days for text in day.evicted]
    assert any("kubectl get pods" in text for text in evicted)
    assert not any("production region" in text for text in evicted)
    answers = {a.question.ask: a for a in result.answers}
    assert "core" in answers["Which region is production?"].found_in
    assert "eu-west-1" in answers["Which region is production?"].reply


def test_personal_address_change_supersedes_old_address() -> None:
    result = run_scenario(all_scenarios()["personal-assistant"], embedder=HashingEmbedder())
    early, later, last = [a.reply for a in result.answers if "address" in a.question.ask]
    assert "3 Oak Avenue" in early and "3 Oak Avenue" in later
    assert "12 Elm Street" in last and "3 Oak Avenue" not in last


def test_a_fact_retired_as_no_longer_true_has_rotated_through_core() -> None:
    # A move retires the old home to archival without counting an eviction: it still left
    # core, and the check says so.
    moved = Scenario("moved", "a move", (Day("day 1", ("I live in Lisbon.", "I moved to Porto.")),),
                     rotated_to_archival=("Lisbon",))
    result = run_scenario(moved, embedder=HashingEmbedder())
    [check] = [c for c in result.checks if c.name.startswith("rotated")]
    assert (check.passed, check.detail) == (True, "moved out of core and found by archival search")


def test_a_failing_expectation_is_reported() -> None:
    base = all_scenarios()["customer-support"]
    broken = dataclasses.replace(
        base,
        name="support-broken",
        durable_in_core=(*base.durable_in_core, "a fact nobody said"),
        questions=(Question("Which plan is the customer on?", "Platinum", tier="core"),),
    )
    result = run_scenario(broken, embedder=HashingEmbedder())
    assert not result.passed
    failed = {c.name for c in result.checks if not c.passed}
    assert "in core at the end: a fact nobody said" in failed
    assert any(name.startswith("answered from core") for name in failed)


def test_cli_scenario_exit_codes(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
                                 ) -> None:
    assert cli.main(["scenario", "--list"]) == 0
    listed = capsys.readouterr().out
    assert all(name in listed for name in all_scenarios())
    assert cli.main(["scenario", "no-such-scenario"]) == 2
    capsys.readouterr()
    # A name beside --list is neither listed alone nor run, nor ignored: a usage error.
    for name in ("personal-assistant", "no-such-scenario"):
        assert cli.main(["scenario", "--list", name]) == 2, name
        out, err = capsys.readouterr()
        assert out == "" and err == (
            "tiermem: --list takes no scenario name; run `tiermem scenario NAME` to run one "
            "(`tiermem scenario --list` lists them)\n")
    impossible = Scenario(name="impossible", description="expects what never happens",
                          days=(), durable_in_core=("never said",))
    monkeypatch.setattr("tiermem.scenarios.all_scenarios", lambda: {"impossible": impossible})
    assert cli.main(["scenario", "impossible", "--embedder", "hashing"]) == 1
    assert "FAIL" in capsys.readouterr().out


def test_a_second_run_of_a_scenario_under_way_is_refused_and_leaves_it_alone(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from tiermem.memory.store.sqlite import DB_FILE
    from tiermem.memory.store.sqlite.writer_lock import WriterLock
    from tiermem.scenarios.runner import scenario_home

    short = Scenario(name="short", description="one day, one fact",
                     days=(Day("day 1", ("My name is Ada.",)),), durable_in_core=("Ada",))
    monkeypatch.setattr("tiermem.scenarios.all_scenarios", lambda: {"short": short})
    assert cli.main(["scenario", "short", "--offline", "--embedder", "hashing"]) == 0
    home = scenario_home("short")
    before = (home / DB_FILE).read_bytes()
    capsys.readouterr()
    running = WriterLock(home)  # held as the run under way holds it
    running.acquire()
    try:
        assert cli.main(["scenario", "short", "--offline", "--embedder", "hashing"]) == 1
    finally:
        running.release()
    out, err = capsys.readouterr()
    root = shlex.quote(str(home.parent.parent))
    assert out == "" and err.startswith(f"tiermem: agent home {home} is open for writing by "), err
    assert err.endswith(
        f": scenario short is being run there already, and `TIERMEM_HOME={root} tiermem "
        "diagnostics --scenario short` reads it meanwhile. Wait for that run to end, or give this "
        "one a home of its own: `home=$(mktemp -d); TIERMEM_HOME=$home tiermem scenario "
        "short`, then `TIERMEM_HOME=$home tiermem diagnostics --scenario short` reports on this "
        "one\n"), err
    assert (home / DB_FILE).read_bytes() == before


@pytest.mark.parametrize("kept_in", ["home", "database"])
def test_a_run_started_while_the_first_opens_its_emptied_memory_is_the_one_refused(
        kept_in: str, request: pytest.FixtureRequest,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The second run starts where the first has emptied its memory (a home, or an agent
    in a PostgreSQL database) and is about to open it: the first still holds it, so the
    second is refused and the first goes on."""
    import tiermem.scenarios.runner as runner
    from tiermem.memory.errors import StoreLockedError
    from tiermem.memory.store.sqlite import DB_FILE

    store = request.getfixturevalue("postgres_dsn") if kept_in == "database" else None
    short = Scenario(name="short", description="one day, one fact",
                     days=(Day("day 1", ("My name is Ada.",)),), durable_in_core=("Ada",))
    opening = runner.HierarchicalMemory
    second: list[str] = []

    def second_run_then_open(*args: object, **kwargs: object) -> object:
        if not second:  # the first run, between emptying its memory and opening it
            second.append("started")
            try:
                run_scenario(short, embedder=HashingEmbedder(), store=store)
                second.append("ran")
            except StoreLockedError:
                second.append("refused")
        return opening(*args, **kwargs)

    monkeypatch.setattr(runner, "HierarchicalMemory", second_run_then_open)
    first = run_scenario(short, embedder=HashingEmbedder(), store=store)
    assert second == ["started", "refused"]
    assert first.passed
    where = ({"path": runner.scenario_home("short")} if store is None else
             {"store": store, "agent": runner.scenario_agent("short")})
    with HierarchicalMemory(embedder=HashingEmbedder(), read_only=True, **where) as kept:
        assert [fact.text for fact in kept.facts()] == ["User's name is Ada"]
    if store is None:
        assert first.home == runner.scenario_home("short")
        assert (runner.scenario_home("short") / DB_FILE).exists()


def test_the_advice_for_a_scenario_under_way_runs_it_in_a_home_diagnostics_then_reads(
        tmp_path: Path) -> None:
    """The refusal's commands, run by a shell as given: the last, diagnostics, reports on
    the memory the run kept in its own home, and the run names that home for it too."""
    from tiermem.scenarios.command import running_already

    said = running_already("long-running-incident", RuntimeError("held"))
    tiermem = f"{shlex.quote(sys.executable)} {shlex.quote(str(ROOT / 'cli.py'))}"
    script = "\n".join([f'tiermem() {{ {tiermem} "$@" --embedder hashing; }}',
                        *re.findall(r"`([^`]+)`", said.partition("home of its own")[2])])
    env = {name: value for name, value in os.environ.items()
           if name not in {"TIERMEM_MODEL", "OPENAI_BASE_URL", "TIERMEM_STORE"}}
    env.update(TIERMEM_HOME=str(tmp_path / "usual"), TMPDIR=str(tmp_path), HF_HUB_OFFLINE="1",
               COLUMNS="1000")
    done = subprocess.run(["bash", "-c", script], capture_output=True, text=True,
                          env=guarded_env(env), cwd=tmp_path, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    ran = next(tmp_path.glob("tmp.*/scenarios/long-running-incident"))
    assert "memory health after 31 interactions" in done.stdout.partition("memory kept in")[2]
    assert not (tmp_path / "usual" / "scenarios").exists()
    root = shlex.quote(str(ran.parent.parent))
    assert (f"memory kept in {ran} (TIERMEM_HOME={root} tiermem diagnostics --scenario "
            f"long-running-incident)") in done.stdout, done.stdout


def test_cli_scenario_then_diagnostics(tmp_path: Path) -> None:
    run = subprocess.run(
        [sys.executable, "cli.py", "scenario", "long-running-incident", "--embedder", "hashing",
         "--json", str(tmp_path / "result.json")],
        cwd=ROOT, capture_output=True, text=True,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "day 1" in run.stdout and "evicted to archival" in run.stdout
    result = json.loads((tmp_path / "result.json").read_text())
    assert result["passed"] is True and result["scenario"] == "long-running-incident"

    diag = subprocess.run(
        [sys.executable, "cli.py", "diagnostics", "--scenario", "long-running-incident",
         "--embedder", "hashing", "--format", "json"],
        cwd=ROOT, capture_output=True, text=True,
    )
    assert diag.returncode == 0, diag.stderr
    report = json.loads(diag.stdout)
    assert report["evictions"]["total"] > 0
    assert report["core"]["size"] <= report["core"]["limit"]

    html_path = tmp_path / "report.html"
    html_run = subprocess.run(
        [sys.executable, "cli.py", "diagnostics", "--scenario", "long-running-incident",
         "--embedder", "hashing", "--format", "html", "--out", str(html_path)],
        cwd=ROOT, capture_output=True, text=True,
    )
    assert html_run.returncode == 0, html_run.stderr
    page = html_path.read_text()
    # Recall (134 messages) and archival (9 passages) differ tenfold: a chart each.
    assert page.count("<svg") == 4
    assert "facts in core" in page and "evictions per interaction" in page
    assert "recall size (messages)" in page and "archival size (passages)" in page
    without_namespace = page.replace("http://www.w3.org/2000/svg", "")
    assert "http://" not in without_namespace and "https://" not in without_namespace
    assert "<script" not in page


@pytest.mark.parametrize("name", ["", "nosuch", "../agents/default"])
def test_diagnostics_of_no_scenario_reports_on_no_other_memory(
        name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from tiermem.memory import HierarchicalMemory

    monkeypatch.setenv("TIERMEM_HOME", str(tmp_path))
    with HierarchicalMemory(tmp_path / "agents" / "default", embedder=HashingEmbedder()) as m:
        m.add_fact("The production region is eu-west-1")
    assert cli.main(["diagnostics", "--scenario", name, "--embedder", "hashing"]) == 2
    out, err = capsys.readouterr()
    assert out == ""  # not the report of the default agent's memory
    assert f"no scenario named {name!r}; choose one of long-running-incident," in err
    assert "create it with" not in err  # `tiermem scenario NAME` would refuse the name too


def test_diagnostics_of_missing_memory_fails_clearly(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["diagnostics", "--agent", "nobody", "--embedder", "hashing"]) == 2
    assert "tiermem chat --agent nobody" in capsys.readouterr().err


def test_questions_among_a_days_messages_are_asked_then_and_stale_values_fail() -> None:
    asked_early = Question("What is my address?", "3 Oak Avenue")
    quoting_stale = Question("What is my address?", "3 Oak Avenue", stale=("Oak",))
    scenario = Scenario(
        name="asked-mid-day", description="a question asked before the last day",
        days=(Day("day 1", ("My address is 3 Oak Avenue, Leeds.", asked_early, quoting_stale)),),
        questions=(Question("What was I reading about?", "lighthouses", present=False),))
    result = run_scenario(scenario, embedder=HashingEmbedder())
    first, second, last = result.answers
    assert (first.when, first.passed) == ("day 1", True)
    assert (second.when, second.passed, second.quoted_stale) == ("day 1", False, ["Oak"])
    assert last.when == "questions" and not last.passed
    failed = [c for c in result.checks if not c.passed]
    assert any("(day 1)" in c.name and "quotes stale 'Oak'" in c.detail for c in failed)
    assert present_share(result) == PresentShare("asked-mid-day", asked=2, correct=1)
    assert overall([present_share(result), PresentShare("x", 3, 3)]).share == 4 / 5


def test_the_present_share_s_json_path_is_checked_before_the_scenarios_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
        ) -> None:
    from tiermem.scenarios import present

    runs: list[str] = []

    def measure(embedder: str) -> list[PresentShare]:
        runs.append(embedder)
        return [PresentShare("one", 2, 1)]

    monkeypatch.setattr(present, "measure", measure)
    assert present.main(["--json", str(tmp_path / "missing" / "share.json")]) == 2
    assert runs == [] and "scenarios.present: " in capsys.readouterr().err
    out = tmp_path / "share.json"
    assert present.main(["--json", str(out)]) == 0
    assert json.loads(out.read_text())[-1] == {"scenario": "all scenarios", "asked": 2,
                                              "correct": 1, "share": 0.5}
    capsys.readouterr()
    assert present.main(["--json", "-"]) == 0  # to standard output, as JSON alone
    assert json.loads(capsys.readouterr().out)[0]["scenario"] == "one"


def test_a_reply_that_quotes_the_question_back_is_an_echo() -> None:
    question = Question("What am I allergic to?", "peanuts")
    echoed = Answer(question, "- From our conversation: what am I allergic to? peanuts", [],
                    False)
    plain = Answer(question, "- From core memory: User is allergic to peanuts", [], False)
    assert echoed.echoes_question and not plain.echoes_question


@pytest.mark.parametrize("embedder", ["hashing", "local"])
def test_changing_facts_answers_the_present_with_the_latest_fact_only(embedder: str) -> None:
    scenario = all_scenarios()["changing-facts"]
    statements = [m for day in scenario.days for m in day.messages if isinstance(m, str)]
    changes = [s for s in statements if read_statement(s).change is not None]
    assert len(scenario.days) == 5 and len(changes) >= 20
    result = run_scenario(scenario, embedder=HashingEmbedder() if embedder == "hashing" else None)
    failed = [f"{c.name}: {c.detail}" for c in result.checks if not c.passed]
    assert not failed
    present = [a for a in result.answers if a.question.present]
    assert len(present) >= 20 and sum(bool(a.question.stale) for a in present) >= 15
    assert present_share(result).share == 1.0


def test_every_scenario_asks_a_question_more_than_once() -> None:
    for scenario in all_scenarios().values():
        asked = [m.ask for day in scenario.days for m in day.messages if isinstance(m, Question)]
        asked += [q.ask for q in scenario.questions]
        assert max(asked.count(a) for a in asked) >= 2, scenario.name


@pytest.mark.parametrize("failure", [
    ProviderError("could not reach http://127.0.0.1:9/v1", kind="connection"),
    ProviderError("the server refused the API key", kind="auth"),
    ProviderError("model 'm' not found", kind="bad_request", status_code=404),
    ProviderError("the server refuses requests with tools", kind="bad_request", status_code=500,
                  hint="restart llama-server with --jinja"),
])
def test_a_server_no_turn_can_use_stops_the_scenario_at_its_first_turn(
        failure: ProviderError, tmp_path: Path) -> None:
    # Else every turn fails alike and the checks blame the model for the server.
    model = ScriptedModel([failure])
    with pytest.raises(ProviderError) as raised:
        run_scenario(all_scenarios()["personal-assistant"], llm=model,
                     embedder=HashingEmbedder(), home=tmp_path / "home")
    assert raised.value is failure and len(model.calls) == 1


def test_a_failure_of_one_turn_costs_that_turn_only(tmp_path: Path) -> None:
    scenario = Scenario(name="two-turns", description="two messages", days=(
        Day("monday", ("I am allergic to peanuts.", "I live in Lisbon.")),))
    model = ScriptedModel([ProviderError("the server failed", kind="server", status_code=500),
                           reply("Noted.")])
    result = run_scenario(scenario, llm=model, embedder=HashingEmbedder(),
                          home=tmp_path / "home")
    assert len(result.days[0].errors) == 1 and "the server failed" in result.days[0].errors[0]
    assert len(model.calls) == 2


def test_a_model_process_that_died_once_costs_that_turn_only(server: Any, tmp_path: Path) -> None:
    # Ollama's runner killed for memory is loaded again at the next request.
    scenario = Scenario(name="two-turns", description="two messages", days=(
        Day("monday", ("I am allergic to peanuts.", "I live in Lisbon.")),))
    server.enqueue_error(500, {"error": "llama runner process has terminated: signal: killed"})
    server.enqueue_reply("Noted.")
    llm = OpenAIClient("m", base_url=server.base_url, sleep=lambda _: None)
    result = run_scenario(scenario, llm=llm, embedder=HashingEmbedder(), home=tmp_path / "home")
    assert len(server.requests) == 2 and len(result.days[0].errors) == 1
    assert "lost the process running the model" in result.days[0].errors[0]


def refused_scenario(server: Any, capsys: pytest.CaptureFixture[str], status: int, body: bytes,
                     content_type: str) -> str:
    """What `tiermem scenario` prints when every request is refused alike, checked to have
    stopped the run (exit 1) at its first request."""
    from fake_openai import FakeResponse

    server.responder = lambda request: FakeResponse(
        status=status, body=body, headers={"Content-Type": content_type})
    code = cli.main(["scenario", "personal-assistant", "--base-url", server.base_url,
                     "--model", "m", "--embedder", "hashing"])
    assert code == 1 and len(server.requests) == 1
    return capsys.readouterr().err


def test_a_server_not_set_up_for_tool_calls_stops_the_scenario_command_with_its_hint(
        server: Any, capsys: pytest.CaptureFixture[str]) -> None:
    body = json.dumps({"error": {"code": 500, "message": "tools param requires --jinja flag",
                                 "type": "server_error"}}).encode()
    err = refused_scenario(server, capsys, 500, body, "application/json")
    assert "llama-server runs without --jinja (HTTP 500)" in err
    assert "restart llama-server with --jinja" in err and "turns failed" not in err
    assert "then run the scenario again" in err and "send it again" not in err


def test_a_request_over_a_proxy_s_size_limit_stops_the_scenario_with_the_scenario_s_flag(
        server: Any, capsys: pytest.CaptureFixture[str]) -> None:
    page = b"<html><head><title>413 Request Entity Too Large</title></head></html>"
    err = refused_scenario(server, capsys, 413, page, "text/html")
    assert "run the scenario with a smaller --context-window" in err
    assert "start the chat" not in err
