"""Opening a backend by where it lives: an agent home directory, or a PostgreSQL
database (a DSN) and the agent's name in it.

Nothing here imports a database driver until a backend is opened, so a
SQLite-only install never needs psycopg.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import unquote

from tiermem.memory.errors import InvalidInputError, StoreError
from tiermem.memory.store.contract import StorageBackend
from tiermem.memory.store.postgres.options import BLANKS, DSN_KEYS, dsn_pairs
from tiermem.memory.validation import validate_agent_name
from tiermem.user_paths import expanded

#: The environment variable the command line reads when ``--store`` is not given.
STORE_VARIABLE = "TIERMEM_STORE"
_INSTALL_HINT = ("install the PostgreSQL support with "
                 "`python -m pip install -e '.[postgres]'` in the tiermem checkout")


def is_dsn(location: object) -> bool:
    """Whether ``location`` names a PostgreSQL database (a ``postgresql://`` URI or a
    ``key=value`` connection string) rather than a directory."""
    return isinstance(location, str) and (
        location.startswith(("postgresql://", "postgres://"))
        or re.match(r"\s*[a-z_]+\s*=", location) is not None)


# The password of a URI (``scheme://user:PASSWORD@host``) or a ``password=...`` pair.
# Up to the last "@": a password may hold an unencoded "/" (libpq then cannot read it, and
# says so quoting the whole URI); taking too much only hides more. A scheme with fewer
# slashes (postgresql:/u:PASSWORD@h) is a URI mistyped, which its refusal repeats.
_URI_PASSWORD = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:/*[^/@:?#]*:(.*)@")
# A URI as a pair's value (dbname=postgresql://u:PASSWORD@h/db): a DSN meant as a whole,
# which libpq takes as the database's name, and messages repeat.
_INNER_URI_PASSWORD = re.compile(
    r"(?:^|[\s='\"])[A-Za-z][A-Za-z0-9+.-]*://[^/@:?#\s'\"]*:([^\s'\"]*)@")
# As a key=value pair, or in a URI's query string (?password=...&...); sslpassword
# unlocks the client's SSL key.
_PAIR_PASSWORD = re.compile(
    r"(?:^|[\s?&])(?:ssl)?password\s*=\s*('(?:[^'\\]|\\.)*'|[^\s'&]+)", re.IGNORECASE)
# A key=value pair's unquoted value runs to a blank, "&" and all.
_UNQUOTED_PASSWORD = re.compile(r"(?:^|\s)(?:ssl)?password\s*=\s*([^\s']+)", re.IGNORECASE)
_PASSWORD_KEY = re.compile(r"(?:^|\s)((?:ssl)?password\s*=)", re.IGNORECASE)
_SECRET_KEYS = ("password", "sslpassword")
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")


def _passwords(location: str) -> list[str]:
    """The passwords ``location`` holds (none empty), as written in it."""
    found = [m.group(1) for m in (_URI_PASSWORD.match(location),) if m]
    found += [m.group(1) for m in _INNER_URI_PASSWORD.finditer(location)]
    # libpq ends a password at its first unencoded "@" or "/", reading the rest as the
    # host, port or database, which a message names: each piece is a part to hide.
    found += [piece for uri_password in found for piece in re.split(r"[/@]", uri_password)]
    found += hostless_password(location)
    found += [m.group(1) for m in _PAIR_PASSWORD.finditer(location)]
    found += [m.group(1) for m in _UNQUOTED_PASSWORD.finditer(location)]
    # libpq decodes a URI query's keys too: ?pass%77ord=... is a password.
    # One with "&" unencoded is cut there: a next key libpq does not know is likely a part.
    secret = False
    for part in location.partition("?")[2].split("&"):
        key, _, value = part.partition("=")
        if secret and not _libpq_key(unquote(key).strip()):
            found += [key, part]
        secret = unquote(key).strip().lower() in _SECRET_KEYS
        if secret:
            found.append(value)
    found += _pair_passwords(location)
    # The longest first: one may hold another (password=ab&cdef holds "ab" for a URI).
    return sorted({p.strip("'") for p in found} - {""}, key=len, reverse=True)


# A URI with no "@" before its path (postgresql://u:PASSWORD): libpq reads no login, and
# the text before and after the ":" as a host and its port.
_HOSTLESS_URI = re.compile(r"\s*[A-Za-z][A-Za-z0-9+.-]*://([^/@]*)(?:/|$)")


def hostless_password(location: str) -> list[str]:
    """The ports of a URI with no ``@host`` that are no port numbers (``postgresql://u:Hunter2``,
    ``postgresql://u:12345678``), with a DSN's path if there are any: each such port is
    likely a password whose ``@host`` is missing, which libpq reads as a port, and as a
    database from an unencoded "/" on."""
    uri = _HOSTLESS_URI.match(location)
    if uri is None:
        return []
    ports = [host.partition(":")[2] for host in uri.group(1).partition("?")[0].split(",")
             if not host.startswith("[")]  # [::1]:PORT: an IPv6 host, no user
    found = [port for port in ports if port and not port_number(unquote(port))]
    path = location[uri.end():].partition("?")[0] if is_dsn(location.lstrip()) else ""
    return [*found, path] if found and path else found


def port_number(text: str) -> bool:
    """Whether ``text`` is a TCP port number, 1 to 65535."""
    return text.isascii() and text.isdigit() and 0 < int(text) < 65536


def _pair_passwords(location: str) -> list[str]:
    """The passwords of ``location`` read as key=value pairs from its start, and from each
    password key after a blank: text libpq cannot read before one (``stray password=...``)
    would otherwise leave it to the patterns above, which end it at an escaped blank."""
    starts = {0} | {m.start(1) for m in _PASSWORD_KEY.finditer(location)}
    return [found for start in sorted(starts) for found in _passwords_from(location[start:])]


def _passwords_from(location: str) -> list[str]:
    """The passwords of ``location`` as libpq reads its key=value pairs (which may hold an
    escaped blank or quote, or a quote after the first character, where the patterns above
    stop), with what one was likely meant to hold past where libpq ends it: text right
    after its closing quote (``password=''Secret``) and words after a blank that are no
    pair (``password=Hunter2 Secret``), which libpq names as keys it cannot read."""
    found: list[str] = []
    pairs, rest = dsn_pairs(location)
    ends, at = [], 0
    for _, _, written in pairs:
        at = location.index(written, at) + len(written)
        ends.append(at)
    for i, (key, value, written) in enumerate(pairs):
        if key.lower() not in _SECRET_KEYS:
            continue
        found += [value, written.partition("=")[2].strip(BLANKS)]
        end, after = ends[i], i + 1
        while after < len(pairs) and location.startswith(pairs[after][2], end):
            found += list(pairs[after])  # no blank between: libpq's next key
            end, after = ends[after], after + 1
        if after < len(pairs) and not _libpq_key(pairs[after][0]):
            found += list(pairs[after])  # libpq's next key is none it knows: likely a part
            end = ends[after]
        if after == len(pairs):
            for word in rest.split():
                if "=" in word:
                    break
                found.append(word)
                end = location.index(word, end) + len(word)
        found.append(location[ends[i] - len(written) + written.index("=") + 1:end].strip(BLANKS))
    # One libpq cannot read to its end (its quote unclosed) is all that follows its "=".
    key, equals, after_key = rest.partition("=")
    if equals and key.strip(BLANKS).lower() in _SECRET_KEYS:
        found.append(after_key.strip(BLANKS))
    return found


def _libpq_key(key: str) -> bool:
    """Whether libpq, or tiermem's DSN settings, know ``key`` (in any case: one written
    in capitals is a key mistyped, not a password's words)."""
    return key.lower() in _known_keys()


#: The keys libpq 18 reads, for an install without psycopg, whose messages echo a
#: location too (one not read as a DSN); a newer key missing here is only hidden more.
_LIBPQ_KEYS = """
    application_name channel_binding client_encoding connect_timeout dbname
    fallback_application_name gssdelegation gssencmode gsslib host hostaddr keepalives
    keepalives_count keepalives_idle keepalives_interval krbsrvname load_balance_hosts
    max_protocol_version min_protocol_version oauth_client_id oauth_client_secret
    oauth_issuer oauth_scope options passfile password port replication require_auth
    requirepeer scram_client_key scram_server_key service ssl_max_protocol_version
    ssl_min_protocol_version sslcert sslcertmode sslcompression sslcrl sslcrldir sslkey
    sslkeylogfile sslmode sslnegotiation sslpassword sslrootcert sslsni
    target_session_attrs tcp_user_timeout user"""


@functools.cache
def _known_keys() -> frozenset[str]:
    """libpq's keys as the installed one lists them (psycopg imported only when a
    password is there to hide), else those above; with tiermem's settings."""
    try:
        from psycopg.pq import Conninfo

        known = {option.keyword.decode() for option in Conninfo.get_defaults()}
    except ImportError:
        known = set(_LIBPQ_KEYS.split())
    return frozenset(known | set(DSN_KEYS))


def holds_password(location: str) -> bool:
    """Whether ``location`` holds a password or sslpassword in any form libpq reads."""
    return bool(_passwords(location))


def without_password(text: str, location: str) -> str:
    """``text`` (a message about ``location``) with the password ``location`` holds, in
    any form it may be quoted in, shown as ``***``: even a location too malformed to
    parse may be echoed by the error about it."""
    return without_passwords(text, (location,))


def without_passwords(text: str, locations: Iterable[str]) -> str:
    """``text`` with the passwords all of ``locations`` hold shown as ``***``, the longest
    first: one location may be a part of another (an argument's text after its "="), and
    a part's shorter reading of a password, hidden first, would leave the rest shown."""
    passwords = {password for location in locations for password in _passwords(location)}
    for password in sorted(passwords, key=len, reverse=True):
        decoded = re.sub(r"%([0-9A-Fa-f]{2})", lambda m: chr(int(m.group(1), 16)), password)
        # As written, decoded, and as repr() quotes either (a backslash doubled).
        forms = {password, decoded, repr(password)[1:-1], repr(decoded)[1:-1]}
        for form in sorted(forms, key=len, reverse=True):
            if len(form) >= 4:
                text = text.replace(form, "***")
            else:  # too short to hide wherever it occurs: where a DSN holds it
                text = re.sub(rf"(:|password\s*=\s*'?|(?:after|option|parameter:) \")"
                              rf"{re.escape(form)}(?=[@'&\s\"]|$)",
                              lambda m: m.group(1) + "***", text)
    return text


def looks_like_url(location: str) -> bool:
    """Whether ``location`` starts with a URL scheme (``mysql://``, ``postgressql://``):
    a mistyped DSN, not a directory to create."""
    return _URL.match(location) is not None


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
