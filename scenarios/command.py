"""``tiermem scenario``: list the scenarios, or run one and check its answers.

Each day is shown as it runs, then the result; ``--json`` writes the result as
JSON (on standard output with the report on standard error, or to a file). The
exit status is 0 when every check passed, 1 when one failed, when the model server cannot
serve any turn as it is set up (the error and what to do are printed), or when a run of the
same scenario is under way in its home or database (``running_already``).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path


def cmd_scenario(args: argparse.Namespace, note: Callable[[str], None]) -> int:
    from tiermem.agent.command_hints import hint_for
    from tiermem.agent.errors import ProviderError
    from tiermem.agent.home import private_files
    from tiermem.agent.place import store_option
    from tiermem.agent.server_options import model_flag_conflict
    from tiermem.agent.terminal import Progress, report_console
    from tiermem.memory import HashingEmbedder
    from tiermem.memory.errors import StoreLockedError
    from tiermem.memory.output_file import emit_json, output_path
    from tiermem.scenarios import all_scenarios
    from tiermem.scenarios.render import print_day, print_result
    from tiermem.scenarios.runner import run_scenario

    conflict = model_flag_conflict(args)
    if conflict is not None:
        note(conflict)
        return 2
    if args.list and args.json is not None:
        note("--list prints the scenario names as text and takes no --json; give one of them")
        return 2
    if args.list and args.name is not None:
        note("--list takes no scenario name; run `tiermem scenario NAME` to run one "
             "(`tiermem scenario --list` lists them)")
        return 2
    scenarios = all_scenarios()
    if args.name is None and args.json in scenarios and not Path(args.json).exists():
        args.name, args.json = args.json, "-"  # `scenario --json NAME`: JSON on stdout
    elif args.name is not None and args.json in scenarios and not Path(args.json).exists():
        # `scenario --json A B`: one scenario runs at a time, and A is no file to write.
        note(f"--json took the scenario name {args.json!r} as the file to write; one "
             f"scenario runs at a time: `tiermem scenario {args.name} --json PATH`, or "
             f"`tiermem scenario --json {args.name}` for the JSON on standard output")
        return 2
    if args.list or not args.name:
        for scenario in scenarios.values():
            print(f"{scenario.name:24} {scenario.description}")
        if args.list:
            return 0
        note("name a scenario (see `tiermem scenario --list`)")
        return 2
    if args.name not in scenarios:
        note(f"no scenario named {args.name!r}; choose one of {', '.join(scenarios)}")
        return 2
    json_path = output_path(args.json)
    store = store_option(args.store)
    llm = None
    # As for a chat: flags or TIERMEM_MODEL / OPENAI_BASE_URL name the model, --offline
    # keeps the rule-based policy a scenario's checks were written against.
    if not args.offline:
        from tiermem.agent.server_options import config_from_args, open_client

        config = config_from_args(args)
        llm = open_client(config, note) if config else None
    console = report_console(args.json == "-")
    embedder = HashingEmbedder() if args.embedder == "hashing" else None
    days = Progress(lambda day: print_day(console, day))
    try:
        with private_files():
            result = run_scenario(scenarios[args.name], llm=llm, embedder=embedder,
                                  on_day=days, store=store)
    except StoreLockedError as exc:
        if getattr(exc, "orphaned_backend", None) is not None:
            raise  # a run that has exited: the command line says how to end its session
        note(running_already(args.name, exc, store, args.store))
        return 1
    except ProviderError as exc:
        if exc.hint is None:
            raise
        # How the server must be set up (or the URL fixed) is what the user needs next.
        note(f"{exc}; {hint_for(exc.hint, 'scenario')}")
        return 1
    if args.json is not None:  # first: a file of it is written even if the reader has gone
        emit_json(result.to_dict(), json_path)
    days.finish(print_result, console, result)
    return 0 if result.passed else 1


def running_already(name: str, exc: Exception, store: str | None = None,
                    given_store: str | None = None) -> str:
    """What to do when the home of scenario ``name`` (its agent in the database ``store``,
    named by ``--store given_store`` if at all) is held by another run: each run starts it
    afresh, so two at once would empty it under each other; the second one is refused."""
    from tiermem.scenarios.render import diagnostics_of
    from tiermem.scenarios.runner import scenario_home

    situation = getattr(exc, "situation", str(exc))
    under_way = f"{situation}: scenario {name} is being run there already, and "
    if store is not None:
        from tiermem.agent.place import store_flag

        reader = f"tiermem diagnostics --scenario {name}{store_flag(given_store)}"
        return (f"{under_way}`{reader}` reads it meanwhile. Wait for that run to end, or give "
                f"this one a database of its own: `tiermem scenario {name} --store DSN` with "
                f"another database's DSN")
    # The home is named by a shell variable kept after the run: a `$(mktemp -d)` inline
    # would be gone when diagnostics needs the same home.
    reader = diagnostics_of(name, scenario_home(name))
    return (f"{under_way}`{reader}` reads "
            f"it meanwhile. Wait for that run to end, or give this one a home of its own: "
            f"`home=$(mktemp -d); TIERMEM_HOME=$home tiermem scenario {name}`, then "
            f"`TIERMEM_HOME=$home tiermem diagnostics --scenario {name}` reports on this one")
