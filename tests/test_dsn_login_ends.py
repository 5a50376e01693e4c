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


@pytest.mark.parametrize(("url", "shown"), [
    # A "?" or "#" in a URL's password, with no host or port before it: before,
    # "https://bob:***@team/v1" (the host hidden) and urllib's "as 's3cr'" shown.
    ("https://bob:s3cr?t99@gw.example.com/org@team/v1", "https://bob:***@gw.example.com/org@team/v1"),
    ("https://bob:s3cr#t99@gw.example.com/v1", "https://bob:***@gw.example.com/v1"),
    ("https://u:pw?x@h/x@y", "https://u:***@h/x@y"),
    # A host, or a login, before the "?": the query's "@" follows no password.
    ("https://h:8443?x=a@b", "https://h:8443?x=a@b"),
    ("https://bob:s3cret@h?x=a@b", "https://bob:***@h?x=a@b"),
])
def test_a_url_s_password_may_hold_a_question_mark(url: str, shown: str) -> None:
    from tiermem.agent.base_url import normalize_base_url
    from tiermem.agent.errors import LLMConfigError

    assert without_password(f"base URL {url}", url) == f"base URL {shown}"
    if "bob:s3cr" in url and "@h?" not in url:
        with pytest.raises(LLMConfigError) as caught:
            normalize_base_url(url)
        assert "s3cr" not in str(caught.value) and shown in str(caught.value), caught.value
