"""A password holding an unencoded "@" (postgresql://u:ab@cd@h/db): libpq ends it at that
"@" and reads the rest, however short, as the start of the host, which no message shows."""

from __future__ import annotations

import pytest

from tiermem.memory.store.location_text import without_password
from tiermem.memory.store.postgres.connection import public_dsn


@pytest.mark.parametrize(("dsn", "tail"), [
    ("postgresql://u:ab@cd@127.0.0.1/db", "cd"),
    ("postgresql://u:Hunter2@xyz@127.0.0.1:1/db", "xyz"),
    ("postgresql://u:ab@cd@h1:1,h2:2/db", "cd"),
])
def test_a_short_part_after_an_at_in_the_password_is_hidden(dsn: str, tail: str) -> None:
    # Before: "host=cd@127.0.0.1" and "failed to resolve host 'cd@127.0.0.1'", the
    # password's part after its "@" shown, being shorter than four characters.
    shown = public_dsn(dsn)
    assert "host=***@" in shown and tail not in shown, shown
    said = without_password(f"failed to resolve host '{tail}@127.0.0.1': unknown; "
                            f"connection to server at \"{tail}@127.0.0.1\" failed", dsn)
    assert tail not in said and said.count("'***@127.0.0.1'") == 1, said
    assert "\"***@127.0.0.1\"" in said, said


def test_a_word_before_an_at_that_is_no_part_stays() -> None:
    dsn = "postgresql://bob:cd@db/x"
    # The user's name before its own "@" (or one that is no part of the password) is shown.
    assert without_password("postgresql://bob@db/x, user bob@db", dsn) == (
        "postgresql://bob@db/x, user bob@db")
    assert public_dsn(dsn) == "user=bob dbname=x host=db"
