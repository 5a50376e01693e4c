"""Counts in words: "1 match", "0 matches", "3 facts", never "1 matches" or "fact(s)"."""
from __future__ import annotations


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """``count`` and ``noun``, singular for exactly one (``plural`` when adding "s" is wrong)."""
    return f"{count} {noun if count == 1 else plural or noun + 's'}"


def items_counted(facts: int, passages: int, messages: int) -> str:
    """What a forget or an erasure covered, each tier counted: "1 fact, 0 passages, 3 messages"."""
    return (f"{counted(facts, 'fact')}, {counted(passages, 'passage')}, "
            f"{counted(messages, 'message')}")


def erased_counted(facts: int, passages: int, messages: int, copies: int,
                   *notes: str) -> str:
    """What an erasure took, ``copies`` being the messages of other turns taken for quoting
    it: "1 fact, 0 passages, 6 messages (2 of them copies in other turns)"; ``notes`` join
    the same brackets ("...; audit #1")."""
    return items_counted(facts, passages, messages) + copies_counted(copies, *notes)


def copies_counted(copies: int, *notes: str) -> str:
    """`` (N of them copies in other turns)`` after an erasure's counts, ``notes`` after it
    in the same brackets; "" for neither."""
    said = [f"{copies} of them copies in other turns"] * bool(copies) + list(notes)
    return f" ({'; '.join(said)})" if said else ""
