"""A thing called off and then back on is not due at a time the user took back before the
cancellation: one forgotten, denied or corrected since stays out of core."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from offline_helpers import chat, core_of

from tiermem.memory import HashingEmbedder, HierarchicalMemory
from tiermem.memory.text.resumptions import time_resumed


@pytest.fixture
def memory() -> Iterator[HierarchicalMemory]:
    with HierarchicalMemory(None, embedder=HashingEmbedder()) as m:
        yield m


@pytest.mark.parametrize(("taken_back", "now"), [
    ("Forget that.", ["The meeting is back on"]),
    ("The meeting isn't on Friday.", ["The meeting is back on", "The meeting isn't on Friday"]),
    ("Sorry, I meant Monday, not Friday.", ["The meeting is back on",
                                            "The meeting is on Monday"]),
])
def test_a_time_taken_back_is_not_brought_back(memory: HierarchicalMemory, taken_back: str,
                                               now: list[str]) -> None:
    chat(memory, "The meeting is on Friday.", taken_back, "The meeting is cancelled now.",
         "The meeting is back on now.")
    assert sorted(core_of(memory)) == now


def test_a_time_ended_by_the_cancellation_is_due_again() -> None:
    held_after = [{"The meeting is on Friday": "durable"},
                  {"The meeting is cancelled": "short-lived"}]
    assert time_resumed("The meeting is back on", held_after) == "The meeting is on Friday"
    forgotten = [{"The meeting is on Friday": "durable"}, {},
                 {"The meeting is cancelled": "short-lived"}]
    assert time_resumed("The meeting is back on", forgotten) is None
