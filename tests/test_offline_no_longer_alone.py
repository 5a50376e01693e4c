"""A sentence saying what held once and no longer does ("I like tea but now I don't"),
told while nothing it ends is held, is stored as what no longer holds: read apart at its
"now", it kept the first half alone and stored the opposite of what was said."""

from __future__ import annotations

from tiermem.agent.offline_statements import core_changes
from tiermem.memory.text.statements import past_apart


def test_what_is_no_longer_liked_is_not_stored_as_liked() -> None:
    retired, new = core_changes("I like tea but now I don't.", {})
    assert retired == []
    assert list(new) == ["User: I no longer like tea"]


def test_the_same_beside_other_facts() -> None:
    retired, new = core_changes("I like tea, but not anymore.",
                                {"User works at Globex": "durable"})
    assert retired == []
    assert list(new) == ["User: I no longer like tea"]


def test_one_more_statement_after_it_is_kept() -> None:
    _, new = core_changes("I like tea but now I don't and I live in Rome.", {})
    assert list(new) == ["User: I no longer like tea", "User lives in Rome"]


def test_a_state_no_longer_held_reads_as_one() -> None:
    # "I no longer am vegan" was stored as a quote of garbled words
    assert past_apart("I'm vegan, now I'm not.") == ["I am no longer vegan"]
    _, new = core_changes("I'm vegan, now I'm not.", {})
    assert list(new) == ["User is no longer vegan"]


def test_what_it_ends_is_still_retired() -> None:
    retired, new = core_changes("I like tea but now I don't.", {"User likes tea": "durable"})
    assert (retired, list(new)) == (["User likes tea"], [])
