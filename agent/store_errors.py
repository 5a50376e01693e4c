"""How the command line words the memory's refusals whose library messages speak to a
Python caller (``read_only=True``, ``clock=``, a database file's path) rather than to
someone at a shell, who needs the agent's name and a command to run."""

from __future__ import annotations

import argparse
from pathlib import Path

from tiermem.memory.errors import (
    NEWER_TIERMEM,
    ClockChangeError,
    ConnectionLostError,
    EmbedderMismatchError,
    ForgetRequestTooLongError,
    NewerSchemaError,
    ReindexIncompleteError,
    StoredConfigError,
    StoreLockedError,
    TiermemError,
    WriterLockError,
)
from tiermem.memory.store.sqlite.errors import UnwritableMemoryError


def cli_message(exc: TiermemError, args: argparse.Namespace) -> str:
    """What ``tiermem`` prints on standard error for ``exc`` raised by the command ``args``
    parsed (the library's message when the command line has nothing better to say)."""
    from tiermem.agent.errors import ProviderError

    if isinstance(exc, ProviderError) and exc.hint:
        # How the server must be set up (or the URL fixed) is what to do next.
        from tiermem.agent.command_hints import hint_for

        return f"{exc}; {hint_for(exc.hint, args.command)}"
    whose = _whose(args)
    if isinstance(exc, NewerSchemaError) and whose:
        text = (f"{whose} was written by a newer version of tiermem (schema "
                f"{exc.found}; this version knows schemas up to {exc.current}) and was left "
                f"as it was; {NEWER_TIERMEM}, or use the version that wrote it")
        if args.command == "upgrade":
            text += (" (`tiermem upgrade` brings a memory an older version wrote up to this "
                     "version, not tiermem itself)")
        return text
    if isinstance(exc, ForgetRequestTooLongError) and args.command == "forget":
        # The library's remedy is a Python call (HierarchicalMemory.erase); a shell has these.
        from tiermem.agent.place import store_flag

        agent = f"--agent {args.agent}{store_flag(getattr(args, 'store', None))}"
        return (f"{exc.situation}; forget a longer text with --mode exact, which needs no "
                f"model, giving it whole as stored (`tiermem forget {agent} --mode exact -` "
                f"reads it from standard input); `tiermem chat {agent}` with /core, "
                f"/archival TEXT or /recall TEXT shows how it was stored")
    reader = _reader(args)
    if isinstance(exc, StoreLockedError):
        orphaned = getattr(exc, "orphaned_backend", None)  # PostgreSQL's AgentLockedError
        if orphaned is not None:
            gone = "no longer has it open" if exc.this_process else "has exited"
            text = (f"{exc.situation}, which {gone}, but its database session has not "
                    f"ended; end it with `SELECT pg_terminate_backend({orphaned})` and try "
                    f"again")
        else:
            text = (f"{exc.situation}; wait for that process to end (or end its session) "
                    f"and try again")
        # A reindex changes every vector, so a reader is refused until it ends.
        return text + (f". Commands that only read, such as {reader}, work meanwhile "
                       f"(unless it is a reindex, which they wait for)" if reader else "")
    if isinstance(exc, WriterLockError):
        text = (f"cannot open {exc.path} ({exc.reason}), the lock a command that writes "
                f"takes on the agent home; check that this user owns {Path(exc.path).parent} "
                f"and may write in it")
        return text + (f". On a read-only file system, use a command that only reads, "
                       f"such as {reader}" if reader else "")
    if isinstance(exc, UnwritableMemoryError) and exc.not_files:
        # Its reason says what to move; no permission is wanting.
        text = f"{exc.situation}; nothing was changed. Once it is moved, try again"
        return text + (f"; meanwhile, to read the memory, use {reader}" if reader else "")
    if isinstance(exc, UnwritableMemoryError):
        # The library's remedy (read_only=True) is a Python call; a shell has these.
        text = (f"{exc.situation}: this user may not write the files of {exc.where}, or the "
                f"file system holding them is read-only; nothing was changed. Make "
                f"{exc.where} and its files writable by this user (chmod u+w, or chown them "
                f"to this user) to write")
        return text + (f"; to read the memory without writing, use {reader}" if reader else "")
    reindex = _reindex(args)
    if isinstance(exc, ConnectionLostError):
        # "Open the memory again" speaks to a caller holding it; here the command ended.
        embedder = getattr(args, "embedder", None)
        again = (f"run `{reindex}{f' --embedder {embedder}' if embedder else ''}` again (it "
                 f"continues where it stopped)" if args.command == "reindex" and reindex else
                 "run the command again")
        return f"{exc.situation}. Check the server ({exc.check}), then {again}"
    if isinstance(exc, EmbedderMismatchError) and reindex:
        embedder = getattr(args, "embedder", None)
        return (f"{whose} was embedded with '{exc.stored}' (dim {exc.stored_dim}), not with "
                f"the embedder asked for, '{exc.given}' (dim {exc.given_dim}); leave out "
                f"--embedder to use the one it was embedded with, or re-embed it first with "
                f"`{reindex}{f' --embedder {embedder}' if embedder else ''}`")
    if isinstance(exc, EmbedderMismatchError) and whose:
        # A scenario's memory (or a --home directory): reindex has no option reaching it.
        return (f"{whose} was embedded with '{exc.stored}' (dim {exc.stored_dim}), not with "
                f"the embedder asked for, '{exc.given}' (dim {exc.given_dim}); leave out "
                f"--embedder to use the one it was embedded with")
    if isinstance(exc, ReindexIncompleteError) and exc.running:
        return (f"a reindex of {whose or 'this memory'} to the embedder '{exc.target}' is "
                f"running ({exc.done} of {exc.total} passages so far), so search by meaning "
                f"cannot work until it finishes; wait for it, then try again")
    if isinstance(exc, ReindexIncompleteError) and reindex:
        flag = embedder_option(exc.target)
        again = (f"run `{reindex} --embedder {flag}` again" if flag else
                 f"run `{reindex} --embedder EMBEDDER` again with the embedder it was started "
                 f"with")
        return (f"a reindex of {whose} to the embedder '{exc.target}' stopped after "
                f"{exc.done} of {exc.total} passages, so search by meaning cannot work until "
                f"it finishes; {again} (it continues where it stopped)")
    named: str | None = getattr(args, "agent", None)
    if isinstance(exc, StoredConfigError) and named and not _scenario(args):
        from tiermem.agent.place import store_flag

        fixes = " and ".join(f"`tiermem config{store_flag(getattr(args, 'store', None))} "
                             f"--agent {named} {name} VALUE`" for name in exc.settings)
        return (f"{exc.situation}, as agent {named}'s memory stores it (no version writes "
                f"such a value); {fixes} "
                f"{'replaces it' if len(exc.settings) == 1 else 'replace them'}")
    if isinstance(exc, ClockChangeError):
        # No command changes the clock: it is chosen when a memory is created, from Python.
        return (f"invalid memory config: clock: {whose or 'this memory'} {exc.situation}; "
                f"an agent keeps the clock its memory was created with, and nothing was "
                f"changed")
    return str(exc)


def _scenario(args: argparse.Namespace) -> str | None:
    """The scenario whose memory ``args`` named (``diagnostics --scenario``, ``scenario``)."""
    if args.command == "scenario":
        return getattr(args, "name", None)
    return getattr(args, "scenario", None)


def _reader(args: argparse.Namespace) -> str | None:
    """A command that reads the memory ``args`` named while another process writes it;
    None when none can: a directory given with ``--home`` or ``migrate``'s, which no such
    command has an option for, and a memory ``upgrade`` found at an older schema (it opens
    for writing only then), which the readers refuse until it is upgraded."""
    if getattr(args, "home", None) is not None or args.command in ("migrate", "upgrade"):
        return None
    from tiermem.agent.place import store_flag

    store = store_flag(getattr(args, "store", None))
    scenario = _scenario(args)
    if scenario:
        return f"`tiermem diagnostics --scenario {scenario}{store}`"
    agent = getattr(args, "agent", None)
    named = f" --agent {agent}" if agent else ""
    return f"`tiermem diagnostics{named}{store}`"


def reindex_command(args: argparse.Namespace) -> str:
    """``tiermem reindex`` with the options that found the memory of the reindex ``args``
    parsed."""
    from tiermem.agent.place import store_flag

    return f"tiermem reindex --agent {args.agent}{store_flag(getattr(args, 'store', None))}"


def _reindex(args: argparse.Namespace) -> str | None:
    """``tiermem reindex`` for the agent ``args`` named (None for a scenario's memory or a
    directory given with ``--home``, which ``reindex`` has no option for)."""
    agent = getattr(args, "agent", None)
    if not agent or _scenario(args) or getattr(args, "home", None) is not None:
        return None
    return reindex_command(args)


def embedder_option(embedder_id: str) -> str | None:
    """The ``--embedder`` value that names the embedder ``embedder_id``; None for one only
    the library can configure."""
    from tiermem.memory.embed.embeddings import HashingEmbedder
    from tiermem.memory.embed.minilm import MiniLMEmbedder

    # --embedder hashing is HashingEmbedder() at its default size; another size is the
    # library's to configure, and reindexing with the default would start over.
    return {MiniLMEmbedder.id: "local", HashingEmbedder().id: "hashing"}.get(embedder_id)


def _whose(args: argparse.Namespace) -> str | None:
    """``agent ada's memory`` (or a scenario's) as the command named it; None when it named
    only a directory."""
    scenario = _scenario(args)
    if scenario:
        return f"scenario {scenario}'s memory"
    agent = getattr(args, "agent", None)
    return f"agent {agent}'s memory" if agent else None
