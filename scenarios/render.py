"""Printing a scenario run: the day-by-day timeline, the answers, and the checks."""

from __future__ import annotations

import shlex
from pathlib import Path

from rich.console import Console
from rich.table import Table

from tiermem.agent.home import home_variable
from tiermem.agent.terminal import escape
from tiermem.scenarios.runner import DayLog, ScenarioResult


def print_day(console: Console, day: DayLog) -> None:
    memory_calls = ("" if day.memory_tool_calls == day.tool_calls
                    else f", {day.memory_tool_calls} to memory tools")
    console.print(f"[bold]{escape(day.name)}[/bold] [dim]{day.turns} turns, "
                  f"{day.tool_calls} tool calls{memory_calls}, {day.seconds:.1f} s[/dim]")
    for label, items, style in (("entered core", day.entered_core, "green"),
                                ("evicted to archival", day.evicted, "yellow"),
                                ("filed in archival (no room)", day.archived_directly, "yellow"),
                                ("retired as superseded", day.superseded, "magenta"),
                                ("recalled", day.recalled, "cyan"),
                                ("failed turns", day.errors, "red")):
        if items:
            console.print(f"  [{style}]{label} ({len(items)})[/{style}]")
            for item in items:
                console.print(f"    [dim]- {escape(item[:110])}[/dim]")


def print_result(console: Console, result: ScenarioResult) -> None:
    console.print()
    for answer in result.answers:
        mark = "[green]ok[/green]" if answer.passed else "[red]FAIL[/red]"
        when = "" if answer.when == "questions" else f"{answer.when}: "
        console.print(f"{mark} [dim]{escape(when)}[/dim][bold]{escape(answer.question.ask)}"
                      f"[/bold] [dim](found in: {', '.join(answer.found_in) or 'nothing'})[/dim]")
        console.print(f"   {escape(answer.reply[:400])}")
    table = Table(title=f"{result.scenario.name} with {result.model}")
    table.add_column("check")
    table.add_column("result")
    table.add_column("detail")
    for check in result.checks:
        table.add_row(escape(check.name), "[green]pass[/green]" if check.passed
                      else "[red]FAIL[/red]", escape(check.detail))
    console.print(table)
    if result.failed_turns:
        console.print(f"[bold red]{result.failed_turns} turns failed: the model server "
                      f"refused or could not answer them (see the days above)[/bold red]")
        for advice in result.advice:
            console.print(f"[red]{escape(advice)}[/red]")
    if result.warning:
        console.print(f"[bold red]{escape(result.warning)}[/bold red]")
    else:
        console.print(f"[dim]{result.tool_calls} tool calls, {result.memory_tool_calls} to "
                      f"memory tools[/dim]")
    failed = [c for c in result.checks if not c.passed]
    if failed:
        console.print(f"[red]{len(failed)} of {len(result.checks)} checks failed[/red]")
    else:
        console.print(f"[green]all {len(result.checks)} checks passed[/green]; memory kept in "
                      f"{escape(str(result.home))} ({escape(diagnostics_command(result))})")


def diagnostics_command(result: ScenarioResult) -> str:
    """The command that reports on ``result``'s memory (``diagnostics_of``)."""
    return diagnostics_of(result.scenario.name, result.home)


def diagnostics_of(name: str, home: object) -> str:
    """The command that reports on the memory of scenario ``name`` kept in ``home``. A
    home chosen by ``TIERMEM_HOME`` is named in it: set only for the run (`TIERMEM_HOME=...
    tiermem scenario NAME`), it would otherwise report on the scenario's last run in
    another home, or on none."""
    command = f"tiermem diagnostics --scenario {name}"
    if home_variable() is None or not isinstance(home, Path):
        return command
    return f"TIERMEM_HOME={shlex.quote(str(home.parent.parent))} {command}"
