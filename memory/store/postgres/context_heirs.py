"""The heirs of messages leaving recall in PostgreSQL, forgotten or erased: the next message
in context after each, whose context (``context_text``, ``context_words``) was its text and
becomes the text of the message in context before it, so nothing of it stays reachable
through a neighbour.

The store finds the heirs before the messages leave, when each is a step away from its
message, and writes their new context once they are gone: a statement each however many
messages leave (memory/store/postgres/schema_search.py, ``FORGET_IN_BULK`` and
``ERASE_IN_BULK`` say why not a trigger a row). Meanwhile it tells the trigger that hands
on the context of messages other programs take out (``OUTSIDE_THE_STORE``) to leave them.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from tiermem.memory.store.postgres.schema_search import IN_CONTEXT, STORE_HANDS_ON
from tiermem.memory.store.postgres.scope import Scope

#: The heirs of the agent's listed messages (the next message in context after each one in
#: context, not listed itself). Looked up one listed message at a time: for a few messages
#: spread over a long recall, where reading the span between them would cost more. Each
#: lookup stops before the next listed message in context: a message past that one is its
#: heir, not this one's. On a table not analysed since a large write a lookup is planned to
#: read every row past its message; bounded so, the lookups together read each row once at
#: most.
_HEIRS_LOOKED_UP = (
    "SELECT h.id FROM (SELECT m.id, lead(m.id) OVER (ORDER BY m.id) AS next_listed"
    " FROM tiermem.messages m WHERE m.agent_id = %s AND m.id = ANY(%s::bigint[])"
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


@contextmanager
def handing_on(scope: Scope, messages: Sequence[int]) -> Iterator[None]:
    """Around the statements that take the agent's ``messages`` out of recall, in the
    caller's transaction: their heirs found before and given their context after."""
    heirs = heirs_of(scope, messages)
    scope.conn.execute(f"SET LOCAL {STORE_HANDS_ON} = 'on'")
    yield
    take_context(scope, heirs)
    scope.conn.execute(f"SET LOCAL {STORE_HANDS_ON} = 'off'")


def heirs_of(scope: Scope, messages: Sequence[int]) -> list[int]:
    """The heirs of the agent's ``messages`` (module docstring), in id order; read while
    the messages are still in recall."""
    listed = sorted(set(messages))
    if not listed:
        return []
    first, last = listed[0], listed[-1]
    if last - first <= _SPAN_PER_MESSAGE * len(listed) + _SPAN_ALWAYS_READ:
        rows = scope.rows(_HEIRS_IN_SPAN, (first, scope.agent, last, last, listed, listed))
    else:
        rows = scope.rows(_HEIRS_LOOKED_UP, (listed, scope.agent, _PAST_EVERY_ID))
    return sorted(int(r[0]) for r in rows)


def take_context(scope: Scope, heirs: Sequence[int]) -> None:
    """Give the agent's ``heirs`` the context they have now, once their messages are gone."""
    if heirs:
        scope.conn.execute(_TAKE_CONTEXT, (list(heirs), scope.agent, scope.agent))
