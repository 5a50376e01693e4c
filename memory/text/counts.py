"""Counts in words: "1 match", "0 matches", "3 facts", never "1 matches" or "fact(s)"."""
from __future__ import annotations


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """``count`` and ``noun``, singular for exactly one (``plural`` when adding "s" is wrong)."""
    return f"{count} {noun if count == 1 else plural or noun + 's'}"


def items_counted(facts: int, passages: int, messages: int) -> str:
    """What a forget or an erasure covered, each tier counted: "1 fact, 0 passages, 3 messages"."""
    return (f"{counted(facts, 'fact')}, {counted(passages, 'passage')}, "
            f"{counted(messages, 'message')}")


def erased_counted(facts: int, passages: int, messages: int, copies: int) -> str:
    """What an erasure took, ``copies`` being the messages of other turns taken for quoting
    it: "1 fact, 0 passages, 6 messages (2 of them copies in other turns)"."""
    return items_counted(facts, passages, messages) + copies_counted(copies)


def copies_counted(copies: int) -> str:
    """`` (N of them copies in other turns)`` after an erasure's counts; "" for none."""
    return f" ({copies} of them copies in other turns)" if copies else ""
