"""``tiermem diagnostics``: an agent's health report as a table, JSON or an HTML page.

Beside the JSON, the table for people is printed: on standard output, or on
standard error when standard output carries the JSON (as every reporting command
does). A table or an HTML page written to a file (``--out``, HTML's default name)
is not printed again: standard output says where it went. ``--out -`` is
standard output.
Options that would each pick another output are refused before any work, so
none of them is silently ignored.
"""

from __future__ import annotations

import argparse
import io
import sys
from collections.abc import Callable
from typing import Any

#: ``--json`` given without a value (the parser's ``const``): JSON, to the --out file if
#: one is named. ``--json -`` names standard output itself, which --out PATH contradicts.
#: A NUL, which no command-line argument can hold, so no PATH is mistaken for it.
JSON_NO_PATH = "\0"


class OutputOptionsError(ValueError):
    """Two output options that contradict each other (a usage error)."""


def report_format(args: argparse.Namespace) -> tuple[str, str | None]:
    """The format and the file (None: standard output) the options ask for."""
    out = None if args.out is None else str(args.out)
    if args.json is not None:
        if args.format not in ("text", "json"):  # text is the default: not a choice made
            raise OutputOptionsError(f"--json and --format {args.format} ask for two formats; "
                                     "give one of them")
        if args.json != JSON_NO_PATH and out is not None and not args.json == out == "-":
            if "-" not in (args.json, out):
                raise OutputOptionsError("--json PATH and --out PATH name two files; give one "
                                         "(--json --out PATH writes the JSON to PATH)")
            json_place, out_place = ("-" if v == "-" else "PATH" for v in (args.json, out))
            raise OutputOptionsError(
                f"--json {json_place} and --out {out_place} ask for standard output "
                "and a file; give one (--json --out PATH writes the JSON to PATH, --json "
                "alone to standard output)")
        target = out if out is not None else (
            None if args.json in ("-", JSON_NO_PATH) else args.json)
        return "json", target
    target = None if args.out is None else str(args.out)
    if args.format == "html" and target is None:
        target = f"{args.scenario or args.agent}-diagnostics.html"
    return args.format, target


def command_line_advice(report: dict[str, Any], agent: str | None, store: str | None,
                        embedder_id: str) -> None:
    """Put the commands that act on the red flags ``erasure_owed`` and
    ``rows_without_vectors`` in place of the library's Python calls: for agent ``agent``
    (with ``store``, the ``--store`` given), or none for a scenario's own directory, which
    neither ``forget`` nor ``reindex`` reaches. The reindex named keeps the memory's
    embedder ``embedder_id`` (reindex's own default would switch it); for an embedder only
    the library configures, the library's call stays."""
    from tiermem.agent.place import store_flag
    from tiermem.agent.store_errors import embedder_option
    from tiermem.memory.ops.diagnostics import REOPEN_ADVICE, reindex_advice, unembedded_pronoun

    where = f" --agent {agent}{store_flag(store)}" if agent else None
    keep = embedder_option(embedder_id)
    for flag in report["red_flags"]:
        python: str
        command: str | None
        if flag["name"] == "erasure_owed":
            python, command = REOPEN_ADVICE, f": run `tiermem forget{where} --finish-erasures`"
        elif flag["name"] == "rows_without_vectors":
            pronoun = unembedded_pronoun(flag["figures"])
            python, command = reindex_advice(pronoun), None if keep is None else (
                f"; embed {pronoun} with `tiermem reindex{where} --embedder {keep}`")
        else:
            continue
        if command is not None:
            flag["message"] = flag["message"].removesuffix(python) + (command if where else "")


def cmd_diagnostics(args: argparse.Namespace, note: Callable[[str], None]) -> int:
    from tiermem.agent.place import AgentPlace, agent_place, store_option
    from tiermem.agent.settings import session_embedder
    from tiermem.agent.terminal import TerminalConsole
    from tiermem.agent.upgrade_command import upgrade_advice, upgrade_option
    from tiermem.memory.errors import OlderSchemaError, UnfinishedStoreError
    from tiermem.memory.ops.report import history_series, print_text, render_html
    from tiermem.memory.output_file import emit_json, output_path, write_atomic
    from tiermem.memory.store.sqlite import DB_FILE
    from tiermem.scenarios import all_scenarios
    from tiermem.scenarios.runner import scenario_agent, scenario_home

    try:
        fmt, target = report_format(args)
    except OutputOptionsError as exc:
        note(str(exc))
        return 2
    # Only a scenario's own name: "" would report on --agent's memory instead, and a path
    # on whatever memory it leads to.
    if args.scenario is not None and args.scenario not in (scenarios := all_scenarios()):
        note(f"no scenario named {args.scenario!r}; choose one of {', '.join(scenarios)}")
        return 2
    name = args.scenario or args.agent
    out = output_path(target)
    dsn = store_option(args.store)
    if args.scenario and dsn is not None:
        place = AgentPlace(scenario_agent(args.scenario), scenario_home(args.scenario), dsn)
    elif args.scenario:
        place = AgentPlace(args.scenario, scenario_home(args.scenario))
        if not (place.home / DB_FILE).exists():
            note(f"no memory at {place.home}; create it with `tiermem scenario "
                 f"{args.scenario}`")
            return 2
    else:
        place = agent_place(args.agent, dsn, existing=True)
    # Read-only: no writer lock, so a report can be taken while a chat is running.
    try:
        embedder = session_embedder(place, args.embedder)
        with place.in_use(note, reading=True), place.open_memory(
                embedder=embedder, read_only=True) as memory:
            report = memory.diagnostics()
            command_line_advice(report, None if args.scenario and dsn is None else place.name,
                                args.store, memory.embedder.id)
            series = history_series(memory)
    except (OlderSchemaError, UnfinishedStoreError) as exc:
        note(upgrade_advice(exc, place.name, upgrade_option(place, args.store)))
        return 1
    if fmt == "html":
        page = render_html(report, series, f"tiermem diagnostics: {name}")
        if out is None:  # `--out -`
            sys.stdout.write(page)
            return 0
        write_atomic(out, page, private=True)  # it quotes facts the memory holds
        print(f"wrote {out}")
        return 0
    console = TerminalConsole(stderr=fmt == "json" and out is None)
    if fmt == "text" and out is not None:  # the table is the report: printed to the file only
        recorder = TerminalConsole(file=io.StringIO(), record=True, width=console.width)
        print_text(recorder, report)
        write_atomic(out, recorder.export_text(), private=True)
        print(f"wrote {out}")
        return 0
    # The file first: a reader of standard output that goes away (`| head`) ends the run.
    if fmt == "json":
        emit_json(report, out, private=True)
    print_text(console, report)
    return 0
