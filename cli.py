"""tiermem's command line: a thin shell over agent/, memory/ and scenarios/.

``python cli.py --help`` (or ``tiermem --help``) prints SKILL.md.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

COMMANDS = ("chat", "diagnostics", "benchmark", "scenario", "eval", "reindex")


def skill_file() -> Path | None:
    """SKILL.md beside this module (a checkout) or in <prefix>/share/tiermem (an install)."""
    for candidate in (Path(__file__).with_name("SKILL.md"),
                      Path(sys.prefix, "share", "tiermem", "SKILL.md")):
        if candidate.exists():
            return candidate
    return None


def print_skill() -> int:
    card = skill_file()
    if card is None:
        return _fail("SKILL.md is missing from this installation; reinstall tiermem "
                     "(python -m pip install --force-reinstall tiermem)")
    sys.stdout.write(card.read_text(encoding="utf-8"))
    sys.stdout.write("\nCommands: " + ", ".join(COMMANDS) + " (COMMAND --help for options)\n")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tiermem", add_help=False)
    sub = parser.add_subparsers(dest="command")

    chat = sub.add_parser("chat", help="chat with an agent that remembers")
    chat.add_argument("--agent", default="default", help="agent name (default: default)")
    chat.add_argument("--model", help="model name; or set TIERMEM_MODEL")
    chat.add_argument("--base-url", help="OpenAI-compatible endpoint; or set OPENAI_BASE_URL")
    chat.add_argument("--offline", action="store_true",
                      help="use the rule-based offline policy even if a model is configured")
    chat.add_argument("--core-limit", type=_positive_int,
                      help="core capacity (default 2000 tokens)")
    chat.add_argument("--embedder", choices=("local", "hashing"), default="local",
                      help="local MiniLM model (default) or the model-free hashing embedder")

    diag = sub.add_parser("diagnostics", help="memory health report of an agent home")
    where = diag.add_mutually_exclusive_group()
    where.add_argument("--agent", default="default", help="agent name (default: default)")
    where.add_argument("--scenario", help="report on the last run of this scenario instead")
    diag.add_argument("--format", choices=("text", "json", "html"), default="text")
    diag.add_argument("--out", type=Path, help="write the report to this file")
    diag.add_argument("--embedder", choices=("local", "hashing"), default="local")

    scen = sub.add_parser("scenario", help="run a scripted multi-day scenario through the agent")
    scen.add_argument("name", nargs="?", help="scenario name (see --list)")
    scen.add_argument("--list", action="store_true", help="list the scenarios")
    scen.add_argument("--model", help="drive it with this model instead of the offline policy")
    scen.add_argument("--base-url", help="OpenAI-compatible endpoint for --model")
    scen.add_argument("--embedder", choices=("local", "hashing"), default="local")
    scen.add_argument("--json", type=Path, help="also write the result as JSON here")

    bench = sub.add_parser("benchmark", help="the verification battery: pass/fail per invariant")
    bench.add_argument("--seed", type=int, default=0, help="workload seed (default 0)")
    bench.add_argument("--quick", action="store_true",
                       help="fewer crash kills and smaller timing sizes")
    bench.add_argument("--only", action="append", metavar="NAME",
                       help="run only this check (with --faults, this fault class); repeat it "
                            "or give a comma list")
    bench.add_argument("--json", type=Path, metavar="PATH", help="also write the results here")
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

    _add_eval_parser(sub)

    reindex = sub.add_parser("reindex", help="re-embed an agent's memory with another embedder")
    reindex.add_argument("--agent", default="default")
    reindex.add_argument("--embedder", choices=("local", "hashing"), default="local")
    return parser


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive number of tokens, not {value}")
    return value


def _embedder(name: str) -> Any:
    from memory import HashingEmbedder

    return HashingEmbedder() if name == "hashing" else None


def _fail(message: str, code: int = 1) -> int:
    sys.stderr.write(f"tiermem: {message}\n")
    return code


def cmd_chat(args: argparse.Namespace) -> int:
    from agent.config import resolve_llm_config
    from agent.home import agent_home
    from agent.loop import Agent
    from agent.offline import OfflinePolicy
    from agent.openai_client import OpenAIClient
    from agent.repl import ChatRepl
    from memory import HierarchicalMemory

    home = agent_home(args.agent)
    config = None if args.offline else resolve_llm_config(args.model, args.base_url)
    llm = OpenAIClient.from_config(config) if config else OfflinePolicy()
    with HierarchicalMemory(home, core_limit=args.core_limit,
                            embedder=_embedder(args.embedder)) as memory:
        repl = ChatRepl(Agent(memory, llm), agent_name=args.agent)
        if sys.stdin.isatty():
            return repl.run_interactive(history_file=home / "history")
        return repl.run_piped(sys.stdin)


def cmd_diagnostics(args: argparse.Namespace) -> int:
    from agent.home import agent_home
    from memory import HierarchicalMemory
    from memory.report import history_series, print_text, render_html
    from scenarios.runner import scenario_home

    home = scenario_home(args.scenario) if args.scenario else agent_home(args.agent)
    if not (home / "memory.sqlite3").exists():
        hint = (f"`tiermem scenario {args.scenario}`" if args.scenario
                else f"`tiermem chat --agent {args.agent}`")
        return _fail(f"no memory at {home}; create it with {hint}")
    # Read-only: no writer lock, so a report can be taken while a chat is running.
    with HierarchicalMemory(home, embedder=_embedder(args.embedder), read_only=True) as memory:
        report = memory.diagnostics()
        series = history_series(memory)
    title = f"tiermem diagnostics: {args.scenario or args.agent}"
    if args.format == "text":
        from rich.console import Console

        console = Console(record=args.out is not None)
        print_text(console, report)
        if args.out:
            args.out.write_text(console.export_text())
        return 0
    if args.format == "html":
        out = args.out or Path(f"{args.scenario or args.agent}-diagnostics.html")
        out.write_text(render_html(report, series, title), encoding="utf-8")
        print(f"wrote {out}")
        return 0
    text = json.dumps(report, indent=2, default=str)
    if args.out:
        args.out.write_text(text)
    else:
        sys.stdout.write(text + "\n")
    return 0


def cmd_scenario(args: argparse.Namespace) -> int:
    from rich.console import Console

    from scenarios import all_scenarios
    from scenarios.render import print_day, print_result
    from scenarios.runner import run_scenario

    scenarios = all_scenarios()
    if args.list or not args.name:
        for scenario in scenarios.values():
            print(f"{scenario.name:24} {scenario.description}")
        return 0 if args.list else _fail("name a scenario (see `tiermem scenario --list`)", 2)
    if args.name not in scenarios:
        return _fail(f"no scenario named {args.name!r}; choose one of {', '.join(scenarios)}", 2)
    llm = None
    if args.model or args.base_url:
        from agent.config import resolve_llm_config
        from agent.openai_client import OpenAIClient

        config = resolve_llm_config(args.model, args.base_url)
        llm = OpenAIClient.from_config(config) if config else None
    console = Console()
    result = run_scenario(scenarios[args.name], llm=llm, embedder=_embedder(args.embedder),
                          on_day=lambda day: print_day(console, day))
    print_result(console, result)
    if args.json:
        args.json.write_text(json.dumps(result.to_dict(), indent=2))
    return 0 if result.passed else 1


def cmd_benchmark(args: argparse.Namespace) -> int:
    import time

    from rich.console import Console

    from bench.battery import run_battery, select_checks
    from bench.report import print_done, print_report, print_start, write_json
    from memory.policies import make_policy

    if args.faults:
        return cmd_faults(args)
    try:
        select_checks(args.only)
        make_policy(args.policy)
    except ValueError as exc:
        return _fail(str(exc), 2)
    if args.json and not args.json.parent.is_dir():
        return _fail(f"cannot write {args.json}: {args.json.parent} is not a directory", 2)
    if args.perf or args.sizes or args.recall_dense:
        if not args.perf:
            return _fail("--sizes and --recall-dense go with --perf", 2)
        from bench.perf import main as perf_main

        return perf_main(args.sizes, quick=args.quick, json_path=args.json, seed=args.seed,
                         recall_dense=args.recall_dense)
    console = Console()
    start = time.perf_counter()
    results = run_battery(seed=args.seed, quick=args.quick, only=args.only, policy=args.policy,
                          on_start=lambda *a: print_start(console, *a),
                          on_result=lambda *a: print_done(console, *a))
    seconds = time.perf_counter() - start
    print_report(console, results, seconds)
    if args.json:
        write_json(args.json, results, seed=args.seed, quick=args.quick, policy=args.policy,
                   seconds=round(seconds, 2))
    return 0 if all(r.passed for r in results) else 1


def cmd_faults(args: argparse.Namespace) -> int:
    from bench.faults import main, select_classes

    if args.perf or args.sizes or args.recall_dense:
        return _fail("--faults and --perf are separate runs; give one of them", 2)
    try:
        select_classes(args.only)
    except ValueError as exc:
        return _fail(str(exc), 2)
    if args.json and not args.json.parent.is_dir():
        return _fail(f"cannot write {args.json}: {args.json.parent} is not a directory", 2)
    return main(seed=args.seed, quick=args.quick, json_path=args.json, only=args.only)


def _add_eval_parser(sub: Any) -> None:
    evaluate = sub.add_parser("eval", help="retrieval and QA evaluation (LoCoMo)")
    benchmarks = evaluate.add_subparsers(dest="benchmark", required=True)
    loc = benchmarks.add_parser(
        "locomo", help="LoCoMo: evidence recall@k per memory configuration, or QA with a model")
    loc.add_argument("--data", nargs="+", metavar="DIR_OR_FILE",
                     help="LoCoMo JSON files, or directories of them")
    loc.add_argument("--k", default="1,5,10,20", help="cut-offs for recall@k (default 1,5,10,20)")
    loc.add_argument("--config", action="extend", nargs="+", metavar="NAME",
                     help="configurations to compare (default bm25 dense hybrid hierarchy; "
                          "'ablation' or 'all' for more; see --list-configs)")
    loc.add_argument("--list-configs", action="store_true", help="list the configurations")
    loc.add_argument("--json", type=Path, metavar="PATH",
                     help="write the report here, updated after each finished part")
    loc.add_argument("--resume", action="store_true",
                     help="reuse the finished parts of the --json report")
    loc.add_argument("--limit", type=int, metavar="N",
                     help="only the first N questions of each conversation (in retrieval "
                          "mode, of those with evidence)")
    loc.add_argument("--conversations", metavar="IDS", help="comma list of ids, e.g. 26,30")
    loc.add_argument("--mode", choices=("retrieval", "qa"), default="retrieval")
    loc.add_argument("--model", help="QA: model name; or set TIERMEM_MODEL")
    loc.add_argument("--base-url", help="QA: OpenAI-compatible endpoint; or set OPENAI_BASE_URL")
    loc.add_argument("--judge", action="store_true", help="QA: also have the model judge answers")
    loc.add_argument("--embedder", choices=("local", "hashing"), default="local")


def cmd_eval(args: argparse.Namespace) -> int:
    from rich.console import Console

    from evals.configs import CONFIGS, DEFAULT_CONFIGS
    from evals.runner import EvalOptions, parse_ks, run_locomo

    if args.list_configs:
        for config in CONFIGS.values():
            mark = "*" if config.name in DEFAULT_CONFIGS else " "
            print(f"{mark} {config.name:26} {config.description}")
        return 0
    if not args.data:
        return _fail("eval locomo needs --data DIR_OR_FILE (e.g. the LoCoMo JSON files)", 2)
    if args.resume and args.json is None:
        return _fail("--resume needs --json PATH (the report to resume)", 2)
    if args.limit is not None and args.limit < 1:
        return _fail(f"--limit must be at least 1, not {args.limit}", 2)
    try:
        options = EvalOptions(
            data=args.data, ks=parse_ks(args.k), mode=args.mode, json_path=args.json,
            configs=[n for item in args.config or [] for n in item.split(",") if n],
            conversations=[c for c in (args.conversations or "").split(",") if c],
            limit=args.limit, embedder=args.embedder, resume=args.resume, model=args.model,
            base_url=args.base_url, judge=args.judge)
        run_locomo(options, Console())
    except ValueError as exc:  # bad data, configuration name or option
        return _fail(str(exc), 2)
    return 0


def cmd_reindex(args: argparse.Namespace) -> int:
    from agent.home import agent_home
    from memory import HierarchicalMemory

    home = agent_home(args.agent)
    embedder = _embedder(args.embedder)
    with HierarchicalMemory.reindex(home, embedder) as memory:
        print(f"re-embedded {len(memory.archival)} passages and the recall log "
              f"with {memory.embedder.id}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help", "help"):
        return print_skill()
    parser = build_parser()
    args = parser.parse_args(argv)
    handlers = {"chat": cmd_chat, "diagnostics": cmd_diagnostics, "reindex": cmd_reindex,
                "scenario": cmd_scenario, "benchmark": cmd_benchmark, "eval": cmd_eval}
    handler = handlers.get(args.command)
    if handler is None:
        return _fail("name a command: " + ", ".join(COMMANDS) + " (tiermem --help)", code=2)
    from memory.errors import TiermemError

    try:
        return handler(args)
    except TiermemError as exc:
        return _fail(str(exc))
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
