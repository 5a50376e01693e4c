"""Deleting one agent, and everything it holds, from a PostgreSQL database.

Every per-agent table references ``tiermem.agents`` with ``ON DELETE CASCADE``,
so deleting the agent's row deletes its facts, passages, messages, settings,
history and audit. What holds no such reference goes by hand: its partial HNSW
indexes (named after its id) and its search statistics. The statistics are
removed after the cascade commits, since the cascade's own triggers fold their
changes into them at that commit. Then the schema's tables are vacuumed, as after an
erasure (``purge_erased`` of the backend, whose caveats hold here too). Agent ids are
never reused, so nothing left behind could be mistaken for another agent's.

The agent's row goes with a mark in ``text_stats`` (``tab`` ``_DROPPED``, counts only,
no text), removed once the vacuum has run: a drop cut short after its deletion committed
(Ctrl-C during the vacuum) leaves it, and ``finish_dropped`` (the same ``drop-agent``
again) clears and vacuums what such a drop left.
"""

from __future__ import annotations

import psycopg
from psycopg import sql

from tiermem.memory.errors import StoreError
from tiermem.memory.store.postgres.connection import (
    agent_id,
    connect,
    privileges_checked,
    public_dsn,
    refuse_newer_schema,
)
from tiermem.memory.store.postgres.options import libpq_dsn
from tiermem.memory.store.postgres.purge import vacuum_and_analyze
from tiermem.memory.store.postgres.writer_lock import release_writer_lock, take_writer_lock

#: The tables that hold an agent's search statistics without referencing the agent.
_STATS_TABLES = ("text_stats", "lexeme_stats", "text_pending", "lexeme_pending")
#: The ``text_stats.tab`` of the mark a deleted agent keeps until the vacuum after it ran.
_DROPPED = "(dropped)"


def delete_agent(dsn: str, name: str) -> list[str]:
    """Delete agent ``name`` from the database at ``dsn``; refused (StoreLockedError)
    while a writer has it open, and (StoreError) when the database does not hold it.
    Returns what the vacuum after it could not reach (memory/store/postgres/purge.py)."""
    server = libpq_dsn(dsn)
    where = f"agent {name!r} in {public_dsn(server)}"
    with connect(server) as conn, privileges_checked(where):
        found = conn.execute("SELECT to_regclass('tiermem.agents')").fetchone()
        if found is None or found[0] is None:
            raise StoreError(f"{where} does not exist: the database holds no tiermem memory")
        # What a newer version stored is neither read nor written here: nor deleted.
        refuse_newer_schema(conn, where)
        agent, _ = agent_id(conn, name, create=False, where=where)
        # Held until the agent is gone: no writer can open it meanwhile.
        take_writer_lock(conn, agent, where)
        try:
            with conn.transaction():
                for (index,) in conn.execute(
                        "SELECT indexname FROM pg_indexes WHERE schemaname = 'tiermem' "
                        "AND indexname LIKE %s", (f"%\\_hnsw\\_%\\_agent\\_{agent}",)).fetchall():
                    conn.execute(sql.SQL("DROP INDEX tiermem.{}").format(sql.Identifier(index)))
                conn.execute("DELETE FROM tiermem.agents WHERE id = %s", (agent,))
                conn.execute("INSERT INTO tiermem.text_stats (agent_id, tab, n_rows, n_words) "
                             "VALUES (%s, %s, 0, 0) ON CONFLICT DO NOTHING", (agent, _DROPPED))
            return _clear_and_vacuum(conn, [agent])
        finally:
            release_writer_lock(conn, agent)


def finish_dropped(dsn: str) -> list[str] | None:
    """Finish what a deletion cut short after it committed left (the search statistics
    and the vacuum of the agents it marked); None when no deletion left anything, else
    what the vacuum could not reach."""
    server = libpq_dsn(dsn)
    with connect(server) as conn, privileges_checked(f"the agents of {public_dsn(server)}"):
        owed = _marked(conn)
        if not owed:
            return None
        refuse_newer_schema(conn, f"the memory in {public_dsn(server)}")
        return _clear_and_vacuum(conn, owed)


def dropped_unfinished(dsn: str, name: str) -> bool | None:
    """Whether a deletion left its clearing unfinished: None while agent ``name`` is still
    there (its deletion did not commit), else whether any deleted agent's mark is left."""
    server = libpq_dsn(dsn)
    with connect(server) as conn, privileges_checked(f"agent {name!r} in {public_dsn(server)}"):
        found = conn.execute("SELECT to_regclass('tiermem.agents')").fetchone()
        if found is None or found[0] is None:
            return False
        if conn.execute("SELECT 1 FROM tiermem.agents WHERE name = %s", (name,)).fetchone():
            return None
        return bool(_marked(conn))


def _marked(conn: psycopg.Connection) -> list[int]:
    """The ids of the deleted agents whose mark is left (none without the schema)."""
    found = conn.execute("SELECT to_regclass('tiermem.text_stats')").fetchone()
    if found is None or found[0] is None:
        return []
    return [int(row[0]) for row in conn.execute(
        "SELECT agent_id FROM tiermem.text_stats WHERE tab = %s AND agent_id NOT IN "
        "(SELECT id FROM tiermem.agents) ORDER BY agent_id", (_DROPPED,))]


def _clear_and_vacuum(conn: psycopg.Connection, agents: list[int]) -> list[str]:
    """Delete the search statistics of the deleted ``agents`` (their mark aside), vacuum
    the schema's tables, then remove the marks; what the vacuum could not reach."""
    with conn.transaction():
        for table in _STATS_TABLES:
            # The column's own type: psycopg sends small ints as smallint[].
            conn.execute(sql.SQL(
                "DELETE FROM tiermem.{} WHERE agent_id = ANY(%s::integer[])").format(
                sql.Identifier(table)) + (sql.SQL(" AND tab <> %s") if table == "text_stats"
                                          else sql.SQL("")),
                (agents, _DROPPED) if table == "text_stats" else (agents,))
    # As after an erasure: the dead row versions hold the agent's text until a
    # vacuum, and no later query or snapshot should be able to reach them.
    tables = [row[0] for row in conn.execute(
        "SELECT tablename FROM pg_tables WHERE schemaname = 'tiermem' ORDER BY tablename")]
    left = vacuum_and_analyze(conn, tables)
    conn.execute("DELETE FROM tiermem.text_stats WHERE agent_id = ANY(%s::integer[]) "
                 "AND tab = %s", (agents, _DROPPED))
    return left
