"""A port hidden as a possible password (postgresql://db:5432: no @host, no database) is
said to be wherever the DSN is shown: the chat's banner and the refusals naming it, not
only the failure to connect."""

from __future__ import annotations

import pytest

from tiermem.memory.store.postgres.connection import public_dsn

WHY = (" (port hidden: with no @host it may be a password; write the database's name after "
       "it, postgresql://HOST:PORT/NAME, to show it)")


@pytest.mark.parametrize(("dsn", "shown"), [
    ("postgresql://db:5432", "host=db port=***" + WHY),
    ("postgresql://db:5432/tiermem", "dbname=tiermem host=db port=5432"),
    ("postgresql://localhost:5432", "host=localhost port=5432"),
    ("postgresql://u:Hunter2Secret@db:5432/tiermem", "user=u dbname=tiermem host=db port=5432"),
])
def test_public_dsn_says_why_a_port_is_hidden(dsn: str, shown: str) -> None:
    # Before: "host=db port=***" in the banner ("memory: agent 'a' in host=db port=***")
    # and in "no agent named 'zzz' in host=db port=***", with no word of why.
    assert public_dsn(dsn) == shown


def test_an_unknown_agent_is_refused_saying_why_its_port_is_hidden(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from tiermem.agent import place
    from tiermem.agent.home import NoSuchAgentError
    from tiermem.memory.store.postgres import connection

    monkeypatch.setattr(connection, "stored_agents", lambda dsn: ["a"])
    with pytest.raises(NoSuchAgentError) as refused:
        place.require_stored_agent("zzz", "postgresql://db:5432", "postgresql://db:5432")
    assert f"no agent named 'zzz' in host=db port=***{WHY} (agents: a)" in str(refused.value)
