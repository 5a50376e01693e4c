"""A state that leaves a scheduled or counted thing no time or count to keep ends it:
"cancelled" ends "at 6pm", "empty" ends "500 jobs", "Monday morning" ends "on Friday", and
a delay of days ends the day, while a state beside a count or a time still leaves it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from offline_helpers import chat, core_of

from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.text.updates import replaces


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        yield m


@pytest.mark.parametrize(("before", "now", "kept"), [
    ("The queue is 500 jobs.", "The queue is empty now.", ["The queue is empty"]),
    ("The queue is empty.", "The queue is 40 jobs now.", ["The queue is 40 jobs"]),
    ("The flight is at 6pm.", "The flight is cancelled now.", ["The flight is cancelled"]),
    ("The meeting is on Friday.", "The meeting is canceled now.", ["The meeting is canceled"]),
    ("The meeting is on Friday.", "The meeting is Monday morning now.",
     ["The meeting is Monday morning"]),
    ("The meeting is on Friday.", "The meeting is delayed by 2 days now.",
     ["The meeting is delayed by 2 days"]),
    # A delay of days moves the day, not the hour it was due at.
    ("The flight is at 6pm.", "The flight is delayed by 2 days now.",
     ["The flight is at 6pm", "The flight is delayed by 2 days"]),
    # As before: a delay of minutes counts from the time, and a state leaves a count.
    ("The flight is at 6pm.", "The flight is delayed by 30 minutes now.",
     ["The flight is at 6pm", "The flight is delayed by 30 minutes"]),
    ("The cluster is 5 nodes.", "The cluster is degraded now.",
     ["The cluster is 5 nodes", "The cluster is degraded"]),
    # One occasion cancelled leaves the time the others are due at.
    ("The standup is at 9am.", "The standup is cancelled today.",
     ["The standup is at 9am", "The standup is cancelled today"]),
    ("The standup is at 9am.", "The standup is called off this week.",
     ["The standup is at 9am", "The standup is called off this week"]),
    ("The standup is at 9am on Mondays.", "The standup is cancelled this Monday.",
     ["The standup is at 9am on Mondays", "The standup is cancelled this Monday"]),
    # The occasion the thing is due at cancelled, or every one from a day on, ends it.
    ("The meeting is on Friday at 3pm.", "The meeting is cancelled on Friday.",
     ["The meeting is cancelled on Friday"]),
    ("The flight is at 6pm today.", "The flight is cancelled today.",
     ["The flight is cancelled today"]),
    ("The standup is at 9am.", "The standup is cancelled from Monday.",
     ["The standup is cancelled from Monday"]),
])
def test_through_the_policy(memory: HierarchicalMemory, before: str, now: str,
                            kept: list[str]) -> None:
    chat(memory, before, now)
    assert list(core_of(memory)) == kept


@pytest.mark.parametrize(("new", "old", "ends"), [
    ("The meeting is in the afternoon", "The meeting is on Friday at 3pm", True),
    ("The subscription is cancelled", "The subscription is Pro", False),
    ("The queue is empty", "The queue is 2% full", False),
    ("The launch is pushed back a week", "The launch is on Monday", True),
])
def test_what_ends_what(new: str, old: str, ends: bool) -> None:
    assert replaces(new, old, "now") is ends
