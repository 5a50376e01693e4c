"""The vacuum after an erasure or a dropped agent, and what it could not reach.

``VACUUM`` removes the dead row versions that still hold erased text, and its ``ANALYZE``
rebuilds the planner's statistics from the rows that remain: ``pg_stats`` shows a column's
most common values and histogram bounds, whole texts of messages and facts and the words of
the search statistics among them, to any role that may read the table. ANALYZE leaves an
empty table's statistics as they were, so those are cleared (``pg_clear_attribute_stats``,
PostgreSQL 18 and later). A role that does not own a table (nor holds ``MAINTAIN`` on it)
has each step skipped with a warning; what was skipped is returned, for
``ErasureReport.not_reached``, instead of being lost among the server's notices.
"""

from __future__ import annotations

from collections.abc import Sequence

import psycopg
from psycopg import errors as pg_errors
from psycopg import sql

from tiermem.memory.store.postgres.folded_stats import PENDING_TABLES

#: A VACUUM or ANALYZE of a table the role may not maintain skips it with a plain warning
#: (sqlstate 01000: 'permission denied to vacuum "facts", skipping it'), in the server's
#: language (lc_messages): a warning naming a table in quotes, or one of this sqlstate,
#: counts as that table skipped.
_SKIPPED = pg_errors.InsufficientPrivilege.sqlstate
#: The tables whose rows (or rows' text) an erasure deletes or rewrites.
_ERASED_FROM = ("facts", "passages", "messages", "events", "settings", "text_stats",
                "lexeme_stats", *PENDING_TABLES)


def purge_after_erasure(conn: psycopg.Connection, where: str) -> list[str]:
    """VACUUM (ANALYZE) the tables an erasure changes, on ``conn`` (in autocommit mode), the
    store at ``where``: what was left, the server's own copies last
    (``StorageBackend.purge_erased``)."""
    left = vacuum_and_analyze(conn, _ERASED_FROM)
    return [*left, f"PostgreSQL ({where}): freed space in the tables' pages keeps old "
            f"bytes until reused (VACUUM FULL by the database owner rewrites them), and "
            f"a transaction open elsewhere since before the erasure keeps the old rows "
            f"until it ends; the write-ahead log, replicas, WAL archives and backups keep "
            f"the erased rows until they are recycled or expire"]


def vacuum_and_analyze(conn: psycopg.Connection, tables: Sequence[str]) -> list[str]:
    """VACUUM (ANALYZE) the schema's ``tables`` on ``conn`` (in autocommit mode), clear the
    statistics an empty one keeps, and say what was left: one sentence, or none."""
    skipped: list[str] = []

    def notice(diag: psycopg.errors.Diagnostic) -> None:
        said = diag.message_primary or ""
        if diag.sqlstate == _SKIPPED or diag.severity_nonlocalized == "WARNING":
            skipped.extend(t for t in tables if f'"{t}"' in said and t not in skipped)

    conn.add_notice_handler(notice)
    try:
        conn.execute(sql.SQL("VACUUM (ANALYZE) {}").format(sql.SQL(", ").join(
            sql.Identifier("tiermem", t) for t in tables)))
    finally:
        conn.remove_notice_handler(notice)
    kept = _statistics_of_empty_tables(conn, tables)
    said: list[str] = []
    if skipped:
        said.append(
            f"PostgreSQL skipped the VACUUM and ANALYZE of tables this role does not own "
            f"({', '.join(skipped)}): their dead row versions keep the erased text, and "
            f"pg_stats may show it, until the table's owner runs `VACUUM (ANALYZE)` on "
            f"schema tiermem's tables (or grants this role MAINTAIN on them, PostgreSQL 17 "
            f"and later)")
    if kept:
        said.append(
            f"the planner's statistics of the now empty table(s) {', '.join(kept)} "
            f"(pg_stats) keep values of the erased rows until the table's owner runs "
            f"`SELECT pg_clear_attribute_stats(...)` (PostgreSQL 18) or the table is "
            f"analyzed with rows in it")
    return said


def _statistics_of_empty_tables(conn: psycopg.Connection, tables: Sequence[str]) -> list[str]:
    """Clear the statistics of those of ``tables`` that hold no row; the tables whose
    statistics stay (an older server, or a role that may not clear them)."""
    kept: list[str] = []
    can_clear = conn.execute("SELECT to_regprocedure("
                             "'pg_catalog.pg_clear_attribute_stats(text,text,text,boolean)')"
                             ).fetchone()
    for table in tables:
        columns = conn.execute(
            "SELECT attname, inherited FROM pg_catalog.pg_stats "
            "WHERE schemaname = 'tiermem' AND tablename = %s", (table,)).fetchall()
        if not columns:
            continue
        empty = conn.execute(sql.SQL("SELECT NOT EXISTS (SELECT FROM {})").format(
            sql.Identifier("tiermem", table))).fetchone()
        if not (empty and empty[0]):
            continue  # ANALYZE rebuilt them from the rows there are
        if can_clear is None or can_clear[0] is None:
            kept.append(table)
            continue
        try:
            for column, inherited in columns:
                conn.execute("SELECT pg_catalog.pg_clear_attribute_stats("
                             "'tiermem', %s, %s, %s)", (table, column, inherited))
        except pg_errors.InsufficientPrivilege:
            kept.append(table)
    return kept
