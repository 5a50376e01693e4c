"""The argument parser of ``tiermem``: every command, its options and their help.

``tiermem.cli`` parses with it and dispatches on ``args.command``; nothing here
knows the commands' handlers, so this module never imports the command line back.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import NoReturn

from tiermem.agent.cli_values import (
    BASE_URL,
    MODEL_NAME,
    agent_name,
    any_case,
    given,
    given_path,
    place_path,
    policy_file,
)

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
    "drop-agent": "delete an agent and all its memory from a PostgreSQL database (--yes)",
    "restore": "rebuild an agent's memory from a snapshot file (the chat's /snapshot FILE)",
    "upgrade": "upgrade an agent's memory that an older tiermem wrote to this version, in place",
}


class _Parser(argparse.ArgumentParser):
    """A parser whose usage errors show as ``***`` the passwords its arguments hold:
    argparse repeats the arguments it does not take and the values it refuses, a --store
    DSN among them. Its subcommands' parsers are of this class too."""

    _given: tuple[str, ...] = ()

    def parse_known_args(self, args: Sequence[str] | None = None,  # type: ignore[override]
                         namespace: argparse.Namespace | None = None,
                         ) -> tuple[argparse.Namespace, list[str]]:
        self._given = tuple(sys.argv[1:] if args is None else args)
        return super().parse_known_args(args, namespace)

    def error(self, message: str) -> NoReturn:
        from tiermem.memory.store.location_text import without_passwords

        # An option's value may follow its "=" (--store=DSN).
        texts = [part for given in self._given for part in (given, given.partition("=")[2])]
        super().error(without_passwords(message, texts))


def build_parser() -> argparse.ArgumentParser:
    """The ``tiermem`` parser, its subcommands in the order of ``COMMANDS``."""
    from tiermem.agent.server_options import add_server_options, core_limit, positive_seconds

    parser = _Parser(prog="tiermem", add_help=False)
    sub = parser.add_subparsers(dest="command")
    embedder_help = "local MiniLM model (default) or the model-free hashing embedder"

    chat = sub.add_parser("chat", help=COMMANDS["chat"], description=COMMANDS["chat"])
    chat.add_argument("--agent", default="default", type=agent_name,
                      help="agent name; a new name creates the agent (default: default)")
    chat.add_argument("--model", type=MODEL_NAME, help="model name; or set TIERMEM_MODEL")
    chat.add_argument("--base-url", type=BASE_URL,
                      help="OpenAI-compatible endpoint; or set OPENAI_BASE_URL")
    chat.add_argument("--offline", action="store_true", help=OFFLINE_HELP)
    add_server_options(chat)
    chat.add_argument("--core-limit", type=core_limit, metavar="N",
                      help="core capacity for this session only, 1 to 1,000,000,000 (default: "
                           "the agent's stored value, 2000 tokens for a new agent; `tiermem "
                           "config --agent NAME core_limit N` stores one)")
    chat.add_argument("--embedder", **any_case("local", "hashing"),
                      help=embedder_help + "; default: the one the agent's memory was built "
                           "with (local for a new agent)")
    chat.add_argument("--json", action="store_true",
                      help="for scripts: read one message or /command per line of standard "
                           "input and print one JSON object per line (reply, tool calls, "
                           "memory changes, error) and nothing else")
    chat.add_argument("--policy", metavar="FILE", type=policy_file,
                      help="a policy file (YAML: rules, retention, recall, forget) for this "
                           "session; by default the agent home's policy.yaml, when there is one "
                           "($TIERMEM_HOME/agents/NAME/policy.yaml, with --store too)")
    chat.add_argument("--no-history", action="store_true",
                      help="keep no prompt history for the up arrow (by default it is kept in "
                           "the agent's database)")
    _add_store(chat)

    config = sub.add_parser("config", help=COMMANDS["config"], description=COMMANDS["config"])
    config.add_argument("--agent", default="default", type=agent_name,
                        help="an existing agent (default: default)")
    config.add_argument("setting", nargs="?",
                        help="one setting to show, e.g. core_limit (default: all of them)")
    config.add_argument("value", nargs="?",
                        help="its new value, validated and stored for every later session: "
                             "a number, true or false (recall_dense), a word (policy, "
                             "core_limit_unit) or a JSON object (fusion)")
    _add_json(config, "the settings", argument="setting")
    _add_store(config)

    diag = sub.add_parser("diagnostics", help=COMMANDS["diagnostics"],
                          description=COMMANDS["diagnostics"])
    where = diag.add_mutually_exclusive_group()
    where.add_argument("--agent", default="default", type=agent_name,
                       help="an existing agent (default: default)")
    where.add_argument("--scenario", help="report on the last run of this scenario instead "
                                          "(`tiermem scenario --list` names them)")
    diag.add_argument("--format", **any_case("text", "json", "html"), default="text",
                      help="a table (default), JSON, or an HTML page with charts")
    diag.add_argument("--out", type=given_path("a file name (- for standard output)"),
                      metavar="PATH",
                      help="write the report to this file, not to standard output (- for "
                           "standard output; html: default NAME-diagnostics.html)")
    from tiermem.agent.diagnostics_command import JSON_NO_PATH

    # Told apart from `--json -`, which names standard output and so contradicts --out PATH.
    _add_json(diag, "the report (the same as --format json)", const=JSON_NO_PATH)
    diag.add_argument("--embedder", **any_case("local", "hashing"),
                      help=embedder_help + "; default: the one the agent's memory was built "
                           "with")
    _add_store(diag)

    scen = sub.add_parser("scenario", help=COMMANDS["scenario"], description=COMMANDS["scenario"])
    scen.add_argument("name", nargs="?", help="scenario name (see --list)")
    scen.add_argument("--list", action="store_true",
                      help="list the scenarios (with no NAME: NAME runs one)")
    scen.add_argument("--model", type=MODEL_NAME,
                      help="drive it with this model; or set TIERMEM_MODEL (with neither, the "
                           "offline policy drives it)")
    scen.add_argument("--base-url", type=BASE_URL,
                      help="OpenAI-compatible endpoint; or set OPENAI_BASE_URL")
    scen.add_argument("--offline", action="store_true", help=OFFLINE_HELP)
    add_server_options(scen)
    scen.add_argument("--embedder", **any_case("local", "hashing"), default="local",
                      help=embedder_help)
    _add_json(scen, "the result", argument="scenario")
    _add_store(scen, "run it in this PostgreSQL database (as agent scenario-NAME, replaced "
                     "each run)")

    bench = sub.add_parser("benchmark", help=COMMANDS["benchmark"],
                           description=COMMANDS["benchmark"])
    bench.add_argument("--seed", type=int, default=0, help="workload seed (default 0)")
    bench.add_argument("--quick", action="store_true",
                       help="fewer crash kills and smaller timing sizes (--perf: fewer "
                            "repetitions, sizes 1000,10000 unless --sizes is given)")
    bench.add_argument("--only", action="append", metavar="NAME",
                       help="run only this check (with --faults, this fault class; not with "
                            "--perf, which runs every comparison); repeat it or give a comma "
                            "list")
    _add_json(bench, "the results")
    bench.add_argument("--policy",
                       help="the eviction policy under test (default freq_recency_durable; "
                            "not with --perf or --faults, which run with the default)")
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

    from tiermem.evals.locomo_command import add_locomo_parser

    add_locomo_parser(sub.add_parser("eval", help=COMMANDS["eval"],
                                     description=COMMANDS["eval"]))

    reindex = sub.add_parser("reindex", help=COMMANDS["reindex"], description=COMMANDS["reindex"])
    reindex.add_argument("--agent", default="default", type=agent_name,
                         help="an existing agent (default: default)")
    reindex.add_argument("--embedder", **any_case("local", "hashing"), default="local",
                         help="the embedder to re-embed with: " + embedder_help)
    _add_store(reindex)

    index = sub.add_parser(
        "index", help=COMMANDS["index"],
        description=COMMANDS["index"] + ", with its progress (otherwise the first search "
        "builds it in the background, and a session that ends sooner never saves it)",
        epilog="exit codes: 0 every graph needed is built and saved (or none is needed), "
               "1 one could not be built, 2 usage error")
    index.add_argument("--agent", default="default", type=agent_name,
                       help="an existing agent (default: default)")
    _add_json(index, "what was built")
    _add_store(index)

    doctor = sub.add_parser("doctor", help=COMMANDS["doctor"], description=COMMANDS["doctor"],
                            epilog="the window the chat would use (TIERMEM_CONTEXT_WINDOW when "
                                   "set, said when larger than the server's; else the one the "
                                   "server reports) is weighed against the agent's own prompt, "
                                   "counted in TIERMEM_ENCODING when set, and the reply budget "
                                   "(TIERMEM_MAX_TOKENS when set, else the chat's default); "
                                   "exit codes: 0 the "
                                   "memory agent can work with this server and model, 1 it "
                                   "cannot, 2 usage error")
    doctor.add_argument("--base-url", type=BASE_URL,
                        help="the server's OpenAI-compatible endpoint, e.g. "
                             "http://127.0.0.1:8080/v1; or set OPENAI_BASE_URL")
    doctor.add_argument("--model", type=MODEL_NAME,
                        help="the model to probe; or set TIERMEM_MODEL (default: the first "
                             "model the server lists)")
    doctor.add_argument("--timeout", type=positive_seconds, metavar="SECONDS",
                        help="seconds each probe may take (default 20); the probes stop "
                             "starting after 55 s in all")
    _add_json(doctor, "the report")

    pg = sub.add_parser("pg", help=COMMANDS["pg"], description=COMMANDS["pg"],
                        epilog="start prints the server's DSN; exit codes: 0 done (status: "
                               "running), 1 failed (status: not running), 2 usage error")
    pg.add_argument("action", **any_case("start", "stop", "status"),
                    help="start the server (creating it the first time) and print its DSN, "
                         "stop it, or print its DSN if it is running")
    pg.add_argument("--dir", type=place_path("the server's data directory"), metavar="PATH",
                    help="the server's data directory (default: $TIERMEM_HOME/postgres; "
                         "unset, ~/.tiermem/postgres, or for root /var/lib/tiermem/postgres)")

    migrate = sub.add_parser("migrate", help=COMMANDS["migrate"],
                             description=COMMANDS["migrate"] + ". The source is only read; "
                             "the copy is checked (row counts and a content hash) before it "
                             "is committed. The agent's privacy policy (policy.yaml) goes "
                             "with it; a target with a different one is refused.",
                             epilog="exit codes: 0 moved and verified, 1 failed (the target "
                                    "holds a memory already or another privacy policy, the "
                                    "copy did not verify, or the policy could not be copied), "
                                    "2 usage error (a path that is not an agent home, an "
                                    "unknown agent, a DSN or a policy.yaml that cannot be "
                                    "read)")
    migrate.add_argument("--from", dest="source", required=True, metavar="PATH|DSN",
                         type=given("an agent home directory or a postgresql:// DSN"),
                         help="an agent home directory, or a postgresql:// DSN")
    migrate.add_argument("--to", dest="target", required=True, metavar="PATH|DSN",
                         type=given("a new agent home directory or a postgresql:// DSN"),
                         help="a new agent home directory (missing parents are created), "
                              "or a postgresql:// DSN")
    migrate.add_argument("--agent", type=agent_name,
                         help="the agent's name in the database (default: the name of the "
                              "agent home directory)")

    from tiermem.agent.forget_options import add_forget_parser

    _add_store(add_forget_parser(sub, COMMANDS["forget"], agent_name))

    drop = sub.add_parser("drop-agent", help=COMMANDS["drop-agent"],
                          description=COMMANDS["drop-agent"] + ", refused while a session has "
                          "it open for writing",
                          epilog="exit codes: 0 deleted, 1 failed (e.g. the agent is open), "
                                 "2 usage error (no --yes, no --store, an unknown agent)")
    drop.add_argument("--agent", required=True, type=agent_name,
                      help="the agent to delete")
    drop.add_argument("--yes", action="store_true",
                      help="delete it (without this, nothing is deleted)")
    drop.add_argument("--store", metavar="DSN",
                      help="the PostgreSQL database that holds it: a postgresql:// DSN; or set "
                           "TIERMEM_STORE")

    restore = sub.add_parser("restore", help=COMMANDS["restore"],
                             description=COMMANDS["restore"] + ". The snapshot is checked "
                             "whole before anything is written; with --replace the agent's "
                             "memory stays as it was until the restored one is complete",
                             epilog="exit codes: 0 restored, 1 failed (the agent holds a memory "
                                    "and --replace was not given, or it is open for writing), "
                                    "2 usage error (a file that cannot be read or is no "
                                    "snapshot, or -)")
    restore.add_argument("snapshot", metavar="FILE", type=given("a snapshot file"),
                         help="a snapshot: the JSON file /snapshot or "
                              "HierarchicalMemory.snapshot() wrote; not - (standard input): "
                              "the file is read twice (a file named - as ./-)")
    restore.add_argument("--agent", default="default", type=agent_name,
                         help="the agent to restore it as (default: default)")
    restore.add_argument("--replace", action="store_true",
                         help="replace the memory the agent holds (without this, an agent "
                              "that holds one is refused)")
    _add_store(restore, "restore it as an agent of this PostgreSQL database")

    upgrade = sub.add_parser("upgrade", help=COMMANDS["upgrade"],
                             description=COMMANDS["upgrade"] + " (the commands that only read "
                             "it, such as diagnostics, refuse it until then; the writing "
                             "ones, such as chat, upgrade it too). A memory the process "
                             "creating it left unfinished is finished the same way",
                             epilog="exit codes: 0 upgraded (or nothing to do; in PostgreSQL "
                                    "also while the agent is open for writing elsewhere), 1 "
                                    "failed (e.g. the agent home is open for writing, or a "
                                    "newer tiermem wrote it), 2 usage error (an unknown agent)")
    upgrade.add_argument("--agent", type=agent_name,
                         help="an existing agent (default: default; with --home, the name of "
                              "its directory)")
    _add_json(upgrade, "the schema versions before and after")
    where = upgrade.add_mutually_exclusive_group()
    where.add_argument("--home", type=place_path("the agent home's directory"), metavar="DIR",
                       help="the agent's home directory, when it is not "
                            "$TIERMEM_HOME/agents/NAME (e.g. what `tiermem migrate --from` "
                            "names)")
    _add_store(where, "the agent is in this PostgreSQL database")
    return parser


def parse_args(argv: list[str]) -> argparse.Namespace:
    """``argv`` parsed; a mistake is reported with the usage of the command it was made
    in (argparse reports unknown options with the top-level usage), and exits 2."""
    parser = build_parser()
    if argv and (in_chat := _IN_CHAT.get(argv[0])):
        parser.error(f"no command {argv[0]!r}: {in_chat}; `tiermem --help` lists the commands")
    args, extra = parser.parse_known_args(argv)
    command = _subcommand(parser, args.command)
    if extra:
        if command is not None and args.command == "forget":
            from tiermem.agent.forget_options import option_not_taken

            not_taken = option_not_taken(extra)
            if not_taken is not None:
                command.error(not_taken)
        hint = (" (its --json is a flag that prints JSON on standard output; it takes no PATH)"
                if args.command in ("chat", "forget") and "--json" in argv else "")
        innermost = _subcommand(command, getattr(args, "benchmark", None)) if command else None
        (innermost or command or parser).error(
            f"unrecognized arguments: {' '.join(extra)}{hint}")
    if command is not None and args.command == "eval" and args.benchmark is None:
        command.error("name the benchmark to run: `tiermem eval locomo` (`tiermem eval "
                      "locomo --help` lists its options)")
    return args


def _in_chat(done: str, *slash: str) -> str:
    return (f"{done} in `tiermem chat --agent NAME`, with {' or '.join(slash)} (piped too: "
            f"echo '{slash[0]}' | tiermem chat --agent NAME)")


#: Words taken for commands that only the chat's slash commands are.
_IN_CHAT = {word: _in_chat("memory is read", *slash) for word, slash in {
    "core": ("/core",), "archival": ("/archival QUERY",), "recall": ("/recall QUERY",),
    "search": ("/archival QUERY", "/recall QUERY")}.items()}
_IN_CHAT["snapshot"] = (_in_chat("a snapshot is written", "/snapshot FILE")
                        + ", and `tiermem restore FILE` reads it back")


def _subcommand(parser: argparse.ArgumentParser | None,
                name: str | None) -> argparse.ArgumentParser | None:
    """The parser of subcommand ``name`` of ``parser`` (None: no such subcommand)."""
    if parser is None or name is None:
        return None
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            found: argparse.ArgumentParser | None = action.choices.get(name)
            return found
    return None


def _add_store(parser: argparse.ArgumentParser | argparse._MutuallyExclusiveGroup,
               what: str = "keep the agent in this PostgreSQL database") -> None:
    parser.add_argument("--store", metavar="DSN",
                        type=given("a postgresql:// DSN, or leave out --store to use the "
                                   "agent's home directory"),
                        help=f"{what} instead of its home directory: a postgresql:// DSN "
                             f"(`tiermem pg start` prints one for a local server); or set "
                             f"TIERMEM_STORE")


def _add_json(parser: argparse.ArgumentParser, what: str, const: str = "-",
              argument: str = "") -> None:
    parser.add_argument("--json", nargs="?", const=const, metavar="PATH",
                        type=given("a file name, or leave out PATH for standard output"),
                        help=f"{what} as JSON: on standard output (the human report then goes "
                             f"to standard error), or written to PATH"
                             + (f" (a {argument}'s name after --json is the {argument}, "
                                f"unless a file of that name exists; ./NAME names the file)"
                                if argument else ""))


#: ``--offline`` against a model the environment configures; with a flag only a model reads
#: it is refused (agent/server_options.py ``model_flag_conflict``).
OFFLINE_HELP = ("use the rule-based offline policy even if TIERMEM_MODEL or OPENAI_BASE_URL "
                "configures a model (not with --model, --base-url, --context-window, "
                "--timeout, --max-tokens or --text-tool-calls)")
