"""The line Ctrl-C leaves on standard error when the command it stopped said nothing itself.

``forget``, ``reindex``, ``migrate``, ``upgrade``, ``restore``, ``drop-agent``, ``eval``
and a chat read back or know what they left and say so (raising ``InterruptReported``); every
other command gets one line here, from what the command can have changed: which
is nothing for the commands that only read, and for the others what stands and
how to check. Once a command's work is done (``work_done``), the line says that instead,
whatever the command. cli.py writes it and exits 130.

Ctrl-C often lands while a command imports its modules, and leaves the one it cut short
half made: this module imports none of tiermem's, and the one helper it borrows is
imported only when needed and given up on if that import fails.
"""

from __future__ import annotations

import argparse

#: What each command that only reads left unchanged, and why. Not "nothing": opening a home
#: made before homes were private makes it private first (and says so on its own line).
_READS_ONLY = {
    "diagnostics": "the memory was not changed: it only reads it (a report file is written "
                   "whole or not at all)",
    "doctor": "nothing was changed: it only sends test requests to the model server",
    "pg status": "nothing was changed: it only asks whether the server runs",
}


def work_done(args: argparse.Namespace) -> None:
    """Mark ``args``'s command as having done its work: a Ctrl-C from here on (as it writes
    the last of its report, returns, or the command line ends) stopped it after that, and
    the lines below, which say what a command stopped before then left, are not true of
    it. A command calls this last inside the block whose own Ctrl-C handling says what it
    left, so no moment falls between the two."""
    args.work_done = True


def interrupted_note(args: argparse.Namespace | None) -> str:
    """The ``tiermem:`` line for Ctrl-C during ``args``'s command (None: before one was
    read from the command line)."""
    command = getattr(args, "command", None)
    if args is None or command is None:
        return "stopped (Ctrl-C) before a command started; nothing was changed"
    if command == "pg":
        command = f"pg {args.action}"  # start, stop or status: each leaves its own
    if getattr(args, "work_done", False):
        return (f"{command} stopped (Ctrl-C) after its work was done, which stands; only "
                f"output it had still to write may be missing")
    if command in _READS_ONLY:
        return f"{command} stopped (Ctrl-C); {_READS_ONLY[command]}"
    agent = getattr(args, "agent", None)
    where = _store_flag(getattr(args, "store", None))
    if command == "config":
        if getattr(args, "value", None) is None:
            return ("config stopped (Ctrl-C); the settings were not changed: it only showed "
                    "them")
        return (f"config stopped (Ctrl-C); the change to {args.setting} is stored whole or not "
                f"at all: `tiermem config{where} --agent {agent} {args.setting}` shows which")
    if command == "chat":
        return "chat stopped (Ctrl-C) before it read any input; no message was sent or kept"
    if command == "index":
        return (f"index stopped (Ctrl-C); a search graph is saved whole or not at all, and "
                f"the memory's data is unchanged: run `tiermem index{where} --agent {agent}` "
                f"again to build what is missing")
    if command == "scenario":
        return ("scenario stopped (Ctrl-C) before its report; its memory under "
                "$TIERMEM_HOME/scenarios is left partial, and the next run starts it afresh")
    if command == "benchmark":
        return ("benchmark stopped (Ctrl-C) before its report; it works in temporary "
                "directories, so nothing else was changed")
    if command in ("pg start", "pg stop"):
        option = f" --dir {args.dir}" if getattr(args, "dir", None) else ""
        return (f"{command} stopped (Ctrl-C); the server may be left starting or stopping: "
                f"`tiermem pg status{option}` says whether it runs, `tiermem pg stop{option}` "
                f"stops it")
    if command == "drop-agent":
        # Once its deletion may have begun, drop-agent reads back what it left and says so.
        return (f"drop-agent stopped (Ctrl-C) before it deleted anything: agent {agent!r} is "
                f"as it was, if it is there")
    if command == "forget" and (args.erase_forgotten or args.finish_erasures):
        return ("forget stopped (Ctrl-C); an erasure commits whole or not at all: run the "
                "same command again to finish it (it says when nothing is left to erase)")
    # forget, reindex, migrate, upgrade, restore and eval say what they left once their
    # work starts; this is Ctrl-C before it, while they check and open what they need (an
    # open may upgrade an older schema, which commits whole, or make a home private).
    if command == "eval":
        return "eval stopped (Ctrl-C) before it changed anything"
    return f"{command} stopped (Ctrl-C) before it changed what the memory holds"


def _store_flag(given: str | None) -> str:
    """`` --store DSN`` as the command suggestions write it (agent/place.py)."""
    if given is None:
        return ""
    try:
        from tiermem.agent.place import store_flag
    except Exception:  # a module Ctrl-C cut short; the DSN may hold a password
        return " --store DSN"
    return store_flag(given)


__all__ = ["interrupted_note", "work_done"]
