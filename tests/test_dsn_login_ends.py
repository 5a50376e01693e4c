"""libpq reads a URI's login up to the last "@" before its path (an "@" in the database's
name follows no password), and several hosts, each with its port, after it: every message
that shows such a DSN hides the password, and nothing else."""

from __future__ import annotations

import pytest

from tiermem.memory.store.location_text import without_password
from tiermem.memory.store.postgres.connection import public_dsn

NOTE = (" (port hidden: with no @host it may be a password; write the database's name "
        "after it, postgresql://HOST:PORT/NAME, to show it)")


@pytest.mark.parametrize(("dsn", "shown", "message"), [
    # An "@" in the path: before, "dbname=***@y" and "postgresql://u:***@y", the host and
    # the database's name hidden with the password.
    ("postgresql://u:pw12@h/x@y", "user=u dbname=x@y host=h", "postgresql://u:***@h/x@y"),
    ("postgresql://u:pw12@localhost/x@y?port=1",
     "user=u dbname=x@y host=localhost port=1", "postgresql://u:***@localhost/x@y?port=1"),
    ("postgresql://u:pw12@h1,h2/x@y", "user=u dbname=x@y host=h1,h2 port=,",
     "postgresql://u:***@h1,h2/x@y"),
    ("postgresql://u:pw12@h1:5432,h2:5433/db@b",
     "user=u dbname=db@b host=h1,h2 port=5432,5433", "postgresql://u:***@h1:5432,h2:5433/db@b"),
    # libpq reads a login up to a "/" alone: a "?" or "#" before it is the password's.
    # Before: "dbname=***@y" and "postgresql://u:***@y".
    ("postgresql://u:pw?x@h/x@y", "user=u dbname=x@y host=h", "postgresql://u:***@h/x@y"),
    ("postgres://u:pw#x@h/x@y", "user=u dbname=x@y host=h", "postgres://u:***@h/x@y"),
    # A password holding an "@" and a "/" is read to the "@" before a host and its path or
    # port, not to its first "@". Before: "dbname=word@h/app" and "postgresql://u:***@ss/word@h/app".
    ("postgresql://u:p@ss/word@h/app", "user=u dbname=***@h/app host=ss",
     "postgresql://u:***@h/app"),
    ("postgresql://u:p@ss/word@h:5432", "user=u dbname=***@h:5432 host=ss",
     "postgresql://u:***@h:5432"),
    # A password holding an "@" is hidden whole, and the part libpq reads as the host's.
    ("postgresql://u:a@b@h/x@y", "user=u dbname=x@y host=***@h", "postgresql://u:***@h/x@y"),
    # Several hosts with no "@" and no database: the first host's port may be the password
    # of a login whose "@" was typed as ",", as a single host's is. Before: shown.
    ("postgresql://u:4321,h2:5432", "host=u,h2 port=***,5432" + NOTE, "postgresql://u:***,h2:5432"),
    ("postgresql://u:4321,h2", "host=u,h2 port=***," + NOTE, "postgresql://u:***,h2"),
    # With a database after them, the hosts and ports are as libpq reads them.
    ("postgresql://u:4321,h2:5432/db", "dbname=db host=u,h2 port=4321,5432",
     "postgresql://u:4321,h2:5432/db"),
    ("postgresql://h1:5432,h2:5433/db", "dbname=db host=h1,h2 port=5432,5433",
     "postgresql://h1:5432,h2:5433/db"),
    ("postgresql://localhost:5432,h2:1", "host=localhost,h2 port=5432,1",
     "postgresql://localhost:5432,h2:1"),
    ("postgresql://u:pw12@h1:5432,h2:5433/db", "user=u dbname=db host=h1,h2 port=5432,5433",
     "postgresql://u:***@h1:5432,h2:5433/db"),
])
def test_a_dsn_is_shown_with_only_its_password_hidden(dsn: str, shown: str, message: str) -> None:
    assert public_dsn(dsn) == shown
    assert without_password(f"cannot open {dsn}: refused", dsn) == f"cannot open {message}: refused"
