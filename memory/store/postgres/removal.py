"""Deleting one agent, and everything it holds, from a PostgreSQL database.

Every per-agent table references ``tiermem.agents`` with ``ON DELETE CASCADE``,
so deleting the agent's row deletes its facts, passages, messages, settings,
history and audit. What holds no such reference goes by hand: its partial HNSW
indexes (named after its id) and its search statistics. The statistics are
removed after the cascade commits, since the cascade's own triggers fold their
changes into them at that commit. Then the schema's tables are vacuumed, as after an
erasure (``purge_erased`` of the backend, whose caveats hold here too). Agent ids are
never reused, so nothing left behind could be mistaken for another agent's.
"""

from __future__ import annotations

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
            with conn.transaction():
                for table in _STATS_TABLES:
                    conn.execute(sql.SQL("DELETE FROM tiermem.{} WHERE agent_id = %s").format(
                        sql.Identifier(table)), (agent,))
            # As after an erasure: the dead row versions hold the agent's text until a
            # vacuum, and no later query or snapshot should be able to reach them.
            tables = [row[0] for row in conn.execute(
                "SELECT tablename FROM pg_tables WHERE schemaname = 'tiermem' "
                "ORDER BY tablename")]
            return vacuum_and_analyze(conn, tables)
        finally:
            release_writer_lock(conn, agent)
