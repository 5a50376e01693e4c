"""``tiermem benchmark``: the verification battery, or with ``--perf`` the performance
comparison, or with ``--faults`` the fault harness.

An option of the battery that the other two runs would not use (``--only`` with
``--perf``, ``--policy`` with either) is refused before any work, exit 2, rather
than silently ignored.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable


def cmd_benchmark(args: argparse.Namespace, note: Callable[[str], None]) -> int:
    import time

    from tiermem.agent.terminal import Progress, report_console
    from tiermem.bench.battery import run_battery, select_checks
    from tiermem.bench.options import DEFAULT_POLICY
    from tiermem.bench.report import print_done, print_report, print_start, report_json
    from tiermem.memory.output_file import emit_json, output_path
    from tiermem.memory.tiers.policies import make_policy

    if args.faults:
        return cmd_faults(args, note)
    if args.perf and args.only:
        # The comparisons build on one another's stores (the step and cold start reuse the
        # archival ones), so a perf run measures them all rather than a chosen few.
        note("--only picks battery checks and --perf runs every performance comparison; "
             "give one of them (--perf --quick, or smaller --sizes, for a shorter perf run)")
        return 2
    if args.perf and args.policy is not None:
        return _policy_refused("--perf", note)
    policy = DEFAULT_POLICY if args.policy is None else args.policy
    try:
        select_checks(args.only)
        make_policy(policy)
    except ValueError as exc:
        note(str(exc))
        return 2
    json_path = output_path(args.json)
    if args.perf or args.sizes or args.recall_dense:
        if not args.perf:
            note("--sizes and --recall-dense go with --perf")
            return 2
        from tiermem.bench.perf import main as perf_main

        return perf_main(args.sizes, quick=args.quick, json_path=json_path, seed=args.seed,
                         recall_dense=args.recall_dense, json_stdout=args.json == "-")
    console = report_console(args.json == "-")
    start = time.perf_counter()
    progress = Progress(lambda show, *a: show(console, *a))
    results = run_battery(seed=args.seed, quick=args.quick, only=args.only, policy=policy,
                          on_start=lambda *a: progress(print_start, *a),
                          on_result=lambda *a: progress(print_done, *a))
    seconds = time.perf_counter() - start
    if args.json is not None:  # first: a file of it is written even if the reader has gone
        emit_json(report_json(results, seed=args.seed, quick=args.quick, policy=policy,
                               seconds=round(seconds, 2)), json_path)
    progress.finish(print_report, console, results, seconds)
    return 0 if all(r.passed for r in results) else 1


def cmd_faults(args: argparse.Namespace, note: Callable[[str], None]) -> int:
    from tiermem.bench.faults import main, select_classes

    if args.perf:
        note("--faults and --perf are separate runs; give one of them")
        return 2
    if args.sizes or args.recall_dense:
        given = [o for o, on in (("--sizes", args.sizes), ("--recall-dense", args.recall_dense))
                 if on]
        many = len(given) > 1
        note(f"{' and '.join(given)} {'go' if many else 'goes'} with --perf, not --faults; "
             f"drop {'them' if many else 'it'}, or run --perf instead")
        return 2
    if args.policy is not None:
        return _policy_refused("--faults", note)
    try:
        select_classes(args.only)
    except ValueError as exc:
        note(str(exc))
        return 2
    from tiermem.memory.output_file import output_path

    json_path = output_path(args.json)
    return main(seed=args.seed, quick=args.quick, json_path=json_path, only=args.only,
                json_stdout=args.json == "-")


def _policy_refused(run: str, note: Callable[[str], None]) -> int:
    """``--policy`` with a run that would not use it: the battery's eviction policy under
    test is not what the perf or fault run measures (they run on the default one)."""
    note(f"--policy picks the eviction policy the battery tests; {run} runs with the "
         f"default one: drop --policy, or drop {run} to run the battery with that policy")
    return 2
