"""Where an agent's memory lives: its home directory (SQLite), or a PostgreSQL database
that holds many agents, each by name.

The command line builds one ``AgentPlace`` from ``--agent`` and ``--store`` (or
``TIERMEM_STORE``) and opens everything through it, so each command works the
same on both backends.
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tiermem.agent.home import agent_home, existing_agent_home, no_such_agent, private_home
from tiermem.memory.errors import InvalidInputError
from tiermem.memory.hierarchy import HierarchicalMemory
from tiermem.memory.store.contract import StorageBackend
from tiermem.memory.store.location_text import (
    holds_password,
    is_dsn,
    looks_like_url,
    without_password,
)
from tiermem.memory.store.opening import STORE_VARIABLE, open_backend
from tiermem.memory.store.sqlite import DB_FILE
from tiermem.memory.validation import validate_agent_name
from tiermem.user_paths import expanded, unknown_home


class StoreOptionError(InvalidInputError):
    """``--store``, ``TIERMEM_STORE`` or one of migrate's ``--from`` and ``--to`` names no
    place a memory can be read from or written to (a usage error)."""


@dataclass(frozen=True)
class AgentPlace:
    """Agent ``name``: in the database ``dsn`` when one is given, else in ``home``."""

    name: str
    home: Path
    dsn: str | None = None

    @property
    def files_home(self) -> Path | None:
        """The directory whose files hold this agent's memory: ``home``, or None for an
        agent in PostgreSQL (a directory of its name then belongs to a SQLite agent)."""
        return self.home if self.dsn is None else None

    def open_store(self, *, read_only: bool) -> StorageBackend:
        """The agent's storage alone (no embedder, no tiers), e.g. to read its settings."""
        return open_backend(self.dsn or str(self.home), self.name, read_only=read_only)

    def open_memory(self, **options: Any) -> HierarchicalMemory:
        if self.dsn is not None:
            return HierarchicalMemory(store=self.dsn, agent=self.name, **options)
        return HierarchicalMemory(self.home, **options)

    @contextlib.contextmanager
    def in_use(self, note: Callable[[str], None], *,
               reading: bool = False) -> Iterator[AgentPlace]:
        """While the agent is used: a home directory is kept private to its user (when
        only ``reading`` it, one this user owns and may write)."""
        if self.dsn is not None:
            yield self
            return
        with private_home(self.home, note, reading=reading):
            yield self


def store_option(given: str | None) -> str | None:
    """The PostgreSQL DSN the user chose with ``--store`` or ``TIERMEM_STORE`` (None: the
    agent home directory)."""
    store = given or os.environ.get(STORE_VARIABLE) or None
    if store is None:
        return None
    source = "--store" if given else STORE_VARIABLE
    if not is_dsn(store):
        raise StoreOptionError(
            f"{source} must be a PostgreSQL DSN like 'postgresql://USER@HOST:5432/DATABASE' "
            f"(`tiermem pg start` prints one for a local server), not "
            f"{without_password(repr(store), store)}; leave it unset to keep agents in their "
            f"home directories")
    return checked_dsn(store, source)


def checked_dsn(dsn: str, source: str) -> str:
    """``dsn`` when it can be read as a DSN; else a usage error naming ``source``."""
    try:
        from tiermem.memory.store.postgres.dsn_checks import dsn_problem
    except ImportError:
        return dsn  # opening the store then says what to install
    problem = dsn_problem(dsn)
    if problem is not None:
        raise StoreOptionError(f"{source}: {problem}")  # dsn_problem hides the password
    return dsn


def checked_home(location: str, option: str, *, existing: bool) -> Path:
    """The agent home directory ``location`` names for ``option``: one that holds a memory
    (``existing``), else one that can be created; a usage error otherwise, found before
    anything is opened or created."""
    example = agent_home("NAME")
    if looks_like_url(location):
        raise StoreOptionError(
            f"{option}: {without_password(repr(location), location)} is neither a PostgreSQL "
            f"DSN (postgresql://USER@HOST:PORT/DATABASE, or postgres://) nor a directory; "
            f"give a DSN or an agent home directory (e.g. {example})")
    home = expanded(location).absolute()
    if existing:
        if not home.exists():
            problem = f"no agent home at {home}"
        elif not home.is_dir():
            problem = f"{home} is not a directory"
        elif not (home / DB_FILE).is_file():
            problem = f"{home} holds no agent memory (no {DB_FILE})"
        else:
            return home
        raise StoreOptionError(f"{option}: {problem}; give the directory of an agent (e.g. "
                               f"{example}) or a postgresql:// DSN")
    parent = home
    while not parent.exists():
        parent = parent.parent
    if (unknown := unknown_home(location)) is not None:
        problem = unknown
    elif parent == home and not home.is_dir():
        problem = f"{home} is not a directory"
    elif not parent.is_dir():
        problem = f"cannot create the agent home {home}: {parent} is not a directory"
    elif not os.access(parent, os.W_OK | os.X_OK):
        problem = (f"cannot write the agent home {home}: the directory {parent} is not "
                   f"writable by this user")
    else:
        return home
    raise StoreOptionError(f"{option}: {problem}; give a new agent home directory this user "
                           f"can write (e.g. {example}; missing parents are created) or a "
                           f"postgresql:// DSN")


def agent_place(name: str, store: str | None, *, existing: bool = False) -> AgentPlace:
    """Agent ``name`` where ``store`` says; ``existing`` requires a home directory to hold a
    memory already (a database says itself when it has no such agent)."""
    dsn = store_option(store)
    if dsn is not None:
        if existing:
            require_stored_agent(name, dsn, store)
        return AgentPlace(validate_agent_name(name), agent_home(name), dsn)
    return AgentPlace(name, existing_agent_home(name) if existing else agent_home(name))


def store_flag(given: str | None) -> str:
    """`` --store DSN`` for a command suggested to someone who gave ``--store`` (None: it
    came from TIERMEM_STORE, which the suggested command reads too); a DSN holding a
    password is not repeated."""
    if given is None:
        return ""
    secret = ("password" in given.lower() or re.search(r"://[^/@]*:[^/@]*@", given)
              or holds_password(given))
    return " --store DSN" if secret else f" --store {shlex.quote(given)}"


def require_stored_agent(name: str, dsn: str, given: str | None) -> None:
    """Refuse, listing the agents there, a name the database does not hold: an inspecting
    command must not create it, as it cannot in an agent home, nor can migrate copy it."""
    try:
        from tiermem.memory.store.postgres.connection import public_dsn, stored_agents
    except ImportError:
        return  # opening the store then says what to install
    names = stored_agents(dsn)
    if names is None or name not in names:
        raise no_such_agent(name, public_dsn(dsn), names or [], store_flag(given))
