"""``tiermem restore FILE``: an agent's memory rebuilt from a snapshot.

A snapshot is what the chat's ``/snapshot FILE`` writes (``HierarchicalMemory.snapshot()``):
every row of the memory as JSON. It is read a row at a time (bounded memory, whatever its
size), checked whole before anything is written, and
restored into a new agent, or with ``--replace`` over an agent's memory, which stays as
it was until the restored one is complete (memory/store/sqlite/restore.py; in PostgreSQL
one transaction). Without ``--replace``, an agent that holds a memory is refused before the
file is read. The way back from a damaged agent home, from the command line. A long
restore says how far it is on standard error: the file read and checked, then the rows
written.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path

from tiermem.agent.interrupted import work_done
from tiermem.agent.interrupts import InterruptReported
from tiermem.user_paths import expanded

_GIVE_A_SNAPSHOT = "give a file that /snapshot or HierarchicalMemory.snapshot() wrote"


def cmd_restore(args: argparse.Namespace, note: Callable[[str], None]) -> int:
    from tiermem.agent.place import agent_place
    from tiermem.agent.store_commands import snapshot_progress
    from tiermem.memory import HierarchicalMemory
    from tiermem.memory.errors import SnapshotError
    from tiermem.memory.ops.restore_target import restore_refusal
    from tiermem.memory.ops.snapshot import read_snapshot
    from tiermem.memory.text.counts import counted

    if args.snapshot == "-":
        # Checked whole before anything is written, then read again to be written: a pipe
        # gives its bytes once, and a spooled copy could fill the disk unannounced.
        note("restore reads the snapshot twice (checked whole before anything is written, "
             "then written), which standard input cannot give: save it to a file and give "
             "its path (a file named - as ./-)")
        return 2
    source = expanded(args.snapshot)
    shown = snapshot_progress(note)
    committed = False

    def progress(step: str, done: int, total: int) -> None:
        nonlocal committed
        if step == "committed":
            committed = True  # what a Ctrl-C from here on leaves is the restored memory
        else:
            shown(step, done, total)

    place = agent_place(args.agent, args.store)
    where = ({"store": place.dsn, "agent": place.name} if place.dsn is not None
             else {"path": place.home})
    if not args.replace:
        # Before the file is read, which takes minutes for a large one: the agent alone
        # says whether it is refused. The restore refuses it again if one came meanwhile.
        refusal = restore_refusal(**where)
        if refusal is not None:
            return _refused(refusal, source, note)
    try:
        # Checked whole first, a row at a time, as it was before anything is opened; its
        # rows are read again as they are written.
        snapshot = read_snapshot(source, progress)
    except OSError as exc:
        note(f"cannot read {source}: {exc.strerror or exc}")
        return 2
    except SnapshotError as exc:
        if isinstance(exc.__cause__, (UnicodeDecodeError, json.JSONDecodeError)):
            note(f"{source} is not a snapshot (not JSON: {exc.__cause__}); {_GIVE_A_SNAPSHOT}")
            return 2
        return _refused(exc, source, note)
    # What the home's database is before: a Ctrl-C that lands after the restored one took
    # its place (as the restored memory opens) must not be said to have left the old one.
    before = None if place.dsn is not None else _database_file(place.home)
    restored = False
    try:
        with place.in_use(note), HierarchicalMemory.restore(
                snapshot, replace=args.replace, progress=progress, **where) as memory:
            restored = True
            print(f"restored agent {place.name} from {source}: "
                  f"{counted(len(memory.core), 'fact')} in core, "
                  f"{counted(len(memory.archival), 'passage')}, "
                  f"{counted(len(memory.recall), 'message')}")
        note(policy_note(place.name, place.home))
        work_done(args)
    except KeyboardInterrupt as exc:
        restored = restored or committed
        if not restored and place.dsn is None:
            now = _database_file(place.home)
            restored = now is not None and now != before
        note(_interrupted(place.name, source, restored, place.dsn is not None))
        raise InterruptReported from exc
    except SnapshotError as exc:
        return _refused(exc, source, note)
    except OSError as exc:
        # A file step of the restore failed (the rename, a sync, removing the old indexes:
        # a full disk, a failing device, permissions): said, not a traceback.
        placed = place.dsn is None and _database_file(place.home) not in (None, before)
        reason = exc.strerror or str(exc)
        if exc.filename:
            reason += f" ({exc.filename})"
        kept = (f"agent {place.name}'s home holds the restored memory, but what followed "
                f"failed: check it with `tiermem diagnostics --agent {place.name}`" if placed
                else f"agent {place.name}'s memory is as it was; once the cause is fixed, run "
                     f"the same `tiermem restore` again")
        note(f"cannot restore agent {place.name} from {source}: {reason}; {kept}")
        return 1
    return 0


def _database_file(home: Path) -> tuple[int, int] | None:
    """Which file the agent home's database is (device and inode), None for none: the
    restore renames the one it built over it (memory/store/sqlite/restore.py)."""
    from tiermem.memory.store.sqlite.files import DB_FILE

    try:
        found = (home / DB_FILE).stat()
    except OSError:
        return None
    return found.st_dev, found.st_ino


def _refused(exc: Exception, source: Path, note: Callable[[str], None]) -> int:
    """The exit status of a restore the snapshot or the agent refused, said."""
    from tiermem.memory.ops.snapshot_schema import SNAPSHOT_FORMAT
    from tiermem.memory.restore_errors import RestoreTargetHoldsMemoryError

    said = str(exc)
    if isinstance(exc, RestoreTargetHoldsMemoryError):
        # The library's advice (an empty directory, replace=True) names nothing this
        # command takes: here the place is the agent's name.
        note(f"{exc.situation}; restore the snapshot as a new agent (--agent NEW_NAME), so nothing "
             f"stored there is overwritten, or add --replace to replace it")
        return 1
    if said.startswith("not a tiermem snapshot"):  # its advice is for a caller in Python
        note(f"{source} is not a tiermem snapshot (no \"format\": \"{SNAPSHOT_FORMAT}\" "
             f"in it); {_GIVE_A_SNAPSHOT}")
    else:
        note(f"{source} cannot be restored: {said}")
    return 2


def policy_note(agent: str, home: Path) -> str:
    """Which privacy policy the restored agent runs under. A snapshot holds the memory,
    not the policy file beside it (agent/policy_file.py): restored as a new agent, the
    policy of the agent it was taken from is not there unless it is copied, and the user
    must not believe it is."""
    from tiermem.memory.policy_file import POLICY_FILE
    from tiermem.memory.text.shown import shown_path

    policy = home / POLICY_FILE
    if policy.is_file():
        return f"agent {agent} runs under the privacy policy {shown_path(policy)}"
    if policy.exists() or policy.is_symlink():  # a directory, a broken link
        return (f"agent {agent}'s privacy policy {shown_path(policy)} is not a file that can "
                f"be read, so a chat with the agent refuses to start: put the policy file "
                f"there, or remove what is there to run the agent with none")
    return (f"agent {agent} has no privacy policy: a snapshot holds the memory, not the "
            f"policy file; if the agent it was taken from had one (its policy.yaml), copy it "
            f"to {shown_path(policy)} before the agent is used")


def _interrupted(agent: str, source: Path, restored: bool, postgres: bool) -> str:
    """What a restore Ctrl-C stopped left (``restored``: it had committed)."""
    if restored:
        return f"restore stopped (Ctrl-C) after agent {agent}'s memory was restored from {source}"
    kept = ("its rows are written in one transaction, which did not commit: agent "
            f"{agent}'s memory is as it was (a new agent stays marked as an unfinished "
            f"restore until one completes)" if postgres else
            f"the new database is built aside and was never moved into place: agent {agent}'s "
            f"home is as it was")
    return (f"restore stopped (Ctrl-C) before it finished; {kept}. Run the same "
            f"`tiermem restore` again")
