"""The copies of erased text in other turns of recall, which an erasure takes too.

A turn's own copies of what goes are found in that turn (memory/ops/quoting.py). Later
turns copy it as well: a ``conversation_search`` result lists the user's message, a
reply quotes the fact from core. So an erasure reads all of recall once, a page of
``PAGE`` messages at a time, forgotten messages included, and takes every message the
model wrote (calls, tool results, replies) that quotes a text it erases, as quoting.py
decides (its content or a string of its tool calls' arguments holds the text whole, case
and runs of whitespace ignored, not cut out of a longer word).

Such a message is taken whole, not rewritten: recall is an append-only log (no row is
ever edited, and its full-text entry and vector follow its text), and a cut made where a
case- and space-blind match lies in a JSON result would leave its escaped copies. A tool
call left without its result is dropped from the prompt (agent/earlier_turns.py).

A message of the user's is never taken for quoting what was erased, in its own turn or
another: "I moved to Munich. Tom still thinks I live in Berlin." is a statement of its
own, with facts learned from it, and "What is my name?" said again is no copy of the one
erased. The erasure names those messages (``ErasureReport.quoted_by_user``) for the user
to erase them too, by their whole text.

Only texts that name what they say on their own are looked for there
(``state_scrub.telling``: four words or more, or a word like a secret): erasing "Thanks!"
takes the messages of its own turns that quote it, never every later "thanks".
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator

from tiermem.memory.ops.quoting import quoting
from tiermem.memory.ops.state_scrub import telling
from tiermem.memory.store.contract import MessageStore
from tiermem.memory.store.records import Message

#: Messages read from the store at once.
PAGE = 1000


def copies_in_recall(messages: MessageStore, texts: Iterable[str],
                     taken: Collection[int]) -> list[Message]:
    """In id order, the messages of recall, other than ``taken``, that quote one of
    ``texts`` that ``telling`` accepts (module docstring)."""
    wanted = [text for text in texts if telling(text)]
    if not wanted:
        return []
    return quoting((m for m in _every(messages) if m.id not in taken), wanted)


def users_apart(messages: Iterable[Message]) -> tuple[list[int], list[int]]:
    """The ids of ``messages`` (taken for quoting what is erased) that the model wrote, to
    take, and those of the user's, to name and keep (module docstring)."""
    listed = list(messages)
    return ([m.id for m in listed if m.role != "user"],
            [m.id for m in listed if m.role == "user"])


def _every(messages: MessageStore) -> Iterator[Message]:
    last = 0
    while page := messages.after(last, PAGE):
        yield from page
        last = page[-1].id


__all__ = ["PAGE", "copies_in_recall", "users_apart"]
