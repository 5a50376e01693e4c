"""A PostgreSQL DSN checked before connecting: its parts as libpq reads them, and what makes
one unusable as written (a port that is no number, an SSL mode libpq does not know), said
with how to write one. No connection is made here."""

from __future__ import annotations

from collections.abc import Callable

import psycopg
from psycopg.conninfo import conninfo_to_dict

from tiermem.memory.errors import InvalidInputError
from tiermem.memory.store.location_text import (
    hostless_password,
    mistyped_port,
    port_number,
    without_password,
)
from tiermem.memory.store.postgres.options import libpq_dsn, split_dsn
from tiermem.memory.store.vector_choice import refuse_ef_search_by_default

__all__ = ["dsn_parts", "dsn_problem", "first_line", "not_valid"]


def dsn_parts(dsn: str) -> dict[str, str]:
    """The parts of ``dsn`` libpq reads, by key; empty when it cannot read them."""
    try:
        parts = conninfo_to_dict(libpq_dsn(dsn))
    except psycopg.ProgrammingError:
        return {}
    return {k: str(v) for k, v in parts.items() if v is not None}


def dsn_problem(dsn: str) -> str | None:
    """What makes ``dsn`` unusable as written (None: nothing), found without connecting."""
    try:
        libpq, options = split_dsn(dsn)
        parts = conninfo_to_dict(libpq)
        if not options.vector_index_given:  # a command gives no index of its own
            refuse_ef_search_by_default(options.ef_search, " in the PostgreSQL DSN")
    except InvalidInputError as exc:
        return without_password(str(exc), dsn)
    except psycopg.ProgrammingError as exc:
        return without_password(not_valid(exc), dsn)
    # libpq reads these only when it connects, and then reports them as a failure to reach
    # the server.
    for key, fits, wanted in _CHECKED_PARTS:
        value = parts.get(key)
        if value is not None and not fits(str(value)):
            if key == "port" and (ports := hostless_password(dsn)):  # maybe a password: unsaid
                if parts.get("dbname") and all(
                        mistyped_port(p) and not p.isdigit() for p in ports):  # 543x
                    return ("the PostgreSQL DSN is not valid: the port after the first \":\" is "
                            "no port number (not shown: with no @host it may be a password); "
                            "write it as postgresql://HOST:PORT/DATABASE, with a login as "
                            "postgresql://USER:PASSWORD@HOST:PORT/DATABASE (`tiermem pg "
                            "start` prints one for a local server)")
                return ("the PostgreSQL DSN is not valid: it has no @host (user:password@host), "
                        "so libpq reads what follows the first \":\" as a port, which is no "
                        "port number; write it as postgresql://USER:PASSWORD@HOST:PORT/"
                        "DATABASE (`tiermem pg start` prints one for a local server)")
            return without_password(
                f"the PostgreSQL DSN is not valid: {key} {str(value)!r} is not {wanted}; write "
                f"it as postgresql://USER@HOST:PORT/DATABASE (`tiermem pg start` prints one "
                f"for a local server)", dsn)
    return None


def _ports(value: str) -> bool:
    return all(p == "" or port_number(p) for p in value.split(","))


_SSL_MODES = ("disable", "allow", "prefer", "require", "verify-ca", "verify-full")
#: DSN parts checked before connecting: the key, a test of its value, what it must be.
_CHECKED_PARTS: tuple[tuple[str, Callable[[str], bool], str], ...] = (
    ("port", _ports, "a port number from 1 to 65535 (or a comma list of them)"),
    ("sslmode", lambda v: v in _SSL_MODES, "one of " + ", ".join(_SSL_MODES)),
    ("connect_timeout", lambda v: v.strip().lstrip("-").isascii()
     and v.strip().lstrip("-").isdigit(), "a whole number of seconds"),
)


def not_valid(exc: Exception) -> str:
    """The refusal of a DSN libpq cannot read, saying how to write one."""
    return (f"the PostgreSQL DSN is not valid: {first_line(exc)}; write it as "
            f"postgresql://USER@HOST:PORT/DATABASE (`tiermem pg start` prints one for a "
            f"local server)")


def first_line(exc: BaseException) -> str:
    """The first line of what ``exc`` says, or its class's name when it says nothing."""
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
