"""The commands that work on PostgreSQL itself rather than on one agent's memory.

``tiermem drop-agent`` deletes an agent, and all its memory, from a PostgreSQL database
(an agent home is deleted by removing its directory), saying after a Ctrl-C what the
deletion left; ``tiermem pg`` starts, stops or checks the local PostgreSQL server that
``--store`` can name (memory/store/postgres/local_server.py).
"""

from __future__ import annotations

import argparse
import os
import shlex
from collections.abc import Callable

from tiermem.agent.interrupted import work_done
from tiermem.agent.interrupts import InterruptReported


def cmd_drop_agent(args: argparse.Namespace, note: Callable[[str], None]) -> int:
    from tiermem.agent.home import agent_home
    from tiermem.agent.place import store_flag, store_option

    dsn = store_option(args.store)
    if dsn is None:
        note(f"drop-agent deletes an agent kept in PostgreSQL: give --store DSN (or set "
             f"TIERMEM_STORE); an agent home is deleted by removing its directory, "
             f"{agent_home(args.agent)}")
        return 2
    again = f"`tiermem drop-agent --agent {args.agent}{store_flag(args.store)} --yes`"
    started = [False]  # set once a deletion, or the finishing of one, may have begun
    try:
        code = _drop_agent(args, dsn, again, started, note)
        if started[0]:
            work_done(args)
        return code
    except KeyboardInterrupt as exc:
        if not started[0] or getattr(args, "work_done", False):
            # agent/interrupted.py: before it deleted anything, or once what it did is
            # known, which needs no reading back from a server that may be gone by now
            raise
        note(_interrupted_drop(dsn, args.agent, again))
        raise InterruptReported from exc


def _drop_agent(args: argparse.Namespace, dsn: str, again: str, started: list[bool],
                note: Callable[[str], None]) -> int:
    from tiermem.agent.home import NoSuchAgentError
    from tiermem.agent.place import require_stored_agent
    from tiermem.memory.store.postgres.connection import public_dsn
    from tiermem.memory.store.postgres.removal import delete_agent, finish_dropped

    where = public_dsn(dsn)
    try:
        require_stored_agent(args.agent, dsn, args.store)
    except NoSuchAgentError:
        if not args.yes:
            raise
        # Gone already: perhaps by a drop-agent that Ctrl-C stopped after the deletion
        # committed, whose clearing of what the agent left this finishes.
        started[0] = True
        left = finish_dropped(dsn)
        if left is None:
            raise
        note(f"agent {args.agent!r} is not in {where}; finished the clearing a drop-agent cut "
             f"short left: the deleted agent's search statistics are removed and the "
             f"schema's tables vacuumed")
        for what in left:
            note(f"not reached: {what}")
        return 0
    if not args.yes:
        note(f"this deletes agent {args.agent!r} and all its memory from {where}, for good; "
             f"run {again} to do it")
        return 2
    started[0] = True
    left = delete_agent(dsn, args.agent)
    note(f"deleted agent {args.agent!r} from {where}")
    for what in left:
        note(f"not reached: {what}")
    return 0


def _interrupted_drop(dsn: str, agent: str, again: str) -> str:
    """What a drop-agent Ctrl-C stopped left, read back from the database: the agent is
    deleted in one transaction, and what it leaves is cleared once that has committed
    (memory/store/postgres/removal.py)."""
    try:
        from tiermem.memory.store.postgres.removal import dropped_unfinished

        unfinished = dropped_unfinished(dsn, agent)
    except (Exception, KeyboardInterrupt):  # a server out of reach now, or Ctrl-C again
        return (f"drop-agent stopped (Ctrl-C), and what it left could not be read back: run "
                f"{again} again; it deletes the agent, finishes the clearing after a "
                f"deletion cut short, or says the agent is gone")
    if unfinished is None:
        return (f"drop-agent stopped (Ctrl-C) before agent {agent!r} was deleted: it is as "
                f"it was, and {again} deletes it")
    if unfinished:
        return (f"drop-agent stopped (Ctrl-C) after agent {agent!r} was deleted, before the "
                f"clearing after it finished: its search statistics, and the dead row "
                f"versions and planner statistics (pg_stats) holding its text, may be left; "
                f"run {again} again to clear them")
    return f"drop-agent stopped (Ctrl-C) after agent {agent!r} was deleted and cleared"


def cmd_pg(args: argparse.Namespace, note: Callable[[str], None]) -> int:
    from tiermem.agent.home import home_variable, tiermem_home
    from tiermem.memory.store.postgres.local_server import LocalPostgres, default_data_dir
    from tiermem.user_paths import unknown_home

    if args.dir is None and (home_variable() is not None or os.geteuid() != 0):
        tiermem_home()  # refused empty or a file, as every other command refuses it
    if args.dir is not None and (unknown := unknown_home(args.dir)) is not None:
        note(f"--dir {args.dir}: {unknown}; give the server's data directory")
        return 2
    server = LocalPostgres(args.dir or default_data_dir())
    if args.action == "start":
        dsn = server.start()
        work_done(args)
        print(dsn)
        note(f"PostgreSQL runs on {server.data_dir}; use it with `export TIERMEM_STORE="
             f"{shlex.quote(dsn)}` or --store, stop it with `tiermem pg stop"
             f"{server.dir_option}`")
        return 0
    if args.action == "stop":
        stopped = server.stop()
        work_done(args)
        note(f"stopped the server on {server.data_dir}" if stopped
             else f"no server was running on {server.data_dir}")
        return 0
    status = server.status()
    if status is None or not status.ready:
        note(f"no server is running on {server.data_dir}" + (
            "" if status is None else " yet (it is starting)") + "; start one with "
            "`tiermem pg start" + (f" --dir {args.dir}`" if args.dir else "`"))
        return 1
    print(status.dsn)
    return 0
