"""The commands that work on an agent's store as a whole, not through a session.

``tiermem reindex`` re-embeds an agent's memory with another embedder, and
``tiermem migrate`` moves an agent between an agent home and PostgreSQL (verified
before it commits); both say how far they are (``row_progress``), as a snapshot or a
restore does (``snapshot_progress``). ``drop-agent`` and ``pg`` are
agent/pg_commands.py's.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from tiermem.agent.interrupted import work_done
from tiermem.agent.interrupts import InterruptReported
from tiermem.user_paths import expanded

if TYPE_CHECKING:
    from tiermem.agent.place import AgentPlace

#: A long copy or re-embedding says how far it is each time it passes this many rows of a
#: table, or this many seconds after it last said (a re-embedding with a model does
#: about a hundred rows a second), and when a table is done.
PROGRESS_ROWS = 50_000
PROGRESS_SECONDS = 15.0


def row_progress(note: Callable[[str], None],
                 clock: Callable[[], float] = time.monotonic, *,
                 doing: str = "copied") -> Callable[[str, int, int], None]:
    """The ``progress`` of ``migrate`` and ``reindex``: ``DONE of TOTAL facts copied`` (the
    table's rows in words, ``doing`` what is done to them) on standard error, throttled
    (never on standard output, which a report may be)."""
    said = {"rows": 0, "at": clock()}

    def progress(table: str, done: int, total: int) -> None:
        now = clock()
        if (done == total or done // PROGRESS_ROWS > said["rows"] // PROGRESS_ROWS
                or now - said["at"] >= PROGRESS_SECONDS):
            note(f"{done:,} of {rows_counted(total, table)} {doing}")
            said["at"] = now
        said["rows"] = 0 if done == total else done

    return progress


#: A table's rows in words, one and many: "1 fact", "2 history rows", "1 forget request".
_ROW_NOUNS = {"facts": ("fact", "facts"), "passages": ("passage", "passages"),
              "messages": ("message", "messages"), "history": ("history row", "history rows"),
              "events": ("event", "events"), "erasures": ("erasure", "erasures"),
              "forget_requests": ("forget request", "forget requests"),
              "forgotten_norms": ("forgotten norm", "forgotten norms"),
              "settings": ("setting", "settings")}


def rows_counted(count: int, table: str) -> str:
    """``count`` rows of ``table`` as words, singular for exactly one; a table without
    words of its own keeps its name."""
    one, many = _ROW_NOUNS.get(table, (table, table))
    return f"{count:,} {one if count == 1 else many}"


#: A snapshot file read says how far it is each time it passes this many bytes.
PROGRESS_BYTES = 50_000_000
#: What each step of a snapshot or a restore (memory/ops/snapshot.py) has done, as said.
_SNAPSHOT_STEPS = {
    "snapshot": "snapshot: {done:,} of {total:,} rows written",
    "reading": "restore: {done_mb:,} of {total_mb:,} MB of the snapshot read and checked",
    "restoring": "restore: {done:,} of {total:,} rows written",
    "embedding": "restore: {done:,} of {total:,} rows without a vector embedded",
}


def snapshot_progress(note: Callable[[str], None],
                      clock: Callable[[], float] = time.monotonic
                      ) -> Callable[[str, int, int], None]:
    """The ``progress`` of a snapshot or a restore: ``restore: DONE of TOTAL rows written``
    and the like on standard error, each time a step passes ``PROGRESS_ROWS`` rows (or
    ``PROGRESS_BYTES`` of the file) or ``PROGRESS_SECONDS`` after the last line, and when a
    step that said how far it was ends. A short one says nothing, nor does the restore's
    ``"committed"``, which is no step of work."""
    start = clock()
    said: dict[str, tuple[int, float, bool]] = {}

    def progress(step: str, done: int, total: int) -> None:
        if step not in _SNAPSHOT_STEPS:
            return  # "committed" ends a restore: the memory is in place, no work is left
        now = clock()
        before, at, shown = said.get(step, (0, start, False))
        unit = PROGRESS_BYTES if step == "reading" else PROGRESS_ROWS
        if (done // unit > before // unit or now - at >= PROGRESS_SECONDS
                or (done >= total and shown)):
            note(_SNAPSHOT_STEPS[step].format(
                done=done, total=total, done_mb=round(done / 1e6), total_mb=round(total / 1e6)))
            at, shown = now, True
        said[step] = (done, at, shown)

    return progress


def cmd_reindex(args: argparse.Namespace, note: Callable[[str], None]) -> int:
    from tiermem.agent.place import agent_place
    from tiermem.memory import HashingEmbedder, HierarchicalMemory
    from tiermem.memory.text.counts import counted

    place = agent_place(args.agent, args.store, existing=True)
    embedder = HashingEmbedder() if args.embedder == "hashing" else None
    where = ({"store": place.dsn, "agent": place.name} if place.dsn is not None
             else {"path": place.home})
    shown = row_progress(note, doing="re-embedded")
    last: list[tuple[str, int, int]] = []

    def progress(table: str, done: int, total: int) -> None:
        last[:] = [(table, done, total)]
        shown(table, done, total)

    try:
        with place.in_use(note), HierarchicalMemory.reindex(
                embedder=embedder, progress=progress, **where) as memory:
            print(f"re-embedded {counted(len(memory.archival), 'passage')} and the recall log "
                  f"with {memory.embedder.id}")
        work_done(args)
    except KeyboardInterrupt as exc:
        note(_interrupted_reindex(args, place, last[0] if last else None))
        raise InterruptReported from exc
    return 0


def _interrupted_reindex(args: argparse.Namespace, place: AgentPlace,
                         last: tuple[str, int, int] | None) -> str:
    """Where a reindex Ctrl-C stopped is: each batch commits with the record of it, so a
    reindex run again continues after the last one (``last``: the table, its rows done
    and in all when the last batch committed)."""
    from tiermem.agent.store_errors import reindex_command
    from tiermem.memory.errors import ReindexIncompleteError, TiermemError
    from tiermem.memory.ops.reindex import check_no_reindex_pending

    again = f"{reindex_command(args)} --embedder {args.embedder}"
    try:
        store = place.open_store(read_only=True)
        try:
            check_no_reindex_pending(store)
        finally:
            store.close()
    except ReindexIncompleteError as exc:
        table, done, total = last if last is not None else ("passages", exc.done, exc.total)
        return (f"reindex stopped (Ctrl-C) after {done:,} of {total:,} {table}; search by "
                f"meaning cannot work until it finishes: run `{again}` again to continue "
                f"where it stopped")
    except (TiermemError, KeyboardInterrupt):
        return (f"reindex stopped (Ctrl-C); what it re-embedded is saved: run `{again}` "
                f"again to continue where it stopped")
    if last is not None:
        return "reindex stopped (Ctrl-C) after it finished; nothing is left to do"
    return "reindex stopped (Ctrl-C) before it changed anything"


def cmd_migrate(args: argparse.Namespace, note: Callable[[str], None]) -> int:
    from tiermem.agent.home import agent_home
    from tiermem.agent.place import (
        AgentPlace,
        checked_dsn,
        checked_home,
        require_stored_agent,
        store_flag,
    )
    from tiermem.agent.policy_carry import PolicyConflictError, plan_policy_carry
    from tiermem.agent.upgrade_command import upgrade_advice, upgrade_option
    from tiermem.memory.errors import (
        InvalidConfigError,
        OlderSchemaError,
        TargetHoldsMemoryError,
        TiermemError,
        UnfinishedStoreError,
    )
    from tiermem.memory.store.location_text import is_dsn, without_password
    from tiermem.memory.store.transfer import (
        builds_aside,
        check_filled,
        migrate,
        migration_target,
        open_backend,
        target_holds_memory,
    )

    places = (("--from", args.source), ("--to", args.target))
    for option, location in places:
        if is_dsn(location):
            checked_dsn(location, option)
    for option, location in places:
        if not is_dsn(location):
            checked_home(location, option, existing=option == "--from")
    agent = args.agent
    if agent is None:
        homes = [p for p in (args.source, args.target) if not is_dsn(p)]
        if not homes:
            note("name the agent to move between the databases with --agent")
            return 2
        agent = expanded(homes[0]).name

    if is_dsn(args.source):
        require_stored_agent(agent, args.source, args.source)

    def holds_memory(exc: TargetHoldsMemoryError) -> int:
        # The library names its own call; a person needs the command, with the --to given.
        remedy = (f"migrate into a new agent or an empty database, or delete that agent "
                  f"first: `tiermem drop-agent --agent {agent}{store_flag(args.target)} "
                  f"--yes`" if is_dsn(args.target) else
                  f"migrate into a new agent home, or remove "
                  f"{expanded(args.target)} first")
        note(f"{exc.situation}; {remedy}")
        return 1

    # A target holding another memory is refused as such before its policy is compared:
    # the policy there is that memory's, which the advice for a conflict must not touch.
    held = target_holds_memory(args.target, agent)
    if held is not None:
        return holds_memory(held)
    # The privacy policy lives beside the memory, not in it: checked before anything is
    # copied, so a target with another policy is refused while nothing has moved yet.
    try:
        policy = plan_policy_carry(args.source, args.target, agent)
    except PolicyConflictError as exc:
        note(str(exc))
        return 1
    except InvalidConfigError as exc:
        note(str(exc))
        return 2

    try:
        source = open_backend(args.source, agent, read_only=True)
    except (OlderSchemaError, UnfinishedStoreError) as exc:
        place = (AgentPlace(agent, agent_home(agent), args.source) if is_dsn(args.source)
                 else AgentPlace(agent, expanded(args.source)))
        note(upgrade_advice(exc, agent, upgrade_option(place, args.source)))
        return 1
    stage = "before"
    aside = builds_aside(args.target)
    try:
        # Closing the source and saying what moved come after the copy: Ctrl-C there is
        # said to have left it in place, not that nothing changed.
        try:
            check_filled(source)  # before a target is made for a copy that cannot be whole
            with migration_target(args.target, agent, source) as target:
                stage = "copying"
                report = migrate(source, target, row_progress(note))
                stage = "committed"  # built aside, it is not in the home until the block ends
            stage = "policy"
            try:
                copied = policy.copy()
            except OSError as exc:
                note(without_password(
                    f"moved agent {agent} to {args.target}, but its privacy policy could not "
                    f"be copied ({exc.strerror or exc}); {policy.advice()}", args.target))
                return 1
            stage = "done"
        finally:
            source.close()
        rows = ", ".join(rows_counted(n, t) for t, n in report.rows.items())
        print(f"moved agent {agent}: {rows}, {rows_counted(report.settings, 'settings')}; "
              f"content hash "
              f"{report.digest[:16]} matches")
        if report.replaced:
            note(f"copied with U+FFFD in place of each NUL or lone surrogate an older version "
                 f"stored, which no store of this version holds: {report.replaced};"
                 f" the source keeps them as they were")
        if copied is not None:
            note(copied)
        work_done(args)
    except KeyboardInterrupt as exc:
        stage = _stage_reached(stage, aside, args.target)
        note(without_password(_interrupted_migrate(
            stage, args.target, policy.advice() if policy.text is not None else None, aside),
            args.target))
        raise InterruptReported from exc
    except TargetHoldsMemoryError as exc:
        return holds_memory(exc)
    except Exception as exc:
        if stage != "copying":
            raise
        undo = (f", or delete it: `tiermem drop-agent --agent {agent}"
                f"{store_flag(args.target)} --yes`" if is_dsn(args.target) else "")
        into = f"agent {agent} in {args.target}" if is_dsn(args.target) else args.target
        left = (f"nothing was moved into {into}" if aside else
                f"{into} holds none of it, marked as a migrate that did not finish")
        note(without_password(
            f"{_failure(exc)}; {left} and the source was only read: run the same "
            f"`tiermem migrate` again once that is fixed, which copies it whole{undo}",
            args.target))
        if not isinstance(exc, TiermemError):
            raise  # no error of the store's: a fault, whose trace is needed to mend it
        return 1
    return 0


def _failure(exc: Exception) -> str:
    from tiermem.memory.errors import TiermemError

    return str(exc) if isinstance(exc, TiermemError) else \
        f"the copy failed ({type(exc).__name__}: {exc})"


def _stage_reached(stage: str, aside: bool, target: str) -> str:
    """The stage of a migrate Ctrl-C stopped at ``stage``, as what it left shows it. A
    database built aside (``aside``) is renamed into the new home only once its copy
    committed and matched, and statements still run after the rename (syncs, closing,
    leaving the blocks): whether the home holds one now says which side of the rename
    Ctrl-C landed on. Any other target's copy committed once ``migrate`` returned."""
    from tiermem.memory.store.transfer import builds_aside

    if aside and stage in ("copying", "committed"):
        return "copying" if builds_aside(target) else "policy"
    return "policy" if stage == "committed" else stage


def _interrupted_migrate(stage: str, target: str, policy_advice: str | None,
                         aside: bool) -> str:
    """What a migrate Ctrl-C stopped at ``stage`` left: the source is only ever read, and
    the copy commits whole or not at all, the target marked meanwhile or, ``aside``, its
    database built aside (memory.store.transfer); ``policy_advice`` says how to give the
    target the policy it is to have, if it needs one."""
    if stage == "done" or (stage == "policy" and policy_advice is None):
        return f"migrate stopped (Ctrl-C) after its copy into {target} committed and matched"
    if stage == "policy":
        return (f"migrate stopped (Ctrl-C) after its copy into {target} committed and "
                f"matched, before the agent's privacy policy was copied: {policy_advice}")
    if stage == "before":
        return ("migrate stopped (Ctrl-C) before it copied anything; the source was only read: "
                "run the same `tiermem migrate` again")
    left = ("its database is built aside and was never moved into place" if aside else
            "it is marked, so nothing takes it for an empty one")
    return (f"migrate stopped (Ctrl-C) before its copy committed: {target} holds no memory "
            f"yet ({left}) and the source was only read; run the same `tiermem migrate` "
            f"again, which copies it whole")
