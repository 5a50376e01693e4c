"""The ``tiermem eval locomo`` command: its options, their checks, and the run they start.

The runs themselves are ``tiermem.evals.runner``'s; this module only turns a command line
into ``EvalOptions`` and a usage mistake into a ValueError that names the fix.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from tiermem.evals.embedders import EMBEDDERS, make_embedder
from tiermem.evals.report import kept_note, resumable_units
from tiermem.evals.runner import K_DEFAULT, EvalOptions, parse_ks, run_locomo
from tiermem.user_paths import expanded


def add_locomo_parser(evaluate: Any) -> None:
    """The options of ``tiermem eval locomo`` (``evaluate``: the ``eval`` command's parser)."""
    from tiermem.agent.cli_values import BASE_URL, MODEL_NAME, any_case, given
    from tiermem.agent.server_options import add_server_options, core_limit

    # Not required here: tiermem.agent.cli_parser.parse_args says what to run instead of
    # argparse's "required: benchmark".
    benchmarks = evaluate.add_subparsers(dest="benchmark", metavar="BENCHMARK")
    loc = benchmarks.add_parser(
        "locomo", help="LoCoMo: evidence recall@k per memory configuration, or QA with a model")
    loc.add_argument("--data", nargs="+", metavar="DIR_OR_FILE",
                     type=given("LoCoMo JSON files or directories of them"),
                     help="LoCoMo JSON files, or directories of them (a file named twice is read "
                          "once; two conversations with one id are refused)")
    loc.add_argument("--k", default=K_DEFAULT,
                     help=f"retrieval: cut-offs for recall@k (default {K_DEFAULT})")
    loc.add_argument("--config", action="extend", nargs="+", metavar="NAME",
                     help="configurations to compare (default bm25 dense hybrid hierarchy; "
                          "'ablation' or 'all' for more; see --list-configs)")
    loc.add_argument("--list-configs", action="store_true", help="list the configurations")
    loc.add_argument("--json", nargs="?", const="-", metavar="PATH",
                     help="the report as JSON: on standard output at the end (the tables then "
                          "go to standard error), or written to PATH after each finished part")
    loc.add_argument("--resume", action="store_true",
                     help="reuse the finished parts of the --json PATH report (one run "
                          "with another --mode, --k, --limit or --embedder, or in QA mode "
                          "another model, --context-window, --max-tokens or --text-tool-calls, "
                          "is refused, not replaced; another --base-url serving the same model "
                          "is not)")
    loc.add_argument("--limit", type=int, metavar="N",
                     help="only the first N questions of each conversation (in retrieval "
                          "mode, of those with evidence)")
    loc.add_argument("--conversations", metavar="IDS", help="comma list of ids, e.g. 26,30")
    loc.add_argument("--mode", **any_case("retrieval", "qa"), default="retrieval",
                     help="retrieval: evidence recall@k, offline (default); qa: a model answers")
    loc.add_argument("--model", type=MODEL_NAME,
                     help="QA and --rewrite: model name; or set TIERMEM_MODEL")
    loc.add_argument("--base-url", type=BASE_URL,
                     help="QA and --rewrite: OpenAI-compatible endpoint; or set OPENAI_BASE_URL")
    loc.add_argument("--judge", action="store_true",
                     help="QA: also have the model judge answers (with --resume, only the kept "
                          "answers without a verdict are judged)")
    loc.add_argument("--no-baselines", dest="baselines", action="store_false",
                     help="QA: skip the no-memory and full-context baselines (by default they "
                          "are answered by the same model and reported beside the configs)")
    loc.add_argument("--cv", action="store_true",
                     help="leave one conversation out: tune the fusion weights on the others, "
                          "report on it, for each in turn (default configs hybrid hierarchy)")
    loc.add_argument("--rewrite", action="store_true",
                     help="retrieval: also run each configuration with up to 3 search queries "
                          "the --model writes for each question, fused with the question's own "
                          "(a failed rewrite falls back to the question, and is counted)")
    add_server_options(loc)
    loc.add_argument("--core-limit", type=core_limit, metavar="N",
                     help="core capacity of every configuration's memory, in tokens (1 to "
                          "1,000,000,000; default 2000); recorded in the report. QA: lower it "
                          "when the conversation's core leaves no room for the question in the "
                          "model's window")
    loc.add_argument("--embedder", **any_case(*EMBEDDERS), default="local",
                     help="local MiniLM model (default), the model-free hashing embedder, or "
                          "another offline model to compare (evals/embedders.py)")


def cmd_eval(args: Any, note: Callable[[str], None]) -> int:
    """``tiermem eval``: ``run_command``, a usage error reported (exit 2)."""
    from tiermem.agent.terminal import report_console

    try:
        # Notes go where every command's notes go, not into the tables on standard output.
        return run_command(args, report_console(args.json == "-", wide_when_not_a_terminal=True),
                           note)
    except ValueError as exc:  # bad data, configuration name or option
        note(str(exc))
        return 2
    except KeyboardInterrupt:  # Ctrl-C: what of the run is kept, and how to go on
        note(kept_note(expanded(args.json) if args.json not in (None, "-") else None))
        return 130


def run_command(args: Any, console: Any, note: Callable[[str], None] | None = None) -> int:
    """``tiermem eval locomo``; a usage error raises ValueError before any work starts."""
    from tiermem.evals.configs import CONFIGS, DEFAULT_CONFIGS, GROUPS
    from tiermem.memory.output_file import emit_json, output_path

    if args.list_configs:
        if args.json is not None:
            raise ValueError("--list-configs prints the configurations as text and takes no "
                             "--json; give one of them")
        for config in CONFIGS.values():
            mark = "*" if config.name in DEFAULT_CONFIGS else " "
            print(f"{mark} {config.name:26} {config.description}")
        print("\n--config also takes these groups (* marks the default configurations):")
        for name, (_, holds) in GROUPS.items():
            print(f"  {name:26} {holds}")
        return 0
    if not args.data:
        raise ValueError("eval locomo needs --data DIR_OR_FILE (e.g. the LoCoMo JSON files)")
    if args.resume and args.json in (None, "-"):
        raise ValueError("--resume needs --json PATH (the report to resume)")
    if args.json not in (None, "-") and _read_as_data(Path(args.json), args.data):
        raise ValueError(f"--json {args.json} would be read as LoCoMo data (it is a --data "
                         "file, or a .json file in a --data directory); write the report "
                         "elsewhere")
    if args.cv and args.mode != "retrieval":
        raise ValueError("--cv tunes retrieval; it does not combine with --mode qa")
    if args.rewrite and (args.mode != "retrieval" or args.cv):
        raise ValueError("--rewrite compares retrieval with and without a model's queries; "
                         "it does not combine with --mode qa or --cv")
    if args.cv and args.resume:
        raise ValueError("--cv runs whole; drop --resume")
    _check_mode_options(args)
    if args.limit is not None and args.limit < 1:
        raise ValueError(f"--limit must be at least 1, not {args.limit}")
    options = EvalOptions(
        data=args.data, ks=parse_ks(args.k), mode=args.mode, json_path=output_path(args.json),
        configs=_names(args.config, "--config", "names like bm25,hybrid (see --list-configs), "
                       "or leave it out for the default ones"),
        conversations=_names(None if args.conversations is None else [args.conversations],
                             "--conversations", "ids like 26,30, or leave it out for all"),
        limit=args.limit, embedder=args.embedder, resume=args.resume, model=args.model,
        base_url=args.base_url, judge=args.judge, cv=args.cv,
        context_window=args.context_window, timeout=args.timeout, max_tokens=args.max_tokens,
        text_tool_calls=args.text_tool_calls, baselines=args.baselines, rewrite=args.rewrite,
        core_limit=args.core_limit)
    if options.resume and options.json_path is not None and options.json_path.exists():
        # Refused before the data, the embedder and the model load, not after.
        resumable_units(options.json_path, {
            "benchmark": "LoCoMo", "mode": options.mode, "limit": options.limit,
            "ks": list(options.ks) if options.mode == "retrieval" else None,
            "embedder": make_embedder(options.embedder).id})
    report = run_locomo(options, console, note)
    if args.json == "-":
        emit_json(report, None)
    return 0


def _check_mode_options(args: Any) -> None:
    """ValueError for an option the chosen mode would ignore: a run that quietly drops
    ``--judge`` or ``--model`` is not the run its figures would be read as."""
    if args.mode == "qa":
        if args.k != K_DEFAULT:
            raise ValueError("--k sets the cut-offs of retrieval's recall@k; QA scores answers: "
                             "drop --k, or leave out --mode qa")
        return
    ignored = [flag for flag, given in (("--judge", args.judge),
                                        ("--no-baselines", not args.baselines)) if given]
    if not args.rewrite:  # the model options are --rewrite's too
        ignored += [flag for flag, given in (
            ("--model", args.model), ("--base-url", args.base_url),
            ("--context-window", args.context_window), ("--timeout", args.timeout),
            ("--max-tokens", args.max_tokens), ("--text-tool-calls", args.text_tool_calls))
            if given is not None]
    if ignored:
        them = "them" if len(ignored) > 1 else "it"
        # --cv tunes retrieval and takes no --mode qa: dropping them is the only way there.
        remedy = f"drop {them}" if args.cv else f"add --mode qa, or drop {them}"
        raise ValueError(f"{', '.join(ignored)} {'go' if len(ignored) > 1 else 'goes'} with "
                         f"--mode qa (a model's options also with --rewrite), and retrieval "
                         f"would ignore {them}: {remedy}")


def _names(given: Sequence[str] | None, option: str, advice: str) -> list[str]:
    """The comma-separated names of an option given once or more (none: the default).

    ValueError when the option is given but names nothing (``--conversations ""`` from an
    empty shell variable), which would otherwise run everything.
    """
    if given is None:
        return []
    names = [name.strip() for item in given for name in item.split(",") if name.strip()]
    if not names:
        raise ValueError(f"{option} names nothing; give {advice}")
    return names


def _read_as_data(report: Path, data: Sequence[str]) -> bool:
    """Whether ``load_conversations(data)`` would read the file ``report``: a report written
    there would overwrite the conversations, or be loaded as one by the next run."""
    target = expanded(report).resolve()
    for given in data:
        path = expanded(given).resolve()
        if target == path or (path.is_dir() and target.parent == path
                              and target.suffix == ".json"):
            return True
    return False
