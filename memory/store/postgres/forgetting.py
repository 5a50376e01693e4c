"""Tombstones and the forget audit of one agent in PostgreSQL (contract.ForgetStore).

A forgotten row's ``search_text`` becomes '' and ``n_words`` 0, so its generated
``tsvector`` is empty and full-text search no longer matches it; its vector
becomes NULL, so dense search (which reads the stored column) skips it. A forgotten
message's heir, the next message in context, whose context was its text, takes the text
of the message in context before it, in one statement however many are forgotten
(memory/store/postgres/schema_search.py, ``FORGET_IN_BULK``).
"""

from __future__ import annotations

from collections.abc import Sequence

from tiermem.memory.store.postgres.schema_search import IN_CONTEXT
from tiermem.memory.store.postgres.scope import Scope
from tiermem.memory.store.records import ForgetRequest, Forgotten, tombstone_norm

#: What forgetting sets besides ``forgotten_at``, per table.
_DROPPED = {
    "facts": "search_text = '', n_words = 0, tier = 'archival'",
    "passages": "search_text = '', n_words = 0, embedding = NULL, embedder_id = NULL",
    "messages": "search_text = '', n_words = 0, embedding = NULL, embedder_id = NULL",
}

#: The heirs of the agent's listed messages (the next message in context after each one in
#: context, not listed itself), read before they are forgotten, when each heir is a step
#: away. Looked up one listed message at a time: for a few messages spread over a long
#: recall, where reading the span between them would cost more. Each lookup stops before
#: the next listed message in context: a message past that one is its heir, not this one's.
#: On a table not analysed since a large write a lookup is planned to read every row past
#: its message; bounded so, the lookups together read each row once at most.
_HEIRS_LOOKED_UP = (
    "SELECT h.id FROM (SELECT m.id, lead(m.id) OVER (ORDER BY m.id) AS next_listed"
    " FROM tiermem.messages m WHERE m.agent_id = %s AND m.id = ANY(%s)"
    f" AND {IN_CONTEXT.format(r='m')}) m, LATERAL (SELECT n.id FROM tiermem.messages n"
    " WHERE n.agent_id = %s AND n.id > m.id AND n.id < coalesce(m.next_listed, %s)"
    f" AND {IN_CONTEXT.format(r='n')} ORDER BY n.id LIMIT 1) h")
#: Past every id: the last listed message's lookup has no next one to stop at.
_PAST_EVERY_ID = 2**63 - 1

#: The heirs read in one pass over the messages in context from the first listed one to
#: the next in context after the last: those whose previous one is listed. Its cost does
#: not hang on the planner's statistics: on a table not analysed since a large import the
#: lookups each read every row up to the next listed message, a scan apiece.
_HEIRS_IN_SPAN = (
    "SELECT id FROM (SELECT n.id, lag(n.id) OVER (ORDER BY n.id) AS before"
    " FROM tiermem.messages n WHERE n.agent_id = %s AND n.id >= %s AND n.id <= coalesce("
    "(SELECT min(x.id) FROM tiermem.messages x WHERE x.agent_id = %s AND x.id > %s"
    f" AND {IN_CONTEXT.format(r='x')}), %s) AND {IN_CONTEXT.format(r='n')}) s"
    " WHERE before IN (SELECT unnest(%s::bigint[]))"  # hashed: = ANY reads the whole list
    " AND id NOT IN (SELECT unnest(%s::bigint[]))")
#: Ids spanned per listed message up to which one pass costs less than the lookups.
_SPAN_PER_MESSAGE = 64
_SPAN_ALWAYS_READ = 10_000

#: The listed messages take the context they have now.
_TAKE_CONTEXT = (
    "UPDATE tiermem.messages m SET context_text = c.txt, context_words = coalesce(c.words, 0)"
    " FROM unnest(%s::bigint[]) AS h(id), LATERAL tiermem.message_context(%s, h.id) c"
    " WHERE m.agent_id = %s AND m.id = h.id")


class PgForgetting:
    """memory.store.contract.ForgetStore for one agent."""

    def __init__(self, scope: Scope) -> None:
        self.scope = scope

    def forget(self, facts: Sequence[int], passages: Sequence[int],
               messages: Sequence[int], forgotten_at: float) -> Forgotten:
        with self.scope.conn.transaction():  # the heirs' contexts change with the tombstones
            listed = sorted(set(messages))
            heirs = self._heirs(listed)
            marked = {table: self._mark(table, ids, forgotten_at)
                      for table, ids in (("facts", facts), ("passages", passages),
                                         ("messages", messages))}
            if heirs:
                self.scope.conn.execute(_TAKE_CONTEXT, (heirs, self.scope.agent,
                                                        self.scope.agent))
            if marked["facts"]:
                with self.scope.conn.cursor() as cur:
                    cur.executemany(
                        "UPDATE tiermem.facts SET norm = %s WHERE agent_id = %s AND id = %s",
                        [(tombstone_norm(i), self.scope.agent, i) for i in marked["facts"]])
        return Forgotten(marked["facts"], marked["passages"], marked["messages"])

    def _heirs(self, listed: list[int]) -> list[int]:
        if not listed:
            return []
        first, last = listed[0], listed[-1]
        if last - first <= _SPAN_PER_MESSAGE * len(listed) + _SPAN_ALWAYS_READ:
            rows = self.scope.rows(_HEIRS_IN_SPAN, (first, self.scope.agent, last, last,
                                                    listed, listed))
        else:
            rows = self.scope.rows(_HEIRS_LOOKED_UP, (listed, self.scope.agent,
                                                      _PAST_EVERY_ID))
        return sorted(int(r[0]) for r in rows)

    def _mark(self, table: str, ids: Sequence[int], forgotten_at: float) -> tuple[int, ...]:
        if not ids:
            return ()
        rows = self.scope.conn.execute(
            f"UPDATE tiermem.{table} SET forgotten_at = %s, {_DROPPED[table]} "
            f"WHERE agent_id = %s AND id = ANY(%s) AND forgotten_at IS NULL RETURNING id",
            (forgotten_at, self.scope.agent, sorted(set(ids)))).fetchall()
        return tuple(sorted(int(r[0]) for r in rows))

    def record(self, request: ForgetRequest) -> int:
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
        for audit_id, hashed in zip(audit_ids, hashes, strict=True):
            self.scope.conn.execute(
                "UPDATE tiermem.forget_requests SET request_hash = %s "
                "WHERE agent_id = %s AND id = %s", (hashed, self.scope.agent, audit_id))

    def block(self, norm_hashes: Sequence[str], blocked_at: float) -> None:
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
