"""``tiermem upgrade``: bring an agent's memory to this version's schema, in place.

A memory an older tiermem wrote lacks the migrations added since. Opening it for
writing runs them (every writing command does, chat among them), but the
commands that only read (``diagnostics``, ``config`` showing, ``migrate``'s
source) cannot: they refuse it, naming this command (``upgrade_advice``). The
same holds for a memory whose creation a stopped process cut short: an open for
writing, this command's too, finishes creating it.
On PostgreSQL the schema is the database's, so every agent in it is upgraded, even
while the agent named is open for writing elsewhere: that is said, and the command
succeeds, since the upgrade asked for was done.
"""

from __future__ import annotations

import argparse
import functools
import shlex
from collections.abc import Callable
from typing import TYPE_CHECKING

from tiermem.agent.interrupted import work_done
from tiermem.agent.interrupts import InterruptReported
from tiermem.agent.place import AgentPlace, store_flag
from tiermem.memory.errors import (
    EMPTY_FILE_CAUSES,
    ConnectionLostError,
    EmptyStoreFileError,
    InvalidInputError,
    NewerSchemaError,
    OlderSchemaError,
    StoreError,
    StoreLockedError,
    StoreUnreachableError,
    TiermemError,
    UnfinishedStoreError,
)
from tiermem.memory.text.shown import shown_path
from tiermem.memory.validation import validate_agent_name
from tiermem.user_paths import expanded

if TYPE_CHECKING:
    from tiermem.memory.store.opening import SchemaUpgrade


def cmd_upgrade(args: argparse.Namespace, note: Callable[[str], None]) -> int:
    from tiermem.agent.home import DEFAULT_AGENT
    from tiermem.agent.place import agent_place
    from tiermem.agent.terminal import report_console
    from tiermem.memory.output_file import emit_json, output_path
    from tiermem.memory.store.opening import upgrade_backend
    from tiermem.memory.store.sqlite import DB_FILE
    from tiermem.memory.store.sqlite.connection import is_empty_file

    if args.home is not None:
        home = expanded(args.home).absolute()
        if not (home / DB_FILE).is_file():
            note(f"no memory at {home} ({DB_FILE} does not exist); give the directory of an "
                 f"agent home, e.g. $TIERMEM_HOME/agents/NAME")
            return 2
        place = AgentPlace(args.agent or home.name, home)
    else:
        name = args.agent or DEFAULT_AGENT
        try:
            place = agent_place(name, args.store, existing=True)
        except StoreError as exc:
            # The database could not be asked whether it holds the agent (its server is
            # down): refused like any upgrade, at a schema no other try could tell.
            if args.json is None:
                raise
            return _refused(args, name, exc, lambda: None, (), note)
    json_path = output_path(args.json)
    was_empty = place.dsn is None and is_empty_file(place.home / DB_FILE)
    try:
        with place.in_use(note):
            done = upgrade_backend(place.dsn or str(place.home), place.name)
        work_done(args)
    except KeyboardInterrupt as exc:
        note(interrupted_upgrade(place, args.store))
        raise InterruptReported from exc
    except TiermemError as exc:
        behind = _counters_kept_low(exc, place)
        if args.json is None and not behind:
            raise
        return _refused(args, place.name, exc, functools.partial(_refused_at, exc, place),
                        behind, note)
    # A migrate or restore that marked the memory and stopped: its schema is current but
    # it holds no memory, which no upgrade makes. That is all there is to say then.
    unfinished = _copy_unfinished(place)
    if args.json is not None:
        emit_json(_json_report(place.name, done, unfinished), json_path)
    if unfinished is not None:
        note(unfinished)
        return 1
    if done.finished_creating and was_empty:
        said = (f"created a new, empty memory for agent {place.name} in its empty {DB_FILE} "
                f"(0 bytes before); it is at schema {done.current}")
    elif done.finished_creating:
        said = (f"finished creating agent {place.name}'s memory, which the process creating "
                f"it left unfinished; it is at schema {done.current} and holds nothing yet")
    elif done.held is not None:
        said = (f"upgraded the schema of agent {place.name}'s database from {done.found} to "
                f"{done.current}, for every agent in it; {done.held}, which the upgrade did "
                f"not have to wait for")
    elif done.found != done.current:
        said = f"upgraded agent {place.name}'s memory from schema {done.found} to {done.current}"
    elif done.raised:
        said = f"agent {place.name}'s memory is already at schema {done.current}"
    else:
        said = f"agent {place.name}'s memory is already at schema {done.current}; nothing to do"
    if done.raised:
        counters = ", ".join(f"{key} from {held} to {level}" for key, held, level in done.raised)
        said += (f"; raised its counters left below what its rows hold ({counters}), which "
                 f"it could not move on from")
    if done.not_raised:
        said += (f"; its counters left below what its rows hold "
                 f"({_counters_held(done.not_raised)}) were not "
                 f"raised, as that process writes them: once it ends, run `tiermem "
                 f"upgrade{upgrade_option(place, args.store)}` again to raise them")
    report_console(args.json == "-").print(said, markup=False)
    return 0


def _refused(args: argparse.Namespace, agent: str, exc: TiermemError,
             found: Callable[[], int | None], behind: tuple[tuple[str, str, int], ...],
             note: Callable[[str], None]) -> int:
    """Say why the upgrade of ``agent`` was refused, naming the counters it would raise
    (``behind``); with ``--json`` the object too, at the schema ``found`` tells."""
    from tiermem.agent.store_errors import cli_message
    from tiermem.memory.output_file import emit_json, output_path

    refusal = cli_message(exc, args)
    if behind:
        refusal += (f", which raises its counters left below what its rows hold "
                    f"({_counters_held(behind)})")
    # A script reading the JSON gets the same object as on success, saying why nothing
    # was done, rather than nothing at all; the exit status stays the refusal's (1 for
    # every error of the memory).
    if args.json is not None:
        held = exc.situation if isinstance(exc, StoreLockedError) else None
        emit_json(_refusal_report(agent, found(), held, refusal, behind),
                  output_path(args.json))
    note(refusal)
    return 1


def _json_report(agent: str, done: SchemaUpgrade, error: str | None) -> dict[str, object]:
    """What ``--json`` prints. held_by: who had the agent open for writing (its database's
    schema upgraded all the same on PostgreSQL), else null; error: why nothing could be
    done, else null; raised: the counters left below what the rows hold, raised to their
    level; not_raised: those the writer elsewhere kept from being raised."""
    return {"agent": agent, "from": done.found, "to": done.current, "upgraded": done.changed,
            "finished_creating": done.finished_creating, "held_by": done.held,
            "error": error, "raised": _counters_json(done.raised),
            "not_raised": _counters_json(done.not_raised)}


def _refusal_report(agent: str, found: int | None, held: str | None, error: str,
                    not_raised: tuple[tuple[str, str, int], ...]) -> dict[str, object]:
    """What ``--json`` prints when the upgrade was refused: the memory stays at ``found``
    (null when it cannot be told)."""
    return {"agent": agent, "from": found, "to": found, "upgraded": False,
            "finished_creating": False, "held_by": held, "error": error, "raised": [],
            "not_raised": _counters_json(not_raised)}


def _counters_kept_low(exc: TiermemError,
                       place: AgentPlace) -> tuple[tuple[str, str, int], ...]:
    """The counters left below the rows that a writer elsewhere (``exc``) kept the upgrade
    from raising: a memory at this version's schema can still be read meanwhile, one
    an older version wrote cannot, and then nothing is said of them."""
    from tiermem.memory.errors import StoreError
    from tiermem.memory.store.opening import counters_behind

    if not isinstance(exc, StoreLockedError):
        return ()
    try:
        return counters_behind(place.dsn or str(place.home), place.name)
    except StoreError:
        return ()


def _counters_held(counters: tuple[tuple[str, str, int], ...]) -> str:
    """``tick holds 0, its rows 2``, for each counter left below the rows."""
    return ", ".join(f"{key} holds {held}, its rows {level}" for key, held, level in counters)


def _counters_json(counters: tuple[tuple[str, str, int], ...]) -> list[dict[str, object]]:
    """Each counter as ``--json`` gives it: what it held as a number (null when what was
    stored is no whole number), and the rows' level."""
    return [{"counter": key, "from": int(held) if held.isascii() and held.isdigit() else None,
             "to": level} for key, held, level in counters]


def _refused_at(exc: TiermemError, place: AgentPlace) -> int | None:
    """The schema a refused upgrade left the memory at; None when it cannot be told (a
    lost or unreachable server, which another try would wait for, or a file this user may
    not read)."""
    if isinstance(exc, NewerSchemaError):
        return exc.found
    if isinstance(exc, (ConnectionLostError, StoreUnreachableError)):
        return None
    return _found_schema(place)


def _found_schema(place: AgentPlace) -> int | None:
    """The schema the memory at ``place`` is at, as a read-only open finds it (None when
    that open fails)."""
    from tiermem.memory.errors import StoreError
    from tiermem.memory.store.opening import open_backend, schema_version

    try:
        open_backend(place.dsn or str(place.home), place.name, read_only=True).close()
    except OlderSchemaError as exc:
        return exc.found
    except StoreError:
        return None
    return schema_version(place.dsn or str(place.home))


def _copy_unfinished(place: AgentPlace) -> str | None:
    """Why the memory holds none when a migrate or restore into it marked it and stopped
    before filling it; None when it is not such a memory."""
    from tiermem.memory.errors import StoreError
    from tiermem.memory.store.transfer import check_filled

    store = place.open_store(read_only=True)
    try:
        check_filled(store)
    except StoreError as exc:
        return str(exc)
    finally:
        store.close()
    return None


def interrupted_upgrade(place: AgentPlace, given_store: str | None) -> str:
    """What an upgrade Ctrl-C stopped left: each migration commits on its own, so the
    memory is at the schema of the last one that completed, and another upgrade runs the
    rest."""
    from tiermem.memory.errors import StoreError
    from tiermem.memory.store.opening import open_backend

    again = f"`tiermem upgrade{upgrade_option(place, given_store)}`"
    try:
        open_backend(place.dsn or str(place.home), place.name, read_only=True).close()
    except OlderSchemaError as exc:
        return (f"upgrade stopped (Ctrl-C) at schema {exc.found} of {exc.current}; agent "
                f"{place.name}'s memory is not damaged: run {again} again to continue")
    except (StoreError, KeyboardInterrupt):
        pass
    else:
        return (f"upgrade stopped (Ctrl-C) after agent {place.name}'s memory reached this "
                f"version's schema; nothing is left to do")
    return (f"upgrade stopped (Ctrl-C); each step of it that completed was saved: run "
            f"{again} again to continue")


def upgrade_advice(exc: OlderSchemaError | UnfinishedStoreError, agent: str,
                   options: str) -> str:
    """What a read-only command says of agent ``agent``'s memory an older version wrote,
    or one whose creation was cut short: the command that upgrades or finishes it
    (``options``: what it needs to find the memory, from ``upgrade_option``)."""
    command = f"tiermem upgrade{options}"
    if isinstance(exc, EmptyStoreFileError):
        # restore takes an agent's name, not a directory (--home).
        restore = ("" if "--home" in options else
                   f", or bring a snapshot back with `tiermem restore FILE --agent "
                   f"{shlex.quote(agent)} --replace`")
        return (f"agent {agent}'s memory file {shown_path(exc.path)} is empty (0 bytes): "
                f"{EMPTY_FILE_CAUSES}. If the agent had a memory, it is not in this file: copy "
                f"it again from where it came (with no session open){restore}; to start the "
                f"agent afresh, run `{command}`, which creates an empty memory there")
    if isinstance(exc, UnfinishedStoreError):
        return (f"agent {agent}'s memory was never finished being created (the process "
                f"creating it stopped first) and holds nothing yet; run `{command}` to finish "
                f"creating it (writing commands such as chat also finish it)")
    return (f"agent {agent}'s memory was written by an older version of tiermem (schema "
            f"{exc.found}; this version reads {exc.current}); run `{command}` to upgrade it "
            f"in place (writing commands such as chat also upgrade it)")


def upgrade_option(place: AgentPlace, given_store: str | None) -> str:
    """The options for ``upgrade_advice`` (`` --agent NAME``, with `` --store DSN`` or
    `` --home DIR``): what ``tiermem upgrade`` needs to find the agent at ``place``,
    given ``--store`` as the user gave it."""
    from tiermem.agent.home import agent_home

    if place.dsn is not None:
        return _agent_flag(place.name) + store_flag(given_store)
    home = place.home.absolute()
    try:
        usual = agent_home(place.name).absolute()
    except InvalidInputError:
        usual = None  # a name no agent home can have (a scenario's): name the directory
    if home == usual:
        return _agent_flag(place.name)
    # With --home, upgrade names the agent after the directory unless --agent says
    # otherwise; a directory name need not be a valid agent name (`my agent`).
    agent = "" if place.name == home.name else _agent_flag(place.name)
    return f"{agent} --home {shlex.quote(str(home))}"


def _agent_flag(name: str) -> str:
    """`` --agent NAME``, or nothing for a name ``--agent`` would refuse."""
    try:
        validate_agent_name(name)
    except InvalidInputError:
        return ""
    return f" --agent {shlex.quote(name)}"
