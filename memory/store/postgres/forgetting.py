"""Tombstones and the forget audit of one agent in PostgreSQL (contract.ForgetStore).

A forgotten row's ``search_text`` becomes '' and ``n_words`` 0, so its generated
``tsvector`` is empty and full-text search no longer matches it; its vector
becomes NULL, so dense search (which reads the stored column) skips it. A forgotten
message's heir, the next message in context, whose context was its text, takes the text
of the message in context before it, in one statement however many are forgotten
(memory/store/postgres/context_heirs.py).
"""

from __future__ import annotations

from collections.abc import Sequence

from tiermem.memory.store.bounds import check_forget_request, check_hashes, check_moment
from tiermem.memory.store.postgres.context_heirs import handing_on
from tiermem.memory.store.postgres.scope import Scope, execute
from tiermem.memory.store.records import ForgetRequest, Forgotten, tombstone_norm

#: What forgetting sets besides ``forgotten_at``, per table.
_DROPPED = {
    "facts": "search_text = '', n_words = 0, tier = 'archival'",
    "passages": "search_text = '', n_words = 0, embedding = NULL, embedder_id = NULL",
    "messages": "search_text = '', n_words = 0, embedding = NULL, embedder_id = NULL",
}


class PgForgetting:
    """memory.store.contract.ForgetStore for one agent."""

    def __init__(self, scope: Scope) -> None:
        self.scope = scope

    def forget(self, facts: Sequence[int], passages: Sequence[int],
               messages: Sequence[int], forgotten_at: float) -> Forgotten:
        check_moment(forgotten_at, "forgotten_at")
        with self.scope.conn.transaction():  # the heirs' contexts change with the tombstones
            with handing_on(self.scope, messages):
                marked = {table: self._mark(table, ids, forgotten_at)
                          for table, ids in (("facts", facts), ("passages", passages),
                                             ("messages", messages))}
            if marked["facts"]:
                with self.scope.conn.cursor() as cur:
                    cur.executemany(
                        "UPDATE tiermem.facts SET norm = %s WHERE agent_id = %s AND id = %s",
                        [(tombstone_norm(i), self.scope.agent, i) for i in marked["facts"]])
        return Forgotten(marked["facts"], marked["passages"], marked["messages"])

    def _mark(self, table: str, ids: Sequence[int], forgotten_at: float) -> tuple[int, ...]:
        if not ids:
            return ()
        rows = execute(
            self.scope.conn,
            f"UPDATE tiermem.{table} SET forgotten_at = %s, {_DROPPED[table]} "
            f"WHERE agent_id = %s AND id = ANY(%s::bigint[]) AND forgotten_at IS NULL RETURNING id",
            (forgotten_at, self.scope.agent, sorted(set(ids)))).fetchall()
        return tuple(sorted(int(r[0]) for r in rows))

    def record(self, request: ForgetRequest) -> int:
        check_forget_request(request)
        new_id = self.scope.next_id("forget_requests")
        self.scope.run(
            "INSERT INTO tiermem.forget_requests (agent_id, id, created_at, request_hash, mode, "
            "outcome, facts, passages, messages, detail) "
            "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
            (new_id, request.created_at, request.request_hash, request.mode, request.outcome,
             *request.id_lists(), request.detail))
        return new_id

    def requests(self, newest: int | None = None) -> list[ForgetRequest]:
        select = (f"SELECT {', '.join(ForgetRequest.COLUMNS)} FROM tiermem.forget_requests "
                  f"WHERE agent_id = %s")
        rows = (self.scope.rows(f"{select} ORDER BY id") if newest is None else
                self.scope.rows(f"{select} ORDER BY id DESC LIMIT %s", (newest,)))
        return [ForgetRequest.from_row(tuple(r)) for r in rows]

    def conceal(self, audit_ids: Sequence[int], hashes: Sequence[str]) -> None:
        check_hashes(hashes, "forget request hash")
        for audit_id, hashed in zip(audit_ids, hashes, strict=True):
            self.scope.conn.execute(
                "UPDATE tiermem.forget_requests SET request_hash = %s "
                "WHERE agent_id = %s AND id = %s", (hashed, self.scope.agent, audit_id))

    def block(self, norm_hashes: Sequence[str], blocked_at: float) -> None:
        check_hashes(norm_hashes, "forgotten norm hash")
        check_moment(blocked_at, "forgotten_at")
        known = self.blocked_norms()
        for norm_hash in dict.fromkeys(norm_hashes):
            if norm_hash not in known:
                self.scope.run(
                    "INSERT INTO tiermem.forgotten_norms (agent_id, id, norm_hash, forgotten_at) "
                    "VALUES (%s, %s, %s, %s)",
                    (self.scope.next_id("forgotten_norms"), norm_hash, blocked_at))

    def unblock(self, norm_hash: str) -> None:
        self.scope.run("DELETE FROM tiermem.forgotten_norms WHERE agent_id = %s "
                       "AND norm_hash = %s", (norm_hash,))

    def blocked_norms(self) -> set[str]:
        return {str(r[0]) for r in self.scope.rows(
            "SELECT norm_hash FROM tiermem.forgotten_norms WHERE agent_id = %s")}
