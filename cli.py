"""tiermem's command line: a thin shell over agent/, memory/ and scenarios/.

``tiermem --help`` lists the commands, then prints the skill card (SKILL.md).
Exit codes: 0 ok; 1 a check, a turn or an operation failed; 2 a usage error
(a bad option, an unknown agent, an output path that cannot be written);
130 interrupted; 141 the reader of the output went away (``| head``).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

#: Each command and what it does, in the order ``tiermem --help`` lists them.
COMMANDS = {
    "chat": "chat with an agent that remembers (offline unless a model is configured)",
    "config": "show an agent's stored memory settings, or change one",
    "diagnostics": "memory health report of an agent: table, JSON or HTML with charts",
    "scenario": "run a scripted multi-day scenario through the agent and check its answers",
    "benchmark": "the verification battery: pass/fail per invariant (--perf: performance)",
    "eval": "retrieval and QA evaluation on LoCoMo",
    "reindex": "re-embed an agent's memory with another embedder",
    "index": "build and save the vector search graph of an agent past 200,000 vectors",
    "doctor": "probe a model server: can the memory agent work with it, and what to change",
    "pg": "start, stop or check a local PostgreSQL server for --store postgresql://...",
    "migrate": "move an agent's memory between an agent home and PostgreSQL, verified",
    "forget": "forget the facts, passages and messages a request targets (audited)",
}
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


def build_parser() -> argparse.ArgumentParser:
    from tiermem.agent.server_options import add_server_options, positive_int, positive_seconds

    parser = argparse.ArgumentParser(prog="tiermem", add_help=False)
    sub = parser.add_subparsers(dest="command")
    embedder_help = "local MiniLM model (default) or the model-free hashing embedder"

    chat = sub.add_parser("chat", help=COMMANDS["chat"], description=COMMANDS["chat"])
    chat.add_argument("--agent", default="default", type=_agent_name,
                      help="agent name; a new name creates the agent (default: default)")
    chat.add_argument("--model", help="model name; or set TIERMEM_MODEL")
    chat.add_argument("--base-url", help="OpenAI-compatible endpoint; or set OPENAI_BASE_URL")
    chat.add_argument("--offline", action="store_true",
                      help="use the rule-based offline policy even if a model is configured")
    add_server_options(chat)
    chat.add_argument("--core-limit", type=positive_int, metavar="N",
                      help="core capacity for this session only (default: the agent's stored "
                           "value, 2000 tokens for a new agent; `tiermem config --agent NAME "
                           "core_limit N` stores one)")
    chat.add_argument("--embedder", choices=("local", "hashing"), default="local",
                      help=embedder_help)
    chat.add_argument("--json", action="store_true",
                      help="for scripts: read one message or /command per line of standard "
                           "input and print one JSON object per line (reply, tool calls, "
                           "memory changes, error) and nothing else")
    chat.add_argument("--policy", metavar="FILE",
                      help="a policy file (YAML: rules, retention, recall, forget) for this "
                           "session; by default the agent home's policy.yaml, when there is one")
    chat.add_argument("--no-history", action="store_true",
                      help="keep no prompt history for the up arrow (by default it is kept in "
                           "the agent's database)")
    _add_store(chat)

    config = sub.add_parser("config", help=COMMANDS["config"], description=COMMANDS["config"])
    config.add_argument("--agent", default="default", type=_agent_name,
                        help="an existing agent (default: default)")
    config.add_argument("setting", nargs="?",
                        help="one setting to show, e.g. core_limit (default: all of them)")
    config.add_argument("value", nargs="?",
                        help="its new value, validated and stored for every later session")
    _add_json(config, "the settings")
    _add_store(config)

    diag = sub.add_parser("diagnostics", help=COMMANDS["diagnostics"],
                          description=COMMANDS["diagnostics"])
    where = diag.add_mutually_exclusive_group()
    where.add_argument("--agent", default="default", type=_agent_name,
                       help="an existing agent (default: default)")
    where.add_argument("--scenario", help="report on the last run of this scenario instead")
    diag.add_argument("--format", choices=("text", "json", "html"), default="text",
                      help="a table (default), JSON, or an HTML page with charts")
    diag.add_argument("--out", type=Path, metavar="PATH",
                      help="write the report to this file (html: default NAME-diagnostics.html)")
    _add_json(diag, "the report (the same as --format json)")
    diag.add_argument("--embedder", choices=("local", "hashing"), default="local",
                      help="the embedder the agent was built with: " + embedder_help)
    _add_store(diag)

    scen = sub.add_parser("scenario", help=COMMANDS["scenario"], description=COMMANDS["scenario"])
    scen.add_argument("name", nargs="?", help="scenario name (see --list)")
    scen.add_argument("--list", action="store_true", help="list the scenarios")
    scen.add_argument("--model", help="drive it with this model instead of the offline policy")
    scen.add_argument("--base-url", help="OpenAI-compatible endpoint for --model")
    add_server_options(scen)
    scen.add_argument("--embedder", choices=("local", "hashing"), default="local",
                      help=embedder_help)
    _add_json(scen, "the result")
    _add_store(scen, "run it in this PostgreSQL database (as agent scenario-NAME, replaced "
                     "each run)")

    bench = sub.add_parser("benchmark", help=COMMANDS["benchmark"],
                           description=COMMANDS["benchmark"])
    bench.add_argument("--seed", type=int, default=0, help="workload seed (default 0)")
    bench.add_argument("--quick", action="store_true",
                       help="fewer crash kills and smaller timing sizes")
    bench.add_argument("--only", action="append", metavar="NAME",
                       help="run only this check (with --faults, this fault class); repeat it "
                            "or give a comma list")
    _add_json(bench, "the results")
    bench.add_argument("--policy", default="freq_recency_durable",
                       help="the eviction policy under test (default freq_recency_durable)")
    bench.add_argument("--perf", action="store_true",
                       help="performance comparison against ChromaDB and this machine's limits")
    bench.add_argument("--sizes", metavar="N,N",
                       help="--perf: archival sizes; recall and core sizes follow (default "
                            "10000,100000)")
    bench.add_argument("--recall-dense", action="store_true",
                       help="--perf: also measure recall with a vector per message (the "
                            "default for agents), not only full-text search")
    bench.add_argument("--faults", action="store_true",
                       help="the fault harness: SIGKILLs, a full disk, damaged files, fuzzing "
                            "and provider chaos; exit 1 if any class crashes, loses or diverges")

    from tiermem.evals.runner import add_locomo_parser

    add_locomo_parser(sub.add_parser("eval", help=COMMANDS["eval"],
                                     description=COMMANDS["eval"]))

    reindex = sub.add_parser("reindex", help=COMMANDS["reindex"], description=COMMANDS["reindex"])
    reindex.add_argument("--agent", default="default", type=_agent_name,
                         help="an existing agent (default: default)")
    reindex.add_argument("--embedder", choices=("local", "hashing"), default="local",
                         help="the embedder to re-embed with: " + embedder_help)
    _add_store(reindex)

    index = sub.add_parser(
        "index", help=COMMANDS["index"],
        description=COMMANDS["index"] + ", with its progress (otherwise the first search "
        "builds it in the background, and a session that ends sooner never saves it)",
        epilog="exit codes: 0 every graph needed is built and saved (or none is needed), "
               "1 one could not be built, 2 usage error")
    index.add_argument("--agent", default="default", type=_agent_name,
                       help="an existing agent (default: default)")
    _add_json(index, "what was built")
    _add_store(index)

    doctor = sub.add_parser("doctor", help=COMMANDS["doctor"], description=COMMANDS["doctor"],
                            epilog="exit codes: 0 the memory agent can work with this server "
                                   "and model, 1 it cannot, 2 usage error")
    doctor.add_argument("--base-url", help="the server's OpenAI-compatible endpoint, e.g. "
                                           "http://127.0.0.1:8080/v1; or set OPENAI_BASE_URL")
    doctor.add_argument("--model", help="the model to probe; or set TIERMEM_MODEL (default: "
                                        "the first model the server lists)")
    doctor.add_argument("--timeout", type=positive_seconds, metavar="SECONDS",
                        help="seconds each probe may take (default 20); the probes stop "
                             "starting after 55 s in all")
    _add_json(doctor, "the report")

    pg = sub.add_parser("pg", help=COMMANDS["pg"], description=COMMANDS["pg"],
                        epilog="start prints the server's DSN; exit codes: 0 done (status: "
                               "running), 1 failed (status: not running)")
    pg.add_argument("action", choices=("start", "stop", "status"),
                    help="start the server (creating it the first time) and print its DSN, "
                         "stop it, or print its DSN if it is running")
    pg.add_argument("--dir", type=Path, metavar="PATH",
                    help="the server's data directory (default: $TIERMEM_HOME/postgres; "
                         "for root /var/lib/tiermem/postgres)")

    migrate = sub.add_parser("migrate", help=COMMANDS["migrate"],
                             description=COMMANDS["migrate"] + ". The source is only read; "
                             "the copy is checked (row counts and a content hash) before it "
                             "is committed.")
    migrate.add_argument("--from", dest="source", required=True, metavar="PATH|DSN",
                         help="an agent home directory, or a postgresql:// DSN")
    migrate.add_argument("--to", dest="target", required=True, metavar="PATH|DSN",
                         help="a new agent home directory, or a postgresql:// DSN")
    migrate.add_argument("--agent", type=_agent_name,
                         help="the agent's name in the database (default: the name of the "
                              "agent home directory)")

    from tiermem.agent.forget_command import add_forget_parser

    _add_store(add_forget_parser(sub, COMMANDS["forget"], _agent_name))
    return parser


def _add_store(parser: argparse.ArgumentParser,
               what: str = "keep the agent in this PostgreSQL database") -> None:
    parser.add_argument("--store", metavar="DSN",
                        help=f"{what} instead of its home directory: a postgresql:// DSN "
                             f"(`tiermem pg start` prints one for a local server); or set "
                             f"TIERMEM_STORE")


def _add_json(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument("--json", nargs="?", const="-", metavar="PATH",
                        help=f"{what} as JSON: on standard output (the human report then goes "
                             f"to standard error), or written to PATH")


def _agent_name(text: str) -> str:
    from tiermem.memory.errors import InvalidInputError
    from tiermem.memory.validation import validate_agent_name

    try:
        return validate_agent_name(text)
    except InvalidInputError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


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
    from rich.console import Console

    return Console(stderr=json_on_stdout)


def _note_session_settings(memory: Any, agent: str) -> None:
    """Say so when a flag makes this session's settings differ from the stored ones."""
    from tiermem.agent.settings import describe_change

    stored, used = memory.stored_config().core_limit, memory.config.core_limit
    if stored != used:
        change = describe_change("core_limit", stored, used, memory.core.unit,
                                 memory.moved_on_open, "for this session")
        _note(f"{change} (`tiermem config --agent {agent} core_limit {used}` stores the limit)")


def cmd_chat(args: argparse.Namespace) -> int:
    from rich.console import Console

    from tiermem.agent.chat_history import chat_history
    from tiermem.agent.forget_command import forget_config
    from tiermem.agent.judge import ModelJudge
    from tiermem.agent.loop import Agent
    from tiermem.agent.offline import OfflinePolicy
    from tiermem.agent.place import agent_place
    from tiermem.agent.policy_file import session_judge, session_policy
    from tiermem.agent.repl import ChatRepl, decoded_lines
    from tiermem.agent.server_options import config_from_args, open_client

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
    console = Console(soft_wrap=not sys.stdout.isatty())
    # --core-limit holds for this session; `tiermem config` is how a setting is stored.
    with place.in_use(_note), place.open_memory(
            core_limit=args.core_limit, embedder=_embedder(args.embedder),
            store_settings=False, privacy=privacy, judge=judge,
            forget=forget_config(place.home, args.policy)) as memory:
        _note_session_settings(memory, args.agent)
        repl = ChatRepl(Agent(memory, llm), console=console, agent_name=args.agent,
                        json_lines=args.json)
        if args.json or not sys.stdin.isatty():
            return repl.run_piped(decoded_lines(sys.stdin.buffer, sys.stderr))
        return repl.run_interactive(history=chat_history(
            place.home, memory.prompt_history, not args.no_history, sys.stderr))


def cmd_config(args: argparse.Namespace) -> int:
    from tiermem.agent.place import agent_place
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
    elif args.json is not None:
        values = config.as_json()
        chosen = {k: v for k, v in values.items() if args.setting in (None, k)}
        emit_json({"agent": args.agent, "settings": chosen}, json_path)
    else:
        print_settings(_report_console(False), args.agent, config, args.setting)
    return 0


def cmd_diagnostics(args: argparse.Namespace) -> int:
    from tiermem.agent.place import AgentPlace, agent_place, store_option
    from tiermem.memory.ops.report import history_series, print_text, render_html
    from tiermem.memory.output_file import emit_json, output_path, write_atomic
    from tiermem.memory.store.sqlite import DB_FILE
    from tiermem.scenarios.runner import scenario_agent, scenario_home

    fmt = "json" if args.json is not None else args.format
    name = args.scenario or args.agent
    target = args.out or (None if args.json in (None, "-") else args.json)
    if fmt == "html" and target is None:
        target = f"{name}-diagnostics.html"
    out = output_path(None if target is None else str(target))
    dsn = store_option(args.store)
    if args.scenario and dsn is not None:
        place = AgentPlace(scenario_agent(args.scenario), scenario_home(args.scenario), dsn)
    elif args.scenario:
        place = AgentPlace(args.scenario, scenario_home(args.scenario))
        if not (place.home / DB_FILE).exists():
            return _fail(f"no memory at {place.home}; create it with `tiermem scenario "
                         f"{args.scenario}`", 2)
    else:
        place = agent_place(args.agent, dsn, existing=True)
    # Read-only: no writer lock, so a report can be taken while a chat is running.
    with place.in_use(_note), place.open_memory(
            embedder=_embedder(args.embedder), read_only=True) as memory:
        report = memory.diagnostics()
        series = history_series(memory)
    if fmt == "text":
        from rich.console import Console

        console = Console(record=out is not None)
        print_text(console, report)
        if out is not None:
            write_atomic(out, console.export_text())
        return 0
    if fmt == "html" and out is not None:  # html always has a file
        write_atomic(out, render_html(report, series, f"tiermem diagnostics: {name}"))
        print(f"wrote {out}")
        return 0
    emit_json(report, out)
    return 0


def cmd_scenario(args: argparse.Namespace) -> int:
    from tiermem.agent.home import private_files
    from tiermem.agent.place import store_option
    from tiermem.memory.output_file import emit_json, output_path
    from tiermem.scenarios import all_scenarios
    from tiermem.scenarios.render import print_day, print_result
    from tiermem.scenarios.runner import run_scenario

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
    args = build_parser().parse_args(argv)
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
        return _fail(str(exc), 2 if args.command in ("config", "forget") else 1)
    except TiermemError as exc:
        return _fail(str(exc))


def main(argv: Sequence[str] | None = None) -> int:
    """The ``tiermem`` entry point."""
    try:
        code = run(sys.argv[1:] if argv is None else argv)
        sys.stdout.flush()  # a closed pipe shows here, not as a warning at exit
        return code
    except BrokenPipeError:
        # The reader (`| head`) has gone: stop quietly, as other command-line tools do.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
