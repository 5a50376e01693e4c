"""``tiermem forget``: forget what a request targets in an agent's memory, from the shell.

The request is matched as the agent's forget config says (the ``forget``
section of ``policy.yaml`` in the agent home, or of ``--policy FILE``), with
``--mode`` and ``--max-delete-count`` overriding it for this request. The LLM
modes ask the configured model (``--model``/``--base-url``, or TIERMEM_MODEL and
OPENAI_BASE_URL). A request given as ``-`` is read from standard input, so the
text to forget need not enter the shell's history.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tiermem.agent.forget_options import model_option_conflict, request_conflict
from tiermem.agent.interrupted import work_done
from tiermem.agent.interrupts import InterruptReported
from tiermem.memory.ops.forget_config import (
    MAX_DELETE_COUNT,
    ForgetConfig,
    forget_config_from_file,
)
from tiermem.memory.text.counts import counted

if TYPE_CHECKING:
    from tiermem.memory.privacy import PrivacyConfig


def forget_config(home: Path, policy: Path | None) -> ForgetConfig:
    """The forget section of ``policy``, else of the agent home's policy file, else defaults.

    The whole file is checked, as a chat checks it: a policy with a mistake anywhere is
    refused by every command, not used in part by some."""
    from tiermem.agent.policy_file import policy_path
    from tiermem.memory.privacy import load_policy

    path = policy_path(home, policy)
    if path is None:
        return ForgetConfig()
    load_policy(path)
    return forget_config_from_file(path)


def cmd_forget(args: argparse.Namespace, note: Callable[[str], None]) -> int:
    import json

    from tiermem.agent.chat_history import adopt_history_file
    from tiermem.agent.judge import ModelJudge, judge_failure
    from tiermem.agent.place import agent_place
    from tiermem.agent.server_options import HOW_TO_NAME_A_MODEL, config_from_args, open_client
    from tiermem.agent.settings import session_embedder
    from tiermem.memory.errors import JudgeMissingError
    from tiermem.memory.ops.forget import forgot_before
    from tiermem.memory.ops.forget_result import ForgetResult
    from tiermem.memory.store.records import Forgotten

    conflict = request_conflict(args)
    if conflict is not None:
        note(conflict)
        return 2
    if args.erase_forgotten:
        return _erase_forgotten(args, note)
    if args.finish_erasures:
        return _finish_erasures(args, note)
    if args.request is None:
        note("say what to forget (TEXT, or - to read it from standard input), or give "
             "--erase-forgotten or --finish-erasures")
        return 2
    request = _request(args.request, note)
    if request is None:
        return 2
    place = agent_place(args.agent, args.store, existing=True)
    policy_config = forget_config(place.home, args.policy)
    config = policy_config.updated(mode=args.mode, max_delete_count=args.max_delete_count)
    conflict = model_option_conflict(args, config.mode, _mode_from(args, policy_config))
    if conflict is not None:
        note(conflict)
        return 2
    judge = None
    if config.mode != "exact":
        llm_config = config_from_args(args)
        judge = ModelJudge(open_client(llm_config, note)) if llm_config else None
    embedder = session_embedder(place, args.embedder, writer=True)
    before: list[int] = []  # the newest audit id before the request, once read
    try:
        with place.in_use(note), place.open_memory(embedder=embedder, judge=judge,
                                                   forget=config) as memory:
            adopt_history_file(place.files_home, memory.prompt_history, note)
            before.append(max((r.id for r in memory.forget_requests(newest=1)), default=0))
            try:
                result = memory.forget(request, erase=args.erase)
            except JudgeMissingError as exc:
                # Without a judge, a request the judge must decide is audited as failed and
                # refused with the library's remedies (a judge=...); a command line has
                # options.
                source = "--mode" if args.mode else "the policy"
                advice = (f"mode {config.mode!r} (from {source}) {exc.asks}, and none is "
                          f"configured: name one with {HOW_TO_NAME_A_MODEL}, or give "
                          f"--mode exact, which needs none")
                note(advice)
                if args.json:
                    [audited] = memory.forget_requests(newest=1)
                    failed = ForgetResult("failed", audited.mode, Forgotten(), audited.id,
                                          audited.detail)
                    print(json.dumps({**failed.to_dict(), "already_forgotten_by": None,
                                      "advice": advice}))
                return 1
            # Read while the memory is open; said after the result, once it is closed.
            done_by = None if result.outcome != "unmatched" else forgot_before(
                memory, request, result.audit_id)
            policy = _agent_policy(place.home, args)
            hints = [] if args.json else [
                *_sources_kept(args, policy, memory, result.sources_kept),
                *_sources_kept(args, policy, memory, result.quoted_by_user, quoting=True)]
        failure = judge_failure(judge, "forget") if result.outcome == "failed" else None
        if failure is not None:
            note(failure)
        _report(args, note, result, withheld=policy is not None and policy.recall.enabled,
                done_by=done_by, bound=config.max_delete_count)
        if hints:
            note("\n".join(hints))
        work_done(args)
    except KeyboardInterrupt as exc:
        note(interrupted_forget(place, before[0] if before else None, args))
        raise InterruptReported from exc
    return 0 if result.outcome == "matched" else 1


def _mode_from(args: argparse.Namespace, policy_config: ForgetConfig) -> str:
    """Where the request's mode came from, as a user would look for it."""
    if args.mode is not None:
        return "from --mode"
    return "from the policy" if "mode" in policy_config.model_fields_set else "the default"


def _sources_kept(args: argparse.Namespace, policy: PrivacyConfig | None, memory: Any,
                  ids: tuple[int, ...], quoting: bool = False) -> list[str]:
    """The lines saying which messages the facts forgotten were learned from stay (with
    ``quoting``: which of the user's messages an erasure kept that quote what it erased),
    and the command that forgets each too (agent/forget_sources.py)."""
    import shlex

    from tiermem.agent.forget_sources import (
        LEARNED_FROM,
        QUOTED_BY_USER,
        policy_view,
        sources_kept_lines,
    )
    from tiermem.agent.place import store_flag

    command = (f"tiermem forget --agent {args.agent}{store_flag(args.store)}"
               f"{' --erase' if args.erase else ''}")
    # A request read from standard input kept its text out of the shell's history: the
    # hint puts no message's text on a command line either.
    quoted = None if args.request == "-" else (
        lambda text: f"{command} {shlex.quote(text)}")
    # The memory is opened without the agent's privacy policy (forgetting shows nothing):
    # the hint screens the texts it would print with it, as /recall in a chat does.
    shown = None if policy is None else policy_view(policy)
    return sources_kept_lines(memory, ids, quoted,
                              f"{command} - with its whole text on standard input",
                              f"`tiermem chat --agent {args.agent}{store_flag(args.store)}` "
                              "with /recall", shown, QUOTED_BY_USER if quoting else LEARNED_FROM)


def _agent_policy(home: Path, args: argparse.Namespace) -> PrivacyConfig | None:
    """The agent's privacy policy (policy.yaml, or --policy), which the hints after a
    request screen their texts with and describe /core and the searches by."""
    from tiermem.agent.policy_file import policy_path
    from tiermem.memory.privacy import load_policy

    path = policy_path(home, args.policy)
    return None if path is None else load_policy(path)


def _report(args: argparse.Namespace, note: Callable[[str], None], result: Any, *,
            withheld: bool = False, done_by: int | None = None,
            bound: int) -> None:
    """What a request did (a ForgetResult), on standard output; ``withheld``: the agent's
    privacy policy withholds things from /core and the searches; ``done_by``: the audit of
    an earlier request with this text that forgot what it matched; ``bound``: the request's
    max_delete_count."""
    import json

    from tiermem.agent.forget_sources import ALREADY_FORGOTTEN, WITHHELD_HINT
    from tiermem.agent.place import store_flag
    from tiermem.memory.ops.forget_select import OVER_THE_BOUND

    advice = None  # what to do next, after a request that forgot nothing
    if result.outcome == "unmatched" and result.mode == "exact" and done_by is None:
        advice = (f"`tiermem chat --agent {args.agent}{store_flag(args.store)}` with /recall "
                  f"TEXT, /archival TEXT or /core shows how it was stored"
                  f"{WITHHELD_HINT if withheld else ''}; --mode exact_then_top_k_llm with a "
                  f"model matches by meaning when no text equals it")
    elif result.outcome == "ambiguous" and OVER_THE_BOUND in result.detail:
        advice = over_the_bound_note(bound, result.detail)
    if args.json:
        # A script reading "unmatched" alone would look for a mistyped text, as a user would.
        print(json.dumps({**result.to_dict(), "already_forgotten_by": done_by,
                          "advice": advice}))
    elif result.outcome == "matched":
        print(f"{'erased' if result.erasure else 'forgotten'}: "
              f"{result.in_words(f'audit #{result.audit_id}')}")
        for gap in result.erasure.not_reached if result.erasure else ():
            note(f"not reached by the erasure: {gap}")
    elif done_by is not None:
        print(ALREADY_FORGOTTEN.format(done_by=done_by, audit=f"; audit #{result.audit_id}"))
    else:
        print(f"nothing forgotten: {result.outcome} ({result.detail}; audit "
              f"#{result.audit_id})")
        if advice is not None:
            note(advice)


def over_the_bound_note(bound: int, detail: str) -> str:
    """What to do about a request that targets more items than ``bound``, its
    --max-delete-count (``detail``: the ambiguous outcome's, which names what it matched)."""
    from tiermem.agent.forget_sources import count_needed, past_every_bound
    from tiermem.memory.ops.forget_select import EQUAL_TEXTS

    past, count = past_every_bound(bound, detail)
    if past:
        return (f"one request forgets at most {MAX_DELETE_COUNT} items, and this one targets "
                "more: forget them in parts, with --mode top_k_llm (a model picks among the "
                "closest matches each time)")
    # Every item an exact match targets equals the request: no request targets fewer of them.
    fewer = "" if EQUAL_TEXTS in detail else ", or a request that targets fewer"
    return ("a request that targets more items than --max-delete-count forgets nothing: "
            f"give --max-delete-count {count_needed(count)}{fewer}")


def interrupted_forget(place: Any, before: int | None, args: argparse.Namespace) -> str:
    """What a forget request Ctrl-C stopped left, read back from the memory: whether its
    audit was saved (a newer audit than ``before``, the newest one before it), and whether
    the erasure it asked for committed and its purge of old copies finished
    (memory/ops/erase.py: the forget commits first, then the erasure, then the purge)."""
    from tiermem.agent.place import store_flag
    from tiermem.memory.errors import TiermemError
    from tiermem.memory.ops.erase import PURGE_PENDING_KEY, pending_erasures

    finish = f"`tiermem forget --agent {args.agent}{store_flag(args.store)} --finish-erasures`"
    unknown = (f"forget stopped (Ctrl-C), and what it saved could not be read back; run "
               f"{finish} to complete any erasure it owes (it says when none is)")
    if before is None:
        return "forget stopped (Ctrl-C) before the request was made: nothing was forgotten"
    try:
        store = place.open_store(read_only=True)
        try:
            newest = store.forgetting.requests(1)
            owed = pending_erasures(store)
            purging = store.settings.get(PURGE_PENDING_KEY) is not None
        finally:
            store.close()
    except (TiermemError, KeyboardInterrupt):
        return unknown
    if not newest or newest[0].id <= before:
        return "forget stopped (Ctrl-C) before the request was saved: nothing was forgotten"
    audit = newest[0]
    if audit.outcome != "matched":
        return (f"forget stopped (Ctrl-C) after the request was saved (audit #{audit.id}): "
                f"nothing forgotten ({audit.outcome})")
    if audit.id in owed:
        return (f"forget stopped (Ctrl-C) after what the request matched was forgotten "
                f"(audit #{audit.id}) and before it was erased: run {finish} to erase it "
                f"now (any command that opens the memory for writing does it first)")
    if not args.erase:
        return (f"forget stopped (Ctrl-C) after the request was saved: what it matched is "
                f"forgotten (audit #{audit.id})")
    if purging:
        return (f"forget stopped (Ctrl-C) after the erasure was saved (audit #{audit.id}): "
                f"what it matched is gone from the memory, but old copies may remain in its "
                f"files until {finish} clears them (any command that opens the memory for "
                f"writing does it first)")
    return (f"forget stopped (Ctrl-C) after the erasure was saved and its old copies "
            f"cleared (audit #{audit.id})")


def _request(given: str, note: Callable[[str], None]) -> str | None:
    """The request to forget, read from standard input for ``-``; None after saying why
    it cannot be one (a usage error: nothing was opened yet)."""
    from tiermem.agent.line_input import read_bounded
    from tiermem.memory.errors import InvalidInputError
    from tiermem.memory.ops.forget import MAX_REQUEST_CHARS, clean_request

    if given == "-":
        if sys.stdin is None:
            note("standard input is closed; give the request as TEXT, or pipe it to `forget -`")
            return None
        # Bounded: a stream without end (`< /dev/zero`) must not be read whole.
        read = read_bounded(sys.stdin.buffer, MAX_REQUEST_CHARS + 1024)
        if read is None:
            note(f"the request on standard input is over {MAX_REQUEST_CHARS:,} characters, "
                 "longer than any stored text; give the exact text of one item")
            return None
        given = read
    try:
        return clean_request(given, fix="")
    except InvalidInputError as exc:
        note(f"{exc} (TEXT is what to forget; - reads it from standard input)")
        return None


def _erase_forgotten(args: argparse.Namespace, note: Callable[[str], None]) -> int:
    import json

    from tiermem.agent.forget_sources import erased_before
    from tiermem.agent.place import agent_place
    from tiermem.agent.settings import session_embedder

    place = agent_place(args.agent, args.store, existing=True)
    embedder = session_embedder(place, args.embedder, writer=True)
    with place.in_use(note), place.open_memory(embedder=embedder) as memory:
        from tiermem.agent.chat_history import adopt_history_file

        # Before the erasure, so that it reaches an old history file's lines too.
        adopt_history_file(place.files_home, memory.prompt_history, note)
        report = memory.erase_forgotten()
    work_done(args)
    if args.json:
        print(json.dumps(report.to_dict()))
    else:
        print(erased_before(report))
        for gap in report.not_reached:
            note(f"not reached by the erasure: {gap}")
    return 0


def _finish_erasures(args: argparse.Namespace, note: Callable[[str], None]) -> int:
    """Open the memory for writing: an open that is not read-only erases what forget
    requests still owe (memory/ops/erase.py) before anything else, and this command
    changes nothing more. (A read-only look first would refuse a home an older version
    wrote, the very case of an erasure owed across an upgrade.)"""
    import json

    from tiermem.agent.place import agent_place
    from tiermem.agent.settings import session_embedder

    place = agent_place(args.agent, args.store, existing=True)
    with place.in_use(note), place.open_memory(
            embedder=session_embedder(place, args.embedder, writer=True)) as memory:
        finished = memory.erased_on_open
        purged = memory.purge.finished_on_open
        not_reached = memory.purge.not_reached if purged else []
    work_done(args)
    if args.json:
        print(json.dumps({"finished": finished, "purged": purged}))
    elif finished:
        print(f"finished the erasure of {counted(len(finished), 'forget request')}: "
              + ", ".join(f"audit #{i}" for i in finished))
    elif purged:
        # The rows went with an earlier erasure; the clearing of their old bytes had not run.
        print("finished the purge an earlier erasure left unfinished: the old copies of what "
              "it erased are cleared from the database and index files")
    else:
        print("no erasure was owed: nothing to finish")
    for gap in not_reached:
        note(f"not reached by the erasure: {gap}")
    return 0
