"""Opening a backend by where it lives: an agent home directory, or a PostgreSQL
database (a DSN) and the agent's name in it.

Nothing here imports a database driver until a backend is opened, so a
SQLite-only install never needs psycopg.
"""

from __future__ import annotations

from dataclasses import dataclass

from tiermem.memory.errors import InvalidInputError, StoreError
from tiermem.memory.store.contract import StorageBackend
from tiermem.memory.store.location_text import is_dsn, without_password
from tiermem.memory.validation import validate_agent_name
from tiermem.user_paths import expanded

#: The environment variable the command line reads when ``--store`` is not given.
STORE_VARIABLE = "TIERMEM_STORE"
_INSTALL_HINT = ("install the PostgreSQL support with "
                 "`python -m pip install -e '.[postgres]'` in the tiermem checkout")


def open_postgres(dsn: str, agent: str | None, *, read_only: bool = False,
                  hnsw: bool | None = None, vector_index: str | None = None,
                  ef_search: int | None = None,
                  mark_if_new: tuple[str, str] | None = None) -> StorageBackend:
    """Agent ``agent``'s memory in the PostgreSQL database at ``dsn`` (created on first
    write, with the setting ``mark_if_new`` if given); ``hnsw``, ``vector_index`` and
    ``ef_search`` None leave the choice to the DSN (memory/store/vector_choice.py)."""
    if agent is None:
        raise InvalidInputError(
            "a PostgreSQL database holds many agents, so name this one: "
            "HierarchicalMemory(store=dsn, agent='NAME')")
    validate_agent_name(agent)
    try:
        from tiermem.memory.store.postgres.backend import PostgresBackend
    except ImportError as exc:
        if exc.name not in ("psycopg", "pgvector"):
            raise
        raise StoreError(f"PostgreSQL support is not installed ({exc}); {_INSTALL_HINT}") from None
    return PostgresBackend(dsn, agent, read_only=read_only, hnsw=hnsw,
                           vector_index=vector_index, ef_search=ef_search,
                           mark_if_new=mark_if_new)


def open_store(location: str, agent: str | None, *, read_only: bool = False,
               vector_index: str | None = None, ef_search: int | None = None,
               mark_if_new: tuple[str, str] | None = None) -> StorageBackend:
    """The store ``HierarchicalMemory(store=location)`` names: only a DSN is a name here
    (a directory is the ``path`` argument). An agent this creates is given the setting
    ``mark_if_new`` (key, value), if any, as it is created."""
    if not is_dsn(location):
        raise InvalidInputError(
            f"store={without_password(repr(location), location)} is not a PostgreSQL DSN; "
            f"give one like "
            f"'postgresql://USER@HOST:5432/DATABASE' (`tiermem pg start` prints one for a "
            f"local server), or an agent home directory as the path argument")
    return open_postgres(location, agent, read_only=read_only, vector_index=vector_index,
                         ef_search=ef_search, mark_if_new=mark_if_new)


def open_backend(location: str, agent: str | None, *, read_only: bool,
                 mark_if_new: tuple[str, str] | None = None) -> StorageBackend:
    """The backend at ``location``: a DSN (with ``agent``) or an agent home directory.
    ``mark_if_new`` (a setting's key and value) is given to a PostgreSQL agent this open
    creates, as ``open_store`` does; an agent home's database cannot be created holding a
    setting in one step, so a caller that needs that builds it aside and renames it into
    place (memory/store/sqlite/restore.py)."""
    if is_dsn(location):
        return open_postgres(location, agent, read_only=read_only, mark_if_new=mark_if_new)
    from tiermem.memory.store.sqlite.store import SQLiteStore

    home = expanded(location).absolute()
    if read_only and not home.is_dir():
        raise StoreError(f"no agent home at {home}; give the directory of an agent "
                         f"(e.g. $TIERMEM_HOME/agents/NAME, by default "
                         f"~/.tiermem/agents/NAME) or a postgresql:// DSN")
    return SQLiteStore(home, read_only=read_only)


@dataclass(frozen=True)
class SchemaUpgrade:
    """What ``upgrade_backend`` did: the schema versions before and after (equal: nothing
    to do), and whether it finished creating a memory whose creation was cut short.
    ``held`` says who has the memory open for writing when the schema was upgraded all
    the same (a PostgreSQL database's schema is upgraded before the agent is locked)."""

    found: int
    current: int
    finished_creating: bool = False
    held: str | None = None
    #: Each counter an older version or an edit left below the rows, raised to their
    #: level: its name, the value it held and the one it holds now.
    raised: tuple[tuple[str, str, int], ...] = ()
    #: Each counter below the rows that could not be raised because another process had
    #: the agent open for writing (``held``): its name, value and the rows' level.
    not_raised: tuple[tuple[str, str, int], ...] = ()

    @property
    def changed(self) -> bool:
        return self.finished_creating or self.found != self.current or bool(self.raised)


def upgrade_backend(location: str, agent: str | None) -> SchemaUpgrade:
    """Bring the memory at ``location`` (as ``open_backend``) to this version's schema.

    A writer's open is what runs the migrations a memory lacks, and what finishes
    creating one a stopped process left unfinished. The read-only look first tells which
    is needed, takes no writer lock when there is nothing to do, and refuses, as it does,
    a memory a newer version wrote.
    """
    from tiermem.memory.errors import OlderSchemaError, StoreLockedError, UnfinishedStoreError

    current = schema_version(location)
    try:
        open_backend(location, agent, read_only=True).close()
    except OlderSchemaError as exc:
        try:
            open_backend(location, agent, read_only=False).close()
        except StoreLockedError as locked:
            # A database's migrations run before its agent's lock is taken: they may be
            # done although the agent is someone else's. A home migrates under its lock.
            if not _is_current(location, agent):
                raise
            return SchemaUpgrade(exc.found, exc.current, held=locked.situation,
                                 not_raised=counters_behind(location, agent))
        return SchemaUpgrade(exc.found, exc.current, raised=_raise_counters(location, agent))
    except UnfinishedStoreError as exc:
        open_backend(location, agent, read_only=False).close()
        return SchemaUpgrade(exc.found, current, finished_creating=True)
    return SchemaUpgrade(current, current, raised=_raise_counters(location, agent))


def _raise_counters(location: str, agent: str | None) -> tuple[tuple[str, str, int], ...]:
    """Raise each counter stored below its rows to their level, which the memory cannot
    move on from by itself (its check refuses a value below the rows). The look is
    read-only, so a memory whose counters are sound takes no writer lock."""
    if not counters_behind(location, agent):
        return ()
    store = open_backend(location, agent, read_only=False)
    try:
        with store.transaction():
            behind = store.settings.counters_behind()
            for key, (_, level) in behind.items():
                store.settings.set(key, level)
    finally:
        store.close()
    return tuple((key, held, level) for key, (held, level) in behind.items())


def counters_behind(location: str, agent: str | None) -> tuple[tuple[str, str, int], ...]:
    """Each counter stored below its rows, as a read-only open finds them."""
    store = open_backend(location, agent, read_only=True)
    try:
        behind = store.settings.counters_behind()
    finally:
        store.close()
    return tuple((key, held, level) for key, (held, level) in behind.items())


def _is_current(location: str, agent: str | None) -> bool:
    """Whether a read-only open finds the memory at this version's schema."""
    from tiermem.memory.errors import OlderSchemaError

    try:
        open_backend(location, agent, read_only=True).close()
    except OlderSchemaError:
        return False
    return True


def schema_version(location: str) -> int:
    """The schema version this tiermem writes in the backend ``location`` names."""
    if is_dsn(location):
        from tiermem.memory.store.postgres.schema import SCHEMA_VERSION as postgres_version

        return postgres_version
    from tiermem.memory.store.sqlite.schema import SCHEMA_VERSION

    return SCHEMA_VERSION
