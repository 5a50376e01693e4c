"""tiermem's command line: a thin shell over agent/, memory/ and scenarios/.

``tiermem --help`` lists the commands, then prints the skill card (SKILL.md).
Exit codes: 0 ok; 1 a check, a turn or an operation failed; 2 a usage error
(a bad option or policy file, an unknown agent, an output path that cannot be
written, standard output closed, or standard input closed for chat or forget -);
130 interrupted; 141 the reader of the output went away (``| head``).
With standard error closed (``2>&-``) its messages are dropped and the exit
status is the same; a command that reads no standard input runs with it closed
(``<&-``) as with it empty.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from tiermem.agent.cli_parser import COMMANDS, parse_args
from tiermem.agent.cli_parser import build_parser as build_parser  # re-exported for callers
from tiermem.agent.closed_streams import settle_closed_streams

EXIT_CODES = ("exit codes: 0 ok, 1 a check or turn failed, 2 usage error "
              "(bad option, unknown agent, unwritable output path)")
#: The status of a process whose output pipe was closed: 128 + SIGPIPE.
EXIT_BROKEN_PIPE = 141


def print_help() -> int:
    """The commands, one line each, then the skill card."""
    from tiermem.agent.skill_card import command_list, skill_file

    sys.stdout.write(command_list(COMMANDS, EXIT_CODES))
    card = skill_file()
    if card is None:
        return _fail("SKILL.md is missing from this installation; reinstall tiermem "
                     "(python -m pip install --force-reinstall tiermem)")
    sys.stdout.write(card.read_text(encoding="utf-8"))
    return 0




def _embedder(name: str) -> Any:
    from tiermem.memory import HashingEmbedder

    return HashingEmbedder() if name == "hashing" else None


def _note(message: str) -> None:
    sys.stderr.write(f"tiermem: {message}\n")


def _fail(message: str, code: int = 1) -> int:
    _note(message)
    return code


def _report_console(json_on_stdout: bool) -> Any:
    """Where the human report goes: standard error when standard output carries JSON."""
    from tiermem.agent.terminal import TerminalConsole

    return TerminalConsole(stderr=json_on_stdout)


def _note_session_settings(memory: Any, agent: str, store: str | None) -> None:
    """Say so when a flag makes this session's settings differ from the stored ones."""
    from tiermem.agent.place import store_flag
    from tiermem.agent.settings import describe_change

    stored, used = memory.stored_config().core_limit, memory.config.core_limit
    if stored != used:
        change = describe_change("core_limit", stored, used, memory.core.unit,
                                 memory.moved_on_open, "for this session")
        _note(f"{change} (`tiermem config{store_flag(store)} --agent {agent} core_limit "
              f"{used}` stores the limit)")


def cmd_chat(args: argparse.Namespace) -> int:
    from tiermem.agent.chat_history import chat_history
    from tiermem.agent.forget_command import forget_config
    from tiermem.agent.judge import ModelJudge
    from tiermem.agent.line_input import decoded_lines
    from tiermem.agent.loop import Agent
    from tiermem.agent.offline import OfflinePolicy
    from tiermem.agent.place import agent_place
    from tiermem.agent.policy_file import session_judge, session_policy
    from tiermem.agent.repl import ChatRepl
    from tiermem.agent.server_options import config_from_args, open_client
    from tiermem.agent.settings import session_embedder
    from tiermem.agent.terminal import TerminalConsole

    if sys.stdin is None:  # `<&-`
        return _fail("standard input is closed; pipe the messages to `tiermem chat`, or run "
                     "it in a terminal", 2)
    place = agent_place(args.agent, args.store)
    config = None if args.offline else config_from_args(args)
    privacy, policy_file = session_policy(place.home, args.policy)
    llm = open_client(config, _note) if config else OfflinePolicy()
    # The chat model also judges which items a forget request in an LLM mode targets.
    judge = session_judge(privacy, policy_file, llm if config else None) or (
        ModelJudge(llm) if config else None)
    if policy_file is not None:
        _note(f"privacy policy {policy_file}")
    # Piped output is read by programs: lines are not broken at 80 columns.
    console = TerminalConsole(soft_wrap=not sys.stdout.isatty())
    # --core-limit holds for this session; `tiermem config` is how a setting is stored.
    with place.in_use(_note), place.open_memory(
            core_limit=args.core_limit, embedder=session_embedder(place, args.embedder),
            store_settings=False, privacy=privacy, judge=judge,
            forget=forget_config(place.home, args.policy)) as memory:
        _note_session_settings(memory, args.agent, args.store)
        repl = ChatRepl(Agent(memory, llm), console=console, agent_name=args.agent,
                        json_lines=args.json)
        if args.json or not sys.stdin.isatty():
            return repl.run_piped(decoded_lines(sys.stdin.buffer, sys.stderr))
        return repl.run_interactive(history=chat_history(
            place.home, memory.prompt_history, not args.no_history, sys.stderr))


def cmd_config(args: argparse.Namespace) -> int:
    from tiermem.agent.place import agent_place, store_flag
    from tiermem.agent.settings import change_setting, parse_value, print_settings, read_settings
    from tiermem.memory.output_file import emit_json, output_path

    place = agent_place(args.agent, args.store, existing=True)
    json_path = output_path(args.json)
    if args.setting is not None:
        parse_value(args.setting, "")  # an unknown name is refused, naming the settings
    with place.in_use(_note):
        if args.value is not None:
            change = change_setting(place, args.setting, args.value)
        config = read_settings(place)
    if args.value is not None:
        if args.json is not None:
            emit_json({"agent": args.agent, "setting": change.name, "old": change.old,
                        "new": change.new, "moved_to_archival": change.moved_to_archival},
                       json_path)
        _report_console(args.json == "-").print(
            f"{change.describe(config.core_limit_unit)}; stored for agent {args.agent}",
            markup=False)
    else:
        # The table for people always; on standard error when the JSON takes standard output.
        print_settings(_report_console(args.json == "-"), args.agent, config, args.setting,
                       store_flag(args.store))
        if args.json is not None:
            chosen = {k: v for k, v in config.as_json().items() if args.setting in (None, k)}
            emit_json({"agent": args.agent, "settings": chosen}, json_path)
    return 0


def cmd_diagnostics(args: argparse.Namespace) -> int:
    from tiermem.agent.diagnostics_command import cmd_diagnostics as diagnostics

    return diagnostics(args, _note)


def cmd_scenario(args: argparse.Namespace) -> int:
    from tiermem.agent.home import private_files
    from tiermem.agent.place import store_option
    from tiermem.memory.output_file import emit_json, output_path
    from tiermem.scenarios import all_scenarios
    from tiermem.scenarios.render import print_day, print_result
    from tiermem.scenarios.runner import run_scenario

    if args.list and args.json is not None:
        return _fail("--list prints the scenario names as text and takes no --json; give one "
                     "of them", 2)
    if args.list and args.name is not None:
        return _fail("--list takes no scenario name; run `tiermem scenario NAME` to run one "
                     "(`tiermem scenario --list` lists them)", 2)
    scenarios = all_scenarios()
    if args.name is None and args.json in scenarios and not Path(args.json).exists():
        args.name, args.json = args.json, "-"  # `scenario --json NAME`: JSON on stdout
    if args.list or not args.name:
        for scenario in scenarios.values():
            print(f"{scenario.name:24} {scenario.description}")
        return 0 if args.list else _fail("name a scenario (see `tiermem scenario --list`)", 2)
    if args.name not in scenarios:
        return _fail(f"no scenario named {args.name!r}; choose one of {', '.join(scenarios)}", 2)
    json_path = output_path(args.json)
    store = store_option(args.store)
    llm = None
    if args.model or args.base_url:
        from tiermem.agent.server_options import config_from_args, open_client

        config = config_from_args(args)
        llm = open_client(config, _note) if config else None
    console = _report_console(args.json == "-")
    with private_files():
        result = run_scenario(scenarios[args.name], llm=llm, embedder=_embedder(args.embedder),
                              on_day=lambda day: print_day(console, day), store=store)
    print_result(console, result)
    if args.json is not None:
        emit_json(result.to_dict(), json_path)
    return 0 if result.passed else 1


def cmd_benchmark(args: argparse.Namespace) -> int:
    import time

    from tiermem.bench.battery import run_battery, select_checks
    from tiermem.bench.report import print_done, print_report, print_start, report_json
    from tiermem.memory.output_file import emit_json, output_path
    from tiermem.memory.tiers.policies import make_policy

    if args.faults:
        return cmd_faults(args)
    if args.perf and args.only:
        # The comparisons build on one another's stores (the step and cold start reuse the
        # archival ones), so a perf run measures them all rather than a chosen few.
        return _fail("--only picks battery checks and --perf runs every performance "
                     "comparison; give one of them (--perf --quick, or smaller --sizes, for a "
                     "shorter perf run)", 2)
    try:
        select_checks(args.only)
        make_policy(args.policy)
    except ValueError as exc:
        return _fail(str(exc), 2)
    json_path = output_path(args.json)
    if args.perf or args.sizes or args.recall_dense:
        if not args.perf:
            return _fail("--sizes and --recall-dense go with --perf", 2)
        from tiermem.bench.perf import main as perf_main

        return perf_main(args.sizes, quick=args.quick, json_path=json_path, seed=args.seed,
                         recall_dense=args.recall_dense, json_stdout=args.json == "-")
    console = _report_console(args.json == "-")
    start = time.perf_counter()
    results = run_battery(seed=args.seed, quick=args.quick, only=args.only, policy=args.policy,
                          on_start=lambda *a: print_start(console, *a),
                          on_result=lambda *a: print_done(console, *a))
    seconds = time.perf_counter() - start
    print_report(console, results, seconds)
    if args.json is not None:
        emit_json(report_json(results, seed=args.seed, quick=args.quick, policy=args.policy,
                               seconds=round(seconds, 2)), json_path)
    return 0 if all(r.passed for r in results) else 1


def cmd_faults(args: argparse.Namespace) -> int:
    from tiermem.bench.faults import main, select_classes

    if args.perf or args.sizes or args.recall_dense:
        return _fail("--faults and --perf are separate runs; give one of them", 2)
    try:
        select_classes(args.only)
    except ValueError as exc:
        return _fail(str(exc), 2)
    from tiermem.memory.output_file import output_path

    json_path = output_path(args.json)
    return main(seed=args.seed, quick=args.quick, json_path=json_path, only=args.only,
                json_stdout=args.json == "-")


def cmd_eval(args: argparse.Namespace) -> int:
    from tiermem.evals.runner import run_command

    try:
        return run_command(args, _report_console(args.json == "-"))
    except ValueError as exc:  # bad data, configuration name or option
        return _fail(str(exc), 2)


def cmd_doctor(args: argparse.Namespace) -> int:
    from tiermem.agent.doctor_render import doctor_main

    return doctor_main(args.base_url, args.model, args.timeout, args.json,
                       _report_console(args.json == "-"))


def cmd_reindex(args: argparse.Namespace) -> int:
    from tiermem.agent.place import agent_place
    from tiermem.memory import HierarchicalMemory

    place = agent_place(args.agent, args.store, existing=True)
    embedder = _embedder(args.embedder)
    where = ({"store": place.dsn, "agent": place.name} if place.dsn is not None
             else {"path": place.home})
    with place.in_use(_note), HierarchicalMemory.reindex(embedder=embedder, **where) as memory:
        print(f"re-embedded {len(memory.archival)} passages and the recall log "
              f"with {memory.embedder.id}")
    return 0


def cmd_index(args: argparse.Namespace) -> int:
    from tiermem.agent.index_command import cmd_index as index

    return index(args, _note)


def cmd_pg(args: argparse.Namespace) -> int:
    from tiermem.memory.store.postgres.local_server import LocalPostgres, default_data_dir

    server = LocalPostgres(args.dir or default_data_dir())
    if args.action == "start":
        dsn = server.start()
        print(dsn)
        _note(f"PostgreSQL runs on {server.data_dir}; use it with `export TIERMEM_STORE="
              f"'{dsn}'` or --store, stop it with `tiermem pg stop"
              + (f" --dir {args.dir}`" if args.dir else "`"))
        return 0
    if args.action == "stop":
        if not server.stop():
            _note(f"no server was running on {server.data_dir}")
        return 0
    status = server.status()
    if status is None or not status.ready:
        return _fail(f"no server is running on {server.data_dir}" + (
            "" if status is None else " yet (it is starting)") + "; start one with "
            "`tiermem pg start" + (f" --dir {args.dir}`" if args.dir else "`"))
    print(status.dsn)
    return 0


def cmd_migrate(args: argparse.Namespace) -> int:
    from tiermem.memory.store.opening import is_dsn
    from tiermem.memory.store.transfer import migrate, open_backend

    agent = args.agent
    if agent is None:
        homes = [p for p in (args.source, args.target) if not is_dsn(p)]
        if not homes:
            return _fail("name the agent to move between the databases with --agent", 2)
        agent = Path(homes[0]).expanduser().name

    def progress(table: str, done: int, total: int) -> None:
        if done == total or done % 50_000 == 0:
            _note(f"{table}: {done:,} of {total:,} rows")

    source = open_backend(args.source, agent, read_only=True)
    try:
        target = open_backend(args.target, agent, read_only=False)
        try:
            report = migrate(source, target, progress)
        finally:
            target.close()
    finally:
        source.close()
    rows = ", ".join(f"{n:,} {t}" for t, n in report.rows.items())
    print(f"moved agent {agent}: {rows}, {report.settings} settings; content hash "
          f"{report.digest[:16]} matches")
    return 0


def cmd_forget(args: argparse.Namespace) -> int:
    from tiermem.agent.forget_command import cmd_forget as forget

    return forget(args, _note)


HANDLERS: dict[str, Callable[[argparse.Namespace], int]] = {
    "chat": cmd_chat, "config": cmd_config, "diagnostics": cmd_diagnostics,
    "scenario": cmd_scenario, "benchmark": cmd_benchmark, "eval": cmd_eval,
    "reindex": cmd_reindex, "index": cmd_index, "doctor": cmd_doctor, "pg": cmd_pg,
    "migrate": cmd_migrate,
    "forget": cmd_forget,
}


def run(argv: Sequence[str]) -> int:
    """One command; the exit status (see the module docstring)."""
    argv = list(argv)
    if not argv or argv[0] in ("-h", "--help", "help"):
        return print_help()
    if argv[0] in ("-V", "--version"):
        from tiermem.agent.skill_card import version

        print(f"tiermem {version()}")
        return 0
    args = parse_args(argv)
    handler = HANDLERS.get(args.command)
    if handler is None:
        return _fail("name a command: " + ", ".join(COMMANDS) + " (tiermem --help)", code=2)
    from tiermem.agent.home import NoSuchAgentError
    from tiermem.agent.place import StoreOptionError
    from tiermem.memory.errors import InvalidConfigError, TiermemError
    from tiermem.memory.output_file import OutputPathError

    try:
        return handler(args)
    except (NoSuchAgentError, OutputPathError, StoreOptionError) as exc:
        return _fail(str(exc), 2)
    except InvalidConfigError as exc:
        # Before any work: a policy file or a setting given is a bad value (usage).
        return _fail(str(exc), 2 if args.command in ("chat", "config", "forget") else 1)
    except TiermemError as exc:
        return _fail(str(exc))


def main(argv: Sequence[str] | None = None) -> int:
    """The ``tiermem`` entry point."""
    settle_closed_streams()  # before anything opens a file onto a closed descriptor
    if sys.stdout is None:  # `>&-`: every report would be lost
        return _fail("standard output is closed; redirect it to a file, or to /dev/null to "
                     "discard it", 2)
    try:
        code = run(sys.argv[1:] if argv is None else argv)
        sys.stdout.flush()  # a closed pipe shows here, not as a warning at exit
        return code
    except BrokenPipeError:
        # The reader (`| head`) has gone: stop quietly, as other command-line tools do.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    except SystemExit as exc:
        # rich's Console meets a closed pipe by pointing stdout at devnull and raising
        # SystemExit(1) from the BrokenPipeError: the same case as above.
        if isinstance(exc.__context__, BrokenPipeError):
            return EXIT_BROKEN_PIPE
        raise
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
